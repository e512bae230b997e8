// sparkpersist: the JVM side. Versions come from versions.properties (shared with Python and make).
import java.io.FileInputStream
import java.util.Properties

lazy val versions: Properties = {
  val p = new Properties()
  val in = new FileInputStream(file("versions.properties"))
  try p.load(in) finally in.close()
  p
}
lazy val sparkVersion = versions.getProperty("spark_version")
lazy val hadoopVersion = versions.getProperty("hadoop_version")

ThisBuild / organization := "io.sparkpersist"
ThisBuild / version := versions.getProperty("package_version")
ThisBuild / scalaVersion := versions.getProperty("scala_version")
// Spark runs on exactly this scala-library (it ships it); keep transitive deps from raising it.
ThisBuild / dependencyOverrides ++= Seq(
  "org.scala-lang" % "scala-library" % versions.getProperty("scala_version"),
  "org.scala-lang" % "scala-reflect" % versions.getProperty("scala_version"))

// Spark's own list (launcher JavaModuleOptions): what Spark needs opened on Java 17.
lazy val sparkJavaOptions = Seq(
  "-XX:+IgnoreUnrecognizedVMOptions",
  "--add-opens=java.base/java.lang=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
  "--add-opens=java.base/java.io=ALL-UNNAMED",
  "--add-opens=java.base/java.net=ALL-UNNAMED",
  "--add-opens=java.base/java.nio=ALL-UNNAMED",
  "--add-opens=java.base/java.util=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
  "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
  "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
  "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
  "-Djdk.reflect.useDirectMethodHandle=false",
  "-Dio.netty.tryReflectionSetAccessible=true"
)

lazy val sparkpersist = (project in file("jvm"))
  .settings(
    name := "sparkpersist",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    javacOptions ++= Seq("--release", "17"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
      // SharedSparkSession / QueryTest come from Spark's test jars.
      "org.apache.spark" %% "spark-core" % sparkVersion % Test classifier "tests",
      "org.apache.spark" %% "spark-catalyst" % sparkVersion % Test classifier "tests",
      "org.apache.spark" %% "spark-sql" % sparkVersion % Test classifier "tests",
      "org.apache.spark" %% "spark-sql-api" % sparkVersion % Test classifier "tests",
      // HDFS commits are tested on a real HDFS: Hadoop's MiniDFSCluster, in its shaded form that
      // sits beside the hadoop-client-api/runtime jars Spark ships.
      "org.apache.hadoop" % "hadoop-client-minicluster" % hadoopVersion % Test
    ),
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= sparkJavaOptions ++ Seq("-Xmx2g", "-Dspark.ui.enabled=false"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    Compile / run / fork := true,
    Compile / run / javaOptions ++= sparkJavaOptions
  )

// Benchmarks (not tests): `make bench` runs their mains; Spark is a normal dependency here.
lazy val bench = (project in file("bench/jvm"))
  .dependsOn(sparkpersist % "compile->compile;compile->test")
  .settings(
    publish / skip := true,
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion,
      // The incumbent in IncumbentsBench: 4.3.1 is the newest delta-spark built against Spark 4.1
      // (its pom: spark-sql 4.1.0, provided; 4.4.0 moved to Spark 4.2).
      "io.delta" %% "delta-spark" % "4.3.1"),
    Compile / run / fork := true,
    Compile / run / javaOptions ++= sparkJavaOptions ++ Seq("-Xmx4g"),
    Compile / run / outputStrategy := Some(StdoutOutput)
  )

lazy val root = (project in file("."))
  .aggregate(sparkpersist)
  .settings(publish / skip := true)

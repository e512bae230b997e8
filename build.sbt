// sparkpersist: the JVM side, built for one Spark line at a time (versions.properties declares the
// lines and what each pins). The line comes from -Dsparkpersist.line=<major.minor> (the Makefile's
// SPARK=), default versions.properties' spark_default_line. Spark is `provided`: the line compiles,
// tests and runs against the jars of its pyspark wheel (-Dsparkpersist.sparkJars=<wheel>/pyspark/jars,
// set by the Makefile from the line's virtualenv), the Spark its users run.
import java.io.FileInputStream
import java.util.Properties

lazy val versions: Properties = {
  val p = new Properties()
  val in = new FileInputStream(file("versions.properties"))
  try p.load(in) finally in.close()
  p
}
lazy val sparkLines: Seq[String] = versions.getProperty("spark_lines").trim.split("\\s+").toSeq
lazy val sparkLine: String = {
  val asked = sys.props.getOrElse("sparkpersist.line", versions.getProperty("spark_default_line"))
  val line = asked.split('.').take(2).mkString(".")
  if (!sparkLines.contains(line))
    sys.error(s"Spark line $asked is not one this tree builds; the lines are ${sparkLines.mkString(", ")} (versions.properties)")
  val pinned = lineVersion("spark", line)
  if (asked.count(_ == '.') == 2 && asked != pinned)
    sys.error(s"Spark $asked: line $line is built against pyspark $pinned (versions.properties); ask for SPARK=$line or SPARK=$pinned")
  line
}
def lineVersion(what: String, line: String = sparkLine): String =
  Option(versions.getProperty(s"line.$line.$what")).map(_.trim)
    .getOrElse(sys.error(s"versions.properties declares no line.$line.$what"))
lazy val sparkVersion = lineVersion("spark")
lazy val hadoopVersion = lineVersion("hadoop")
lazy val icebergVersion = versions.getProperty("iceberg").trim
/** The jars of the line's pyspark wheel: Spark and everything it runs with. */
lazy val sparkJars: File = {
  // Absolute: forked test JVMs run in jvm/, where a path relative to the build would not resolve.
  val dir = file(sys.props.getOrElse("sparkpersist.sparkJars",
    sys.error(s"-Dsparkpersist.sparkJars is not set: build through the Makefile (make jar SPARK=$sparkLine), " +
      s"which installs pyspark $sparkVersion and points the build at its jars"))).getAbsoluteFile
  val core = dir / s"spark-core_2.13-$sparkVersion.jar"
  if (!core.exists) sys.error(s"$dir holds no ${core.getName}: it is not the jars directory of pyspark $sparkVersion")
  dir
}
/** Spark's own test jars (SharedSparkSession, QueryTest) from Maven Central, without their dependencies. */
lazy val sparkTestJars = Seq("spark-core", "spark-catalyst", "spark-sql", "spark-sql-api").map { module =>
  ("org.apache.spark" %% module % lineVersion("spark_tests") % Test classifier "tests").intransitive()
}

ThisBuild / organization := "io.sparkpersist"
ThisBuild / version := versions.getProperty("package_version")
ThisBuild / scalaVersion := lineVersion("scala")
// Spark runs on exactly this scala-library (it ships it); keep transitive deps from raising it.
ThisBuild / dependencyOverrides ++= Seq(
  "org.scala-lang" % "scala-library" % lineVersion("scala"),
  "org.scala-lang" % "scala-reflect" % lineVersion("scala"))

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

/** What every project of the build shares for the line: its own target directory (switching lines
  * rebuilds nothing of another line), and Spark from the line's wheel on every classpath. */
lazy val onSparkLine = Seq(
  target := baseDirectory.value / "target" / s"spark-$sparkLine",
  Compile / unmanagedJars ++= (sparkJars ** "*.jar").classpath,
  // Iceberg, shaded (icebergShaded): compiled, tested and benchmarked against the jar users get.
  Compile / unmanagedJars += (icebergShaded / assembly).value
)

lazy val sparkpersist = (project in file("jvm"))
  .settings(onSparkLine)
  .settings(
    // The artifact carries the line, as Delta's and Iceberg's do: sparkpersist-spark-4.2_2.13-<version>.jar.
    name := s"sparkpersist-spark-$sparkLine",
    moduleName := name.value, // sbt would make "4.2" into "4-2"
    // Code that differs between lines: src/{main,test}/spark-<line>/ beside scala/ (docs/development.md).
    Compile / unmanagedSourceDirectories += (Compile / sourceDirectory).value / s"spark-$sparkLine",
    Test / unmanagedSourceDirectories += (Test / sourceDirectory).value / s"spark-$sparkLine",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    javacOptions ++= Seq("--release", "17"),
    libraryDependencies ++= Seq(
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
      // HDFS commits are tested on a real HDFS: Hadoop's MiniDFSCluster, in its shaded form that
      // sits beside the hadoop-client-api/runtime jars Spark ships.
      "org.apache.hadoop" % "hadoop-client-minicluster" % hadoopVersion % Test,
    ) ++ sparkTestJars,
    // The jar users get (`make jar`): our classes and the shaded Iceberg, under the artifact's name.
    assembly / assemblyJarName := s"${moduleName.value}_2.13-${version.value}.jar",
    assembly / assemblyOption ~= (_.withIncludeScala(false)),
    assembly / assemblyExcludedJars := (assembly / fullClasspath).value
      .filterNot(_.data.getName == (icebergShaded / assembly / assemblyJarName).value),
    assembly / test := {},
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= sparkJavaOptions ++ Seq("-Xmx2g", "-Dspark.ui.enabled=false"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    Compile / run / fork := true,
    Compile / run / javaOptions ++= sparkJavaOptions
  )

/**
 * Apache Iceberg's Java library (iceberg-core, -api, -common and its bundled Guava), for the Iceberg
 * metadata a shard writes beside its state (`sparkpersist.iceberg`), as one jar with what it depends on
 * relocated under `sparkpersist.shaded`: Avro, Jackson, Caffeine and RoaringBitmap of the versions
 * Iceberg was built with, which differ from those Spark ships (Jackson 2.22 beside Spark's 2.21, whose
 * Scala module refuses another minor) or are absent from it (Caffeine). Hadoop and SLF4J are Spark's.
 * `sparkpersist`'s jar carries it whole, so `--jars`, the wheel and the Thrift server need one jar.
 */
lazy val icebergShaded = (project in file("jvm/iceberg-shaded"))
  .settings(
    target := baseDirectory.value / "target" / s"spark-$sparkLine",
    publish / skip := true,
    libraryDependencies += ("org.apache.iceberg" % "iceberg-core" % icebergVersion)
      .exclude("org.slf4j", "slf4j-api")
      // Iceberg's REST catalog client, which the Hadoop-table metadata never loads.
      .exclude("org.apache.httpcomponents.client5", "httpclient5"),
    assembly / assemblyJarName := s"iceberg-shaded-$icebergVersion.jar",
    // What Avro and Commons Compress use of Apache Commons, Spark ships (the same classes twice would clash).
    assembly / assemblyExcludedJars := (assembly / fullClasspath).value
      .filter(j => Seq("commons-codec-", "commons-io-", "commons-lang3-").exists(j.data.getName.startsWith)),
    assembly / assemblyOption ~= (_.withIncludeScala(false)),
    assembly / assemblyShadeRules := Seq("org.apache.avro", "com.fasterxml.jackson", "com.github.benmanes.caffeine",
      "org.roaringbitmap", "io.airlift.compress", "org.apache.commons.compress", "org.checkerframework",
      "com.google.errorprone", "org.jspecify").map(p => ShadeRule.rename(s"$p.**" -> s"sparkpersist.shaded.$p.@1").inAll),
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "services", _*) => MergeStrategy.concat
      // Each bundled project's LICENSE and NOTICE, kept (Apache License 2.0, section 4).
      case PathList("META-INF", name) if name.startsWith("LICENSE") || name.startsWith("NOTICE") => MergeStrategy.concat
      case PathList("META-INF", _*) => MergeStrategy.discard
      case x if x.endsWith("module-info.class") => MergeStrategy.discard
      case _ => MergeStrategy.first
    }
  )

// Benchmarks (not tests): `make bench` runs their mains on the line's Spark.
lazy val bench = (project in file("bench/jvm"))
  .dependsOn(sparkpersist % "compile->compile;compile->test")
  .settings(onSparkLine)
  .settings(
    publish / skip := true,
    // The incumbent in IncumbentsBench: the delta-spark release built for the line (versions.properties).
    libraryDependencies ++= Option(lineVersion("delta")).filter(_.nonEmpty).map("io.delta" %% "delta-spark" % _).toSeq,
    Compile / run / fork := true,
    Compile / run / javaOptions ++= sparkJavaOptions ++ Seq("-Xmx4g"),
    Compile / run / outputStrategy := Some(StdoutOutput)
  )

lazy val root = (project in file("."))
  .aggregate(sparkpersist)
  .settings(target := baseDirectory.value / "target" / s"spark-$sparkLine", publish / skip := true)

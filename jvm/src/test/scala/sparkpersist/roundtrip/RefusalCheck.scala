package sparkpersist.roundtrip

import java.io.File

import scala.util.Random
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{AnalysisException, DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{ArrayType, DataType, StructField, StructType}

import sparkpersist.api.PythonApi
import sparkpersist.catalog.SessionShards

/**
 * The other half of the write boundary: a schema holding a type no part can store exactly
 * ([[RandomTypes.refused]]: TIME, or a struct without fields), at a random place of a random
 * schema, must be refused by the writer (the facade `PythonApi.write`, which creates the shard)
 * with an `IllegalArgumentException` naming where the type is and the type, before anything is
 * written: afterwards the shard does not exist and its directory holds no file. Its DataFrame is
 * built with and without `spark.sql.timeType.enabled` (without it, Spark refuses a TIME column
 * itself, before any writer sees it).
 */
final class RefusalCheck(spark: SparkSession) {

  def run(seed: Long, index: Int): RoundTripOutcome = {
    val rand = new Random(seed * 1000003L + index + 0x5EED)
    val (schema, path, refused) = RefusalCheck.place(rand, RandomTypes.schema(rand, maxColumns = 4, maxDepth = 2))
    val name = s"rt_refused_${java.lang.Long.toUnsignedString(seed)}_$index"
    val expected = Seq(s"Cannot create shard '$name'", RefusalCheck.describe(path), s"has type ${refused.sql}")
    val rows = Seq.fill(1 + rand.nextInt(5))(new RandomValues(rand).rows(schema)())
    val timeType = rand.nextBoolean().toString
    var bySpark = true
    val problem = SessionSettings(spark, Map("spark.sql.timeType.enabled" -> timeType)) {
      RefusalCheck.dataFrame(spark, schema, rows).flatMap { df =>
        bySpark = false
        try {
          PythonApi.write(df, name, null, null, null, null, null, null)
          Some("the write was accepted")
        } catch {
          case e: IllegalArgumentException if expected.forall(e.getMessage.contains) => None
          case NonFatal(e) =>
            Some(s"refused with ${e.getClass.getName}: ${String.valueOf(e.getMessage).linesIterator.nextOption().getOrElse("").take(400)}")
        }
      }
    }
    val leftovers = files(name)
    val mismatches = problem.toSeq.map(p => s"$p; expected an IllegalArgumentException saying ${expected.mkString(" ... ")}") ++
      (if (SessionShards.store(spark).exists(name) || leftovers.nonEmpty) Seq(s"left behind: $leftovers") else Nil)
    val feature = (if (bySpark) "Spark refused " else "refused ") + (if (refused.isInstanceOf[StructType]) "STRUCT<>" else "TIME")
    RoundTripOutcome(refusals = 1, features = Set(feature), mismatchCount = mismatches.size, mismatches =
      if (mismatches.isEmpty) Nil
      else s"seed $seed, refused schema #$index ($name, timeType.enabled=$timeType): ${schema.toDDL}:" +: mismatches.map("  " + _))
  }

  private def files(name: String): Seq[String] = {
    val dir = new File(new Path(SessionShards.store(spark).root, name).toUri)
    def walk(f: File): Seq[String] = if (f.isDirectory) f.listFiles().toSeq.flatMap(walk) else Seq(f.getPath)
    if (dir.exists()) walk(dir) else Nil
  }
}

object RefusalCheck {

  /**
   * The DataFrame of `rows`, or None when Spark itself refuses it: without
   * `spark.sql.timeType.enabled`, Spark refuses a TIME column (not a nested TIME field) up front.
   */
  def dataFrame(spark: SparkSession, schema: StructType, rows: Seq[Row]): Option[DataFrame] =
    try {
      val df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 1), schema)
      df.queryExecution.assertAnalyzed()
      Some(df)
    } catch {
      case e: AnalysisException if e.getCondition == "UNSUPPORTED_TIME_TYPE" => None
    }

  /**
   * `schema` with a refused type put at a random place: a new column, a new field of a struct
   * column (at any depth), or the element type of a new array column. Returns the schema, the
   * refused type's path (as `StorableTypes` names it) and the type.
   */
  def place(rand: Random, schema: StructType): (StructType, Seq[String], DataType) = {
    val refused = RandomTypes.refused(rand)
    def into(struct: StructType, path: Seq[String]): (StructType, Seq[String]) = {
      val structs = struct.fields.filter(_.dataType.isInstanceOf[StructType])
      if (structs.nonEmpty && rand.nextBoolean()) {
        val f = structs(rand.nextInt(structs.length))
        val (inner, at) = into(f.dataType.asInstanceOf[StructType], path :+ f.name)
        (StructType(struct.fields.map(g => if (g eq f) g.copy(dataType = inner) else g)), at)
      } else {
        val name = Iterator.continually(RandomNames.level(rand, 1, topLevel = path.isEmpty).head)
          .find(n => !struct.fieldNames.exists(_.equalsIgnoreCase(n))).get
        val asArray = rand.nextInt(3) == 0
        val field = StructField(name, if (asArray) ArrayType(refused) else refused)
        val fields = struct.fields.toSeq.patch(rand.nextInt(struct.length + 1), Seq(field), 0)
        (StructType(fields), (path :+ name) ++ (if (asArray) Seq("element") else Nil))
      }
    }
    val (placed, path) = into(schema, Nil)
    (placed, path, refused)
  }

  /** How the refusal names the place `path`. */
  def describe(path: Seq[String]): String =
    if (path.size == 1) s"column '${path.head}'" else s"'${path.mkString(".")}' (in column '${path.head}')"
}

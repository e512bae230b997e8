package sparkpersist.iceberg

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.classic.SparkSession

import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{PartMeta, ShardHandle}

/**
 * Which rows of a set of parts an Iceberg snapshot must delete so that their data files hold the
 * parts' consolidated rows, found by matching retractions to inserted rows **by value**, in one Spark
 * job: one task per part reads its rows with their positions ([[PartFileReader]], every data column of
 * the shard, as consolidation reads them), the rows meet by value in a shuffle, and per value:
 *
 *  - its net multiplicity `m` is the sum of its rows' diffs (a row of diff `d` stands for `d` copies);
 *  - the `m` rows of diff +1 first in (part, position) order are kept, every other row of the value
 *    (the rest of diff +1, every retraction, every row of another diff) is deleted by position;
 *  - it has no such form when `m < 0` (the parts retract it more often than they insert it) or when
 *    fewer than `m` of its rows have diff +1 (a compaction consolidated its copies into a row of
 *    multiplicity above 1, which a data file cannot repeat): `Left` says so.
 *
 * Values are told apart as consolidation tells them apart ([[sparkpersist.consolidate.RunMerge]]): by
 * the exact bytes of the row's data columns (-0.0 is not 0.0, strings of a collation by their bytes).
 */
private[iceberg] object ValueMatching {

  /** One row of a part: the part's index among the parts matched, its position, its diff. */
  private type Located = (Int, Long, Long)

  /**
   * The rows to delete, as (index of the part in `parts`, position), or why the parts have no form of
   * data files and position deletes. Requires a session that reads positions ([[PartFileReader.readsPositions]]).
   */
  def deletes(spark: SparkSession, shard: ShardHandle, schema: ShardSchema,
      parts: IndexedSeq[PartMeta]): Either[String, Seq[(Int, Long)]] =
    if (parts.isEmpty) Right(Nil)
    else {
      val reader = PartFileReader(spark, schema, schema.dataSchema, withPositions = true, positionsOfEveryPart = true)
      val files = parts.map(p => PartFile.of(shard.partUri(p), p, verify = false))
      val columns = schema.dataSchema.fields.toSeq.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) }
      val (positionOrdinal, diffOrdinal) = (reader.schema.length - 3, reader.diffOrdinal)
      val sc = spark.sparkContext
      val description = sc.getLocalProperty("spark.job.description") // (SparkContext's constant is private to Spark)
      sc.setJobDescription(s"Iceberg deletes by value of shard '${shard.name}' (${parts.size} parts)")
      try {
        val located = sc.parallelize(files.zipWithIndex, files.size).mapPartitions { it =>
          val open = new OpenFiles
          Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => open.close()))
          val data = UnsafeProjection.create(columns)
          it.flatMap { case (file, index) =>
            reader.rowsAsOf(file, Long.MaxValue, open).map { row =>
              data(row).copy() -> ((index, row.getLong(positionOrdinal), row.getLong(diffOrdinal)): Located)
            }
          }
        }
        val decided = located.groupByKey(math.max(1, math.min(files.size, sc.defaultParallelism)))
          .flatMap { case (_, rows) => decide(rows) }.collect()
        decided.collectFirst { case Left(why) => why }.toLeft(decided.toSeq.collect { case Right(row) => row })
      } finally sc.setJobDescription(description)
    }

  /** The rows of one value to delete (see the object's doc), or why its rows cannot say it. */
  private def decide(rows: Iterable[Located]): Iterator[Either[String, (Int, Long)]] = {
    val net = rows.iterator.map(_._3).sum
    if (rows.forall(_._3 == 1L)) Iterator.empty // nothing retracted: every copy stays
    else {
      val (ones, others) = rows.toSeq.partition(_._3 == 1L)
      if (net < 0) Iterator.single(Left(s"its parts retract a row ${-net} times more often than they insert it"))
      else if (ones.size < net) {
        Iterator.single(Left(s"a row it keeps $net times is held by ${ones.size} rows of multiplicity 1 (a compaction " +
          "consolidated its copies into a row of multiplicity above 1, which data files cannot repeat)"))
      } else {
        val deleted = ones.map(r => (r._1, r._2)).sorted.drop(net.toInt) ++ others.map(r => (r._1, r._2))
        deleted.iterator.map(Right(_))
      }
    }
  }
}

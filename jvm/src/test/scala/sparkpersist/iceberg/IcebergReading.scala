package sparkpersist.iceberg

import scala.jdk.CollectionConverters._

import org.apache.iceberg.{Snapshot, Table}
import org.apache.iceberg.expressions.{Expression, Expressions}
import org.apache.iceberg.hadoop.HadoopTables
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.col

/**
 * A reader of a shard's Iceberg metadata that shares no code with the writer: Iceberg's own
 * `HadoopTables` loads the table and plans a snapshot's scan (data files, the position delete files
 * of each, files pruned by a filter); plain Spark reads each planned Parquet file and its delete
 * files, and leaves out the rows at the deleted positions (`_metadata.row_index`).
 */
trait IcebergReading { self: org.scalatest.Assertions =>
  protected def spark: SparkSession

  protected def icebergTable(location: String): Table =
    new HadoopTables(spark.sessionState.newHadoopConf()).load(location)

  /** The snapshot whose summary names shard version `version`. */
  protected def snapshotOf(table: Table, version: Long): Snapshot =
    table.snapshots().asScala.find(_.summary().get("sparkpersist.version") == version.toString)
      .getOrElse(fail(s"no Iceberg snapshot shows shard version $version: ${table.snapshots().asScala.map(_.summary())}"))

  /** The shard versions the table's snapshots show, oldest first. */
  protected def shownVersions(table: Table): Seq[Long] =
    table.snapshots().asScala.toSeq.sortBy(_.sequenceNumber()).map(_.summary().get("sparkpersist.version").toLong)

  /** The rows `snapshot` holds (under `filter`: of the files Iceberg plans for it, unfiltered), and how many files it planned. */
  protected def icebergRows(table: Table, snapshot: Snapshot, filter: Expression = Expressions.alwaysTrue()): (Seq[Row], Int) = {
    val columns = table.schemas().get(snapshot.schemaId()).columns().asScala.map(_.name()).toSeq
    val scan = table.newScan().useSnapshot(snapshot.snapshotId()).filter(filter).planFiles()
    val tasks = try scan.asScala.toVector finally scan.close()
    val rows = tasks.flatMap { task =>
      val path = task.file().location()
      val deleted = task.deletes().asScala.flatMap { d =>
        spark.read.parquet(d.location()).where(col("file_path") === path).select("pos").collect().map(_.getLong(0))
      }.toSet
      spark.read.parquet(path).select((columns.map(col) :+ col("_metadata.row_index")): _*).collect()
        .filterNot(r => deleted(r.getLong(columns.size))).map(r => Row.fromSeq(r.toSeq.take(columns.size)))
    }
    (rows, tasks.size)
  }

}

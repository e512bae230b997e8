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
 * of each, files pruned by a filter); plain Spark reads the planned Parquet files and their delete
 * files, and leaves out of each data file the rows at the positions its delete files name (`_metadata.row_index`).
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
    // Two Spark jobs in all: every delete file's rows (file_path, pos), then every planned data file's rows with their
    // positions; a row is left out where a delete file Iceberg planned for its data file names it.
    val path = (location: String) => new org.apache.hadoop.fs.Path(location).toUri.getPath
    val deleteFiles = tasks.flatMap(_.deletes().asScala.map(_.location())).distinct
    val deletes = if (deleteFiles.isEmpty) Map.empty[(String, Long), Set[String]]
      else spark.read.parquet(deleteFiles: _*).select(col("file_path"), col("pos"), col("_metadata.file_path")).collect()
        .groupBy(r => path(r.getString(0)) -> r.getLong(1)).map { case (at, rs) => at -> rs.map(r => path(r.getString(2))).toSet }
    val planned = tasks.map(t => path(t.file().location()) -> t.deletes().asScala.map(d => path(d.location())).toSet).toMap
    val rows = if (tasks.isEmpty) Vector.empty[Row] else {
      spark.read.parquet(tasks.map(_.file().location()): _*)
        .select((columns.map(col) ++ Seq(col("_metadata.file_path"), col("_metadata.row_index"))): _*).collect().toVector
        .filterNot { r =>
          val at = path(r.getString(columns.size)) -> r.getLong(columns.size + 1)
          deletes.get(at).exists(_.exists(planned(at._1)))
        }.map(r => Row.fromSeq(r.toSeq.take(columns.size)))
    }
    (rows, tasks.size)
  }

}

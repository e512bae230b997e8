package sparkpersist.datasource

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SaveMode}
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException
import org.apache.spark.sql.functions.lit
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.catalog.{PersistTableId, SessionShards, ShardTables}
import sparkpersist.errors.{PersistError, PersistErrors}
import sparkpersist.plan.TableView
import sparkpersist.shard.NoSuchShard

/**
 * `df.write.format("persist").mode(m).save(path)`: a write to the catalog's path table
 * `persist.\`path\``, so exactly the catalog's write (its options, its commit, its overwrite).
 *  - `append`: one batch of the rows;
 *  - `overwrite`: the shard's rows retracted and the DataFrame's inserted, in one batch, the plan
 *    `INSERT OVERWRITE` runs (`OverwriteByExpression(true)`); earlier times still read as before;
 *  - `errorifexists` (the default): refused if a shard is there;
 *  - `ignore`: nothing written if a shard is there.
 * Where there is no shard yet, every mode creates it with the DataFrame's schema and writes the
 * rows (a `CREATE TABLE ... AS SELECT`; if another writer creates it first, `append` and
 * `overwrite` then write to that shard). The table properties a shard is created with
 * (`order_by`, `sparkpersist.indexColumns`, `sparkpersist.clusterBy`,
 * `sparkpersist.isolationLevel`) are taken as options by the write that creates it; the other
 * options are the catalog's write options (`max_rows_per_part`, ...).
 */
private[datasource] object PathWrites {

  /** The options a write that creates the shard takes as its table properties. */
  private val CreationProperties = ShardTables.ShardProperties

  def save(mode: SaveMode, parameters: Map[String, String], data: DataFrame): Unit = {
    val path = this.path(new CaseInsensitiveStringMap(parameters.asJava))
    val (creation, options) = parameters.filter { case (k, _) => !k.equalsIgnoreCase("path") }
      .partition { case (k, _) => CreationProperties.exists(_.equalsIgnoreCase(k)) }
    val table = PersistTableId(path, TableView.Snapshot).sqlName(SessionShards.CatalogName)
    def write = data.writeTo(table).options(options)
    def existing(): Unit = {
      if (creation.nonEmpty) {
        throw PersistErrors.invalidOption(s"The shard at $path exists", s"${creation.keys.toSeq.sorted.mkString(", ")} " +
          s"are set when a shard is created: drop these options, or change them with ALTER TABLE $table.")
      }
      mode match {
        case SaveMode.Append => write.append()
        case SaveMode.Overwrite => write.overwrite(lit(true))
        case SaveMode.Ignore =>
        case SaveMode.ErrorIfExists => throw PersistError("PERSIST_PATH_EXISTS", "path" -> path).illegalState
      }
    }
    if (SessionShards.store(data.sparkSession).exists(path)) existing()
    else {
      val created = creation.foldLeft(write) { case (w, (k, v)) =>
        w.tableProperty(CreationProperties.find(_.equalsIgnoreCase(k)).get, v)
      }
      try created.create()
      catch { case _: TableAlreadyExistsException => existing() }
    }
  }

  /** The `path` option of a `format("persist")` read or write. */
  def path(options: CaseInsensitiveStringMap): String =
    Option(options.get("path")).filter(_.trim.nonEmpty).getOrElse(throw PersistErrors.invalidOption(
      "format(\"persist\")", "it needs the shard's path: load(\"/data/t\") or save(\"s3a://bucket/t\") (any Hadoop URI). " +
        "To name a shard of the catalog, use spark.table(\"persist.<shard>\") or df.writeTo(\"persist.<shard>\")."))

  /** No shard at `path`: what a read of it raises. */
  def noShard(path: String): NoSuchShard = new NoSuchShard(path, "", Nil, located = true)

}

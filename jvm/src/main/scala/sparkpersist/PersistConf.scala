package sparkpersist

import java.util.Locale

import scala.collection.mutable

import org.apache.spark.sql.internal.SQLConf

/**
 * Every sparkpersist configuration, declared once with its default and documentation.
 *
 * Spark's own `ConfigBuilder` is private to Spark, so this is a small equivalent: an entry
 * knows its key, default, doc and how to parse a string. Values are read from the active
 * session's SQL conf (`SET key=value` works per session) with `get(conf)`.
 */
object PersistConf {

  final case class Entry[T](key: String, default: T, doc: String, parse: String => T) {
    def get(conf: SQLConf): T =
      Option(conf.getConfString(key, null)).map(v => parseChecked(v)).getOrElse(default)

    def get(settings: Map[String, String]): T =
      settings.get(key).map(parseChecked).getOrElse(default)

    def parseChecked(value: String): T =
      try parse(value)
      catch {
        case e: IllegalArgumentException =>
          throw new IllegalArgumentException(s"Invalid value '$value' for $key: ${e.getMessage}. $doc", e)
      }
  }

  private val registry = mutable.LinkedHashMap.empty[String, Entry[_]]

  /** All entries, in declaration order (the README table is generated from this). */
  def entries: Seq[Entry[_]] = registry.values.toSeq

  private def register[T](e: Entry[T]): Entry[T] = { registry(e.key) = e; e }

  private def long(key: String, default: Long, doc: String, min: Long = Long.MinValue) =
    register(Entry[Long](key, default, doc, { s =>
      val v = s.trim.toLong
      require(v >= min, s"must be at least $min")
      v
    }))

  private def bool(key: String, default: Boolean, doc: String) =
    register(Entry[Boolean](key, default, doc, s => s.trim.toLowerCase(Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case _ => throw new IllegalArgumentException("expected true or false")
    }))

  private def choice(key: String, default: String, allowed: Seq[String], doc: String) =
    register(Entry[String](key, default, doc, { s =>
      val v = s.trim.toLowerCase(Locale.ROOT)
      require(allowed.contains(v), s"expected one of ${allowed.mkString(", ")}")
      v
    }))

  private def optionalLong(key: String, doc: String) =
    register(Entry[Option[Long]](key, None, doc, s =>
      if (s.trim.isEmpty) None else Some(s.trim.toLong)))

  val Prefix = "spark.sparkpersist."

  val Root = register(Entry[Option[String]](Prefix + "root", None,
    "Directory (any Hadoop FileSystem URI) under which shards live, one sub-directory per shard. " +
      "Set by the catalog's `root` option or by this key.",
    s => Option(s.trim).filter(_.nonEmpty)))

  val AsOf = optionalLong(Prefix + "asOf",
    "Time (epoch ms) that batch reads and mz_now() use. Unset: the latest time complete in every " +
      "shard the query reads (min upper - 1). Must satisfy since <= asOf < upper.")

  val PushdownMode = choice(Prefix + "pushdown.mode", "on", Seq("on", "soft", "off"),
    "Part pruning: `on` skips parts the filter provably rejects; `soft` decides but reads every " +
      "part and reports any skippable part that yields a passing row; `off` reads every part.")

  val SoftFailOnViolation = bool(Prefix + "pushdown.soft.failOnViolation", false,
    "In soft mode, fail the query when a part marked skippable yields a row passing the filter.")

  val ConsolidationTasks = long(Prefix + "read.consolidationTasks", 0L,
    "Tasks that consolidate a snapshot with retractions, each merging the parts that may hold its " +
      "range of keys. 0: the cluster's default parallelism, or one task per " +
      "spark.sql.files.maxPartitionBytes of parts to merge when that is more; 1: a single merge.", min = 0)

  val ColumnarReads = bool(Prefix + "read.columnar", true,
    "Hand Spark columnar batches from its vectorized Parquet reader for reads that need no " +
      "consolidation (a snapshot without retractions, the updates view), as its own Parquet scan " +
      "does; false: rows.")

  val MaxRowsPerPart = long(Prefix + "write.maxRowsPerPart", 1000000L,
    "Largest number of rows in one part; a write task rolls over to a new part past it.", min = 1)

  val StringBoundChars = long(Prefix + "stats.stringBoundChars", 64L,
    "Longest string/binary prefix kept as a lower or upper bound in part statistics.", min = 1)

  val StatsBudgetBytes = long(Prefix + "stats.budgetBytes", 1024L,
    "Largest encoded size (bytes) of one part's statistics. Past it, string bounds are shortened, " +
      "then nested stats and whole columns' stats dropped, sparing kept and time-like columns; " +
      "0 disables the budget.", min = 0)

  val RollupEvery = long(Prefix + "state.rollupEvery", 100L,
    "A full state rollup is written every this many state versions, so opening a shard replays " +
      "at most this many diffs.", min = 1)
}

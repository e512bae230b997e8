package sparkpersist

import java.util.Locale

import scala.collection.mutable

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.errors.PersistError

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

    /** From a Hadoop configuration (a session's SQL settings are copied into its `newHadoopConf()`). */
    def get(hadoopConf: org.apache.hadoop.conf.Configuration): T =
      Option(hadoopConf.get(key)).map(parseChecked).getOrElse(default)

    def parseChecked(value: String): T =
      try parse(value)
      catch {
        case e: IllegalArgumentException =>
          throw PersistError("PERSIST_INVALID_CONF", "value" -> value, "key" -> key, "reason" -> e.getMessage,
            "doc" -> doc).invalidInput(e)
      }
  }

  private val registry = mutable.LinkedHashMap.empty[String, Entry[_]]

  /** All entries, in declaration order (docs/configuration.md documents each; PersistConfSuite checks it). */
  def entries: Seq[Entry[_]] = registry.values.toSeq

  private def register[T](e: Entry[T]): Entry[T] = { registry(e.key) = e; e }

  private def long(key: String, default: Long, doc: String, min: Long = Long.MinValue, max: Long = Long.MaxValue) =
    register(Entry[Long](key, default, doc, { s =>
      val v = s.trim.toLong
      require(v >= min, s"must be at least $min")
      require(v <= max, s"must be at most $max")
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

  /** A comma-separated list of names, stored trimmed, lower-cased and comma-joined. */
  private def names(key: String, default: String, doc: String) =
    register(Entry[String](key, default, doc, { s =>
      val names = s.split(",").map(_.trim.toLowerCase(Locale.ROOT)).filter(_.nonEmpty)
      require(names.forall(_.matches("[a-z][a-z0-9+.-]*")), "expected comma-separated URI schemes")
      names.mkString(",")
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
    "Time (epoch ms) that batch reads of every shard and mz_now() use. Unset: as " +
      "read.consistency says. Must satisfy since <= asOf < upper in every shard the query reads.")

  val ReadConsistency = choice(Prefix + "read.consistency", "latest", Seq("latest", "consistent"),
    "Without asOf, the time each shard of a query is read as of. `latest`: each shard at its own " +
      "latest complete time (upper - 1), as Spark table formats read each table's latest snapshot; " +
      "mz_now() is the latest of those. `consistent`: every shard at the latest time complete in all " +
      "of them (min upper - 1), with a warning naming each shard behind the others.")

  val MonotoneUdfs = register(Entry[Option[Map[String, String]]](Prefix + "udf.monotone", None,
    "User functions declared monotone, as `name:up` or `name:down` pairs separated by commas: " +
      "non-decreasing (non-increasing) in every argument, raising only beyond some bound. Part " +
      "pruning maps ranges through their endpoints (JVM functions on the driver, Python functions " +
      "declared with register_monotone in a Spark job); run `soft` pushdown first.",
    s => Some(s.split(",").map(_.trim).filter(_.nonEmpty).map { pair =>
      val (name, dir) = pair.split(":", -1) match {
        case Array(n, d) => (n.trim.toLowerCase(Locale.ROOT), d.trim.toLowerCase(Locale.ROOT))
        case _ => throw new IllegalArgumentException(s"expected name:up or name:down, got '$pair'")
      }
      require(dir == "up" || dir == "down", s"expected up or down for '$name', got '$dir'")
      name -> dir
    }.toMap).filter(_.nonEmpty)))

  val UdfProbePoints = long(Prefix + "udf.python.probePoints", 10000L,
    "A scan whose filter calls a declared monotone Python function evaluates it first, in one Spark " +
      "job, at the distinct range endpoints its parts need; beyond this many points the function " +
      "is not evaluated and every part keeps (0: never evaluate).", min = 0)

  val PushdownMode = choice(Prefix + "pushdown.mode", "on", Seq("on", "soft", "off"),
    "Part pruning: `on` skips parts the filter provably rejects; `soft` decides but reads every " +
      "part and reports any skippable part that yields a passing row; `off` reads every part.")

  val SoftFailOnViolation = bool(Prefix + "pushdown.soft.failOnViolation", false,
    "In soft mode, fail the query when a part marked skippable yields a row passing the filter.")

  val ConsolidationTasks = long(Prefix + "read.consolidationTasks", 0L,
    "Tasks that consolidate a snapshot with retractions, each merging the parts that may hold its " +
      "range of keys. 0: the cluster's default parallelism, or one task per " +
      "spark.sql.files.maxPartitionBytes of parts to merge when that is more; 1: a single merge.", min = 0)

  val CancelInMemoryRows = long(Prefix + "read.cancelInMemoryRows", 200000L,
    "A consolidation task whose parts with retractions hold at most this many rows sums those " +
      "parts' updates in memory and streams the other parts past them one at a time, cancelling " +
      "retracted rows, instead of merging every run in key order with one part open per run (one " +
      "entry per distinct row in memory, roughly 100-200 bytes each). 0: always merge.", min = 0)

  val ColumnarReads = bool(Prefix + "read.columnar", true,
    "Hand Spark columnar batches from its vectorized Parquet reader, as its own Parquet scan " +
      "does, for reads without row-by-row work (a snapshot without retractions, the updates view) " +
      "and for snapshots whose consolidation tasks cancel their few retractions in memory (the rows " +
      "cancelled left out of each batch, none copied), row-level operations' scans included; false: rows.")

  val PositionalReads = bool(Prefix + "read.positionalRetractions", true,
    "Read a snapshot whose every retraction was written by a row-level operation (DELETE, UPDATE, " +
      "MERGE) that recorded the position of the row it retracts by leaving out those rows and " +
      "those retractions by position, as a snapshot without retractions reads, instead of " +
      "consolidating rows by value; false: consolidate by value (the same rows).")

  val ParallelDecisionParts = long(Prefix + "read.parallelDecisionParts", 50000L,
    "A scan that sees at least this many parts decides which ones its filter rules out in parallel, " +
      "over the driver's cores (the same parts as one by one); 0: always one by one.", min = 0)

  val VectorizedDecision = bool(Prefix + "read.vectorizedDecision", true,
    "Decide the conjuncts of a filter that compare columns of simple types (numbers, booleans, " +
      "dates, timestamps, intervals) with constants over the parts' bounds as primitives, read " +
      "straight from a columnar rollup's stats bytes, and interpret only what they leave " +
      "undecided: the same parts, faster. false: interpret the whole filter for every part.")

  val StatsAggregates = bool(Prefix + "read.statsAggregates", true,
    "With pushdown `on`, answer `count`, `min` and `max` (filtered or not, grouped by columns " +
      "constant within each part or not) from the statistics of the parts on which the filter is " +
      "proven true and whose statistics are exact, reading only the other parts. false: read every part.")

  val OpenShards = long(Prefix + "catalog.openShards", 16L,
    "How many shards a persist catalog keeps open between queries, the most recently used: the " +
      "driver holds their newest state, and a query on one reads only the state versions committed " +
      "since instead of opening the shard anew (a rollup of all its parts). 0: every query opens its shard.",
    min = 0, max = Int.MaxValue)

  val MaxRowsPerPart = long(Prefix + "write.maxRowsPerPart", 1000000L,
    "Largest number of rows in one part; a write task rolls over to a new part past it.", min = 1)

  val StringBoundChars = long(Prefix + "stats.stringBoundChars", 64L,
    "Longest string/binary prefix kept as a lower or upper bound in part statistics. String bounds are " +
      "read from the part's Parquet footer, whose row group statistics of strings are truncated to " +
      "4 x this + 64 bytes (at most 2000) unless parquet.statistics.truncate.length is set.", min = 1)

  val CastStats = bool(Prefix + "stats.castStats", true,
    "Also record, for each string column and for the strings at each place of a VARIANT or JSON " +
      "text column, what its values become under CAST to numbers, dates " +
      "and timestamps (timestamps parsed in the writing session's time zone), so that casts of " +
      "text prune parts; these stats are the first trimmed under the stats budget. Each value is read " +
      "once (plain numbers and canonical dates and timestamps without Spark's general parsers), and a " +
      "part's column whose first 1024 values never parse is given up: 1.05x the write's time (CPU and wall) of " +
      "a table of text columns alone at 1,000,000 rows, 1.10-1.14x at 2,000,000-4,000,000, within noise on a " +
      "17-column event table (CastStatsBench, WriteBench).")

  val AutoIndexValues = long(Prefix + "stats.autoIndexValues", 256L,
    "Integral and string columns (and arrays of them: their elements) that are not time-like, not JSON and " +
      "not named in index_columns get, " +
      "in each part with at most this many distinct values, a membership filter for =, IN and <=> " +
      "(exact up to 64 values, else a Bloom filter of about 1% false positives; collated strings by their " +
      "sort key), unless the part's bounds already say as much; so do the strings and integers at each place of " +
      "a VARIANT or JSON text column (exact filters only, at most 64 values), for lookups through variant_get, " +
      "v:path::type and get_json_object. The stats " +
      "budget drops these filters first, the largest first. 0: none.",
    min = 0, max = sparkpersist.stats.MembershipCollector.MaxValues.toLong)

  val StatsBudgetBytes = long(Prefix + "stats.budgetBytes", 1536L,
    "Largest encoded size (bytes) of one part's statistics. Past it, automatic membership filters " +
      "are dropped, then cast stats, then string bounds are shortened, nested stats and whole " +
      "columns' stats dropped, sparing kept and time-like columns; 0 disables the budget. The " +
      "default holds a 17-column event table's stats untrimmed, cast stats and JSON places included.",
    min = 0)

  val RollupEvery = long(Prefix + "state.rollupEvery", 100L,
    "A full state rollup is written every this many state versions, so opening a shard replays " +
      "at most this many diffs.", min = 1)

  val RetentionMs = optionalLong(Prefix + "retentionMs",
    "How much update-time history (ms below the shard's upper) stays readable as of earlier times: " +
      "compaction first advances since to upper - retentionMs (at most upper - 1, the latest " +
      "complete time), then consolidates the history below it. Unset: since never moves.")

  val CompactFanIn = long(Prefix + "compact.fanIn", 8L,
    "Size-tiered compaction merges this many adjacent batches of one size tier (sizes within a " +
      "factor fanIn of each other) into one batch of the next tier.", min = 2)

  val CompactTargetBytes = long(Prefix + "compact.targetBytes", 128L * 1024 * 1024,
    "Size at which a batch is complete: compaction never rewrites a batch this large (except, once, " +
      "one written as many runs of parts under targetBytes / fanIn^2 each, into one run) and never " +
      "builds a larger one by packing.", min = 1)

  val CompactWindowMs = long(Prefix + "compact.windowMs", 86400000L,
    "Time-span limit of compaction: only batches whose update times lie in one aligned window of " +
      "this many ms (UTC days by default) are merged, so parts stay narrow in time. Once the " +
      "shard's upper passes a window, its leftover batches are packed up to targetBytes; small sealed " +
      "windows then merge into longer spans as they age (compact.mergeAged).", min = 1)

  val CompactMergeAged = bool(Prefix + "compact.mergeAged", true,
    "Merge small sealed windows into longer spans of update time as they age: an aligned span of " +
      "windowMs x fanIn^k (8 days, 64 days, ... at the defaults) whose fanIn sub-spans are each down to " +
      "at most one batch becomes one batch once the upper passes its end and its batches hold at most " +
      "targetBytes together, so a shard of many small days gets larger parts, each still one contiguous " +
      "range of time. false: every part stays within one window.")

  val ClusterPartBytes = long(Prefix + "cluster.partBytes", 32L * 1024 * 1024,
    "Size of the parts a clustering compaction cuts (CLUSTER BY): each time window's rows, sorted along " +
      "the curve of the clustering columns, are cut into parts of about this many bytes (estimated from " +
      "the input parts' bytes per row), so each part covers a narrow range of every clustering column. " +
      "Smaller parts prune more finely and cost more per part to plan and open.", min = 1)

  val ClusterCurve = choice(Prefix + "cluster.curve", "hilbert", Seq("hilbert", "zorder", "grid"),
    "How a clustering compaction lays a window's rows out: along a space-filling curve, hilbert " +
      "(neighbouring positions are neighbouring cells, so parts cover more compact ranges) or zorder (bit " +
      "interleaving), cut into parts of equal rows; or grid: nested quantile slices, the first clustering " +
      "column cut into about P^(1/d) slabs of a window's P parts, each slab by the next column, and so on, so " +
      "a thin filter on any one of d columns meets at most about P^(1-1/d) parts (the grid bound).")

  val ClusterWorkloadMs = long(Prefix + "cluster.workloadMs", 30L * 86400000,
    "How far back (ms) the workload evidence of a table clustered 'auto' reaches: the columns its queries' " +
      "filters constrained and the parts they read, which compaction chooses the clustering columns from. " +
      "Older evidence files are deleted.", min = 1)

  val AutoCompact = bool(Prefix + "compact.auto", false,
    "Compact a shard after every committed write (one round, at most compact.auto.maxBytes of " +
      "input, smallest groups first), so a write never pays for the whole history.")

  val AutoCompactMaxBytes = long(Prefix + "compact.auto.maxBytes", 128L * 1024 * 1024,
    "Most input bytes the automatic compaction after one write rewrites.", min = 1)

  val CompactGc = bool(Prefix + "compact.gc", false,
    "Run garbage collection of the shard after each compaction (manual or automatic).")

  val StatementMaxRebases = long(Prefix + "statement.maxRebases", 20L,
    "A DELETE, UPDATE, MERGE or overwrite whose shard moved on while it ran (appends, streaming " +
      "micro-batches, compactions, statements on other parts) commits after them without reading " +
      "again, as long as none conflicts with it (isolation level, docs/dml.md); it gives up with " +
      "ConcurrentShardUpdate once it lost the race for the next state version this many times more.",
    min = 0)

  val CommitUserMetadata = register(Entry[Option[String]](Prefix + "commit.userMetadata", None,
    "Text recorded with each batch this session's statements and writes commit (as Delta Lake's " +
      "commitInfo.userMetadata): who or what committed it, shown by the shard's history.",
    s => Option(s).filter(_.nonEmpty)))

  val GcKeepVersions = long(Prefix + "gc.keepVersions", 10L,
    "Garbage collection keeps the parts of the newest this many state versions (and of every " +
      "version younger than gc.graceMs), so readers that opened the shard earlier keep their files.",
    min = 1)

  val GcGraceMs = long(Prefix + "gc.graceMs", 86400000L,
    "Garbage collection deletes only files older than this (ms): a part no state version refers " +
      "to may belong to a write still running. Also keeps every state version that was the newest " +
      "less than this ago, and its parts: a reader or statement that runs for less never loses a part.",
    min = 0)

  val IcebergAsync = bool(Prefix + "iceberg.async", true,
    "Write the Iceberg metadata of a shard with the table property sparkpersist.iceberg in the background: " +
      "the statement returns right after its commit (the state's compare-and-set), and a driver thread per " +
      "shard writes the snapshot of every version committed since, requests made meanwhile coalescing into one " +
      "more run. Read at each commit. false: each commit writes its snapshot before the statement returns. " +
      "CALL persist.system.iceberg and ShardTable.syncIceberg() wait for the shard's pending writes either way.")

  val IcebergAsyncWaitMs = long(Prefix + "iceberg.async.waitMs", 120000L,
    "Longest wait (ms) for the background Iceberg writes still pending: the application's stop (SparkContext.stop, " +
      "or the JVM's exit, read from the application's configuration) waits for all of them, and " +
      "CALL persist.system.iceberg and garbage collection for those of their shard, before going on (the procedure " +
      "then writes what is missing itself; after a stop, the next commit or the procedure does).", min = 0)

  val RenameSchemes = names(Prefix + "commit.renameSchemes", "hdfs",
    "File system schemes (comma-separated) whose rename is atomic and refuses to overwrite, so state " +
      "versions commit by rename there. file: commits by hard link and stores with conditional create " +
      "(S3A) by If-None-Match; a store in none of these refuses commits.")
}

package sparkpersist.shard

import java.nio.charset.StandardCharsets
import java.util.Base64

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import org.apache.parquet.example.data.Group
import org.apache.parquet.example.data.simple.SimpleGroup
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.parquet.schema.Type.Repetition.{OPTIONAL, REQUIRED}

import sparkpersist.codec.{BinaryRows, Check, Json, JsonReader, ParquetBytes}
import sparkpersist.schema.ShardSchema
import sparkpersist.stats.{BinaryStatsCodec, EncodedStats, PartStats, StatsSegment, StatsVector}

/**
 * The body of a columnar rollup (format version [[ShardState.ColumnarRollupFormatVersion]]): the
 * full state at one version as a Parquet file, so opening a shard reads its parts column by
 * column and decodes a column's stats only when a filter reads them ([[EncodedStats]]).
 *
 * One row per part, in state order; a batch's fields are on its first row and a run's ordinal
 * on its first row, null on the rows that follow (which Parquet stores as definition levels):
 * {{{
 *   batch_id: string?, batch_lower, batch_upper, batch_committed_ms, batch_appends: long?,
 *   batch_epochs: string? (JSON [{queryId, epochId}]), batch_clustered_by: string? (column ids,
 *   comma-separated; format version 8 on), batch_commit: string? (JSON [[CommitInfo]]), run: int?,
 *   key: string?, rows, bytes, min_time, max_time: long?, retractions: boolean?,
 *   positions: string? (the part's [[PartMeta.positions]]; format version 9 on),
 *   rebased_from: long? (the part's [[PartMeta.rebasedFrom]]; format version 10 on),
 *   stats_rows, stats_bytes: long?, stats_trimmed: string? (column ids, comma-separated),
 *   s<id>: binary? for each shard column: that column's stats bytes
 * }}}
 * A row without a `key` stands for a run without parts (`run` >= 0) or a batch without runs
 * (`run` = -1). A part's `s<id>` holds the entry of [[BinaryStatsCodec.columnEntries]], written
 * under the state's schema; parts without stats have null `stats_rows`. Pages are plain
 * (neither dictionary-encoded nor compressed) and carry checksums, so damaged bytes fail the
 * read instead of making the reader allocate what a damaged size claims.
 *
 * The footer's key-value metadata holds the rest: `sparkpersist.state` is the JSON header (as a
 * JSON rollup's, with the state's name, shardId, since, upper and schema, but no batches), and
 * `sparkpersist.segments` the summaries ([[StatsSegment]]) of each segment of
 * `sparkpersist.segmentParts` rows ([[SegmentParts]] as written), in the binary stats encoding (base64; null for a segment without parts with stats).
 *
 * Opening reads the footer and the parts' metadata columns only (a projection): each `s<id>`
 * column is read when a filter first reads that column's stats, for all parts at once, or, when
 * a scan decided its segments first, for the parts of its kept segments only (pages hold at most
 * a segment's rows, and the column chunks' offset indexes locate them). A
 * segment's summary is written again as read when its parts are the same (the rollup's segments
 * before the appended batches), and summarized again otherwise.
 */
private[shard] object ColumnarRollup {

  /** Rows (parts) per segment summary, as written (readers use the size the footer records). */
  val SegmentParts = 1024

  private val StateKey = "sparkpersist.state"
  private val SegmentsKey = "sparkpersist.segments"
  private val SegmentPartsKey = "sparkpersist.segmentParts"
  /** Row groups of about this many bytes (a rollup of a million parts holds a few). */
  private val RowGroupBytes = 64L << 20

  /** Whether `bytes` are a columnar rollup (a Parquet file) rather than a JSON one. */
  def is(bytes: Array[Byte]): Boolean =
    bytes.length >= 4 && new String(bytes, 0, 4, StandardCharsets.US_ASCII) == "PAR1"

  /**
   * The rollup of `state`, summarized in segments of `segmentParts` parts, in pages of at most
   * `pageRows` rows (by default a segment's: a segment's stats are then read from a page or two).
   */
  def encode(state: ShardState, segmentParts: Int = SegmentParts, pageRows: Int = 0): Array[Byte] = {
    Check.arg(segmentParts >= 1, s"segments hold at least one part, got $segmentParts")
    val codec = BinaryStatsCodec(state.schema)
    val ids = state.schema.columns.map(_.id)
    val schema = messageType(ids)
    val rows = rowsOf(state)
    val segments = Json.mapper.createArrayNode()
    rows.grouped(segmentParts).foreach { segment =>
      val stats = segment.flatMap(_.part).flatMap(_.stats)
      if (stats.isEmpty) segments.addNull()
      else segments.add(Base64.getEncoder.encodeToString(codec.encode(summary(stats, state.schema, codec))))
    }
    val version = ShardState.versionFor(state.schema, ShardState.ColumnarRollupFormatVersion, state.batches)
    val header = StateCodec.header(state.seqNo, version).put("kind", "rollup")
      .put("name", state.name).put("shardId", state.shardId).put("since", state.since).put("upper", state.upper)
    header.set[JsonNode]("schema", StateCodec.schemaJson(state.schema))
    val metadata = Map(StateKey -> Json.mapper.writeValueAsString(header),
      SegmentsKey -> Json.mapper.writeValueAsString(segments), SegmentPartsKey -> segmentParts.toString)
    ParquetBytes.write(schema, metadata, RowGroupBytes, if (pageRows > 0) pageRows else segmentParts) { write =>
      rows.foreach(row => write(group(schema, row, codec)))
    }
  }

  /** The state in a columnar rollup's `bytes` (of `file`, which names version `seqNo`). */
  def decode(file: String, bytes: Array[Byte], seqNo: Long): ShardState =
    try read(file, bytes, seqNo)
    catch {
      case e @ (_: IllegalArgumentException | _: UnsupportedStateFormat) => throw e
      case NonFatal(e) => throw new IllegalArgumentException(s"damaged columnar rollup: $e", e)
    }

  private def read(file: String, bytes: Array[Byte], seqNo: Long): ShardState = {
    // The parts' metadata only: a column's stats are read when a filter first needs them.
    val reader = new ParquetBytes.Reader(bytes, Some(name => !isStatsColumn(name)))
    try {
      val header = Header.read(file, required(reader.metadata, StateKey), seqNo)
      val codec = BinaryStatsCodec(header.schema)
      val n = reader.rowCount
      // Every row holds at least a bit (a definition level): a larger count is damage.
      Check.arg(n <= bytes.length * 8L, s"a columnar rollup of ${bytes.length} bytes cannot hold $n rows")
      val present = reader.fileSchema.getFields.asScala.map(_.getName).toSet
      val columns = new Columns(n.toInt, present)
      reader.rowGroups(columns.read)
      val segmentParts = required(reader.metadata, SegmentPartsKey).toInt
      Check.arg(segmentParts >= 1, s"segments hold at least one part, got $segmentParts")
      val segments = segmentsOf(required(reader.metadata, SegmentsKey), codec, columns.partsWithStats(segmentParts))
      val ids = header.schema.columns.map(_.id).toArray
      // Kept for the stats loads, which then read the file without parsing its footer again.
      val rollup = Stats(bytes, reader.parsedFooter, n.toInt, present)
      val stats = new EncodedStats(codec, ids, n.toInt, i => statsVector(rollup, statsColumn(ids(i))),
        (i, ks) => statsSegments(rollup, statsColumn(ids(i)), segmentParts, ks), segmentParts,
        i => segments.lift(i / segmentParts).flatten)
      ShardState(header.name, header.shardId, ShardState.FormatVersion, header.schema, header.since, header.upper,
        seqNo, columns.batches(stats))
    } finally reader.close()
  }

  /** One row: a part of run `run` of batch `meta`, or a placeholder (see the class doc). */
  private final case class Row(meta: BatchMeta, startsBatch: Boolean, run: Int, startsRun: Boolean, part: Option[PartMeta])

  private def rowsOf(state: ShardState): IndexedSeq[Row] =
    state.batches.iterator.flatMap { b =>
      if (b.runs.isEmpty) Iterator(Row(b, startsBatch = true, -1, startsRun = true, None))
      else b.runs.iterator.zipWithIndex.flatMap { case (run, r) =>
        if (run.parts.isEmpty) Iterator(Row(b, r == 0, r, startsRun = true, None))
        else run.parts.iterator.zipWithIndex.map { case (p, i) => Row(b, r == 0 && i == 0, r, i == 0, Some(p)) }
      }
    }.toIndexedSeq

  /**
   * The summary of a segment of parts with these stats: carried forward from the rollup they were
   * read from when they are all of one of its segments (written segments do not change while
   * batches are appended), else summarized again.
   */
  private def summary(stats: Seq[PartStats], schema: ShardSchema, codec: BinaryStatsCodec): PartStats =
    StatsSegment.of(stats.head).filter(_.summarizes(stats, codec)).map(_.summary)
      .getOrElse(StatsSegment.summarize(stats, types(schema)))

  private def types(schema: ShardSchema) = schema.columns.iterator.map(c => c.id -> c.dataType).toMap

  private def statsColumn(id: Int) = s"s$id"

  private def isStatsColumn(name: String) = name.length > 1 && name.charAt(0) == 's' && name.drop(1).forall(_.isDigit)

  /**
   * The stats bytes of column `name` of each row of `rollup`, read on
   * their own (a projection of the file). A column the file lacks, or whose chunks are damaged,
   * holds no stats: its parts' stats of that column are absent, so readers assume anything.
   */
  private def statsVector(rollup: Stats, name: String): StatsVector =
    statsSegments(rollup, name, math.max(rollup.n, 1), Array(0)).head

  /**
   * What the stats loads of a rollup read: its `bytes`, their footer as the open parsed it, its
   * `n` rows and the names of its columns.
   */
  private final case class Stats(bytes: Array[Byte], footer: ParquetMetadata, n: Int, present: Set[String])

  /**
   * The stats bytes of column `name` of the parts of segments `ks` (ascending; segments of
   * `segmentParts` of the rollup's rows), one vector per segment, read from the pages holding them
   * only, into each segment's vector without an object per part ([[ParquetBytes.Reader.binaryRowsOf]]).
   * A segment whose bytes cannot be read (the column is missing, a page is damaged) holds no
   * stats, as a whole column's do ([[statsVector]]).
   */
  private def statsSegments(rollup: Stats, name: String, segmentParts: Int, ks: Array[Int]): Array[StatsVector] = {
    val n = rollup.n
    def rows(k: Int) = (k.toLong * segmentParts, math.min(n.toLong, (k + 1).toLong * segmentParts))
    def none(k: Int) = StatsVector.absent(k * segmentParts, (rows(k)._2 - rows(k)._1).toInt)
    if (!rollup.present(name)) ks.map(none)
    else try {
      val builders = new SegmentBuilders(ks, segmentParts, n)
      val reader = new ParquetBytes.Reader(rollup.bytes, Some(_ == name), Some(rollup.footer))
      try reader.binaryRowsOf(name, ks.toSeq.map(rows))(builders) finally reader.close()
      ks.map { k =>
        val v = builders.result(k)
        if (v.size == rows(k)._2 - rows(k)._1) v else none(k)
      }
    } catch { case NonFatal(_) => ks.map(none) }
  }

  /**
   * The stats bytes of the rows of segments `ks` (ascending) collected segment by segment, the
   * rows of other segments (on the same pages) passed over. By segment, from the first one read:
   * no boxed map lookup per row.
   */
  private final class SegmentBuilders(ks: Array[Int], segmentParts: Int, n: Int) extends BinaryRows {
    private val first = if (ks.isEmpty) 0 else ks.head
    private val builders = new Array[StatsVector.Builder](if (ks.isEmpty) 0 else ks.last - first + 1)
    ks.foreach { k =>
      val from = k.toLong * segmentParts
      builders(k - first) = new StatsVector.Builder(math.min(n.toLong - from, segmentParts.toLong).toInt, from.toInt)
    }

    private def of(row: Long): StatsVector.Builder = {
      val at = row / segmentParts - first
      if (at >= 0 && at < builders.length) builders(at.toInt) else null
    }

    def value(row: Long, bytes: Array[Byte], from: Int, length: Int): Unit = {
      val b = of(row)
      if (b != null) b.add(bytes, from, length)
    }

    def none(row: Long): Unit = {
      val b = of(row)
      if (b != null) b.addNone()
    }

    def result(k: Int): StatsVector = builders(k - first).result()
  }

  private def messageType(ids: Seq[Int]): MessageType = {
    val string = LogicalTypeAnnotation.stringType()
    val b = Types.buildMessage()
      .optional(BINARY).as(string).named("batch_id")
      .optional(INT64).named("batch_lower").optional(INT64).named("batch_upper")
      .optional(INT64).named("batch_committed_ms").optional(INT64).named("batch_appends")
      .optional(BINARY).as(string).named("batch_epochs").optional(BINARY).as(string).named("batch_clustered_by")
      .optional(BINARY).as(string).named("batch_commit")
      .optional(INT32).named("run")
      .optional(BINARY).as(string).named("key").optional(INT64).named("rows").optional(INT64).named("bytes")
      .optional(INT64).named("min_time").optional(INT64).named("max_time").optional(BOOLEAN).named("retractions")
      .optional(BINARY).as(string).named("positions").optional(INT64).named("rebased_from")
      .optional(INT64).named("stats_rows").optional(INT64).named("stats_bytes")
      .optional(BINARY).as(string).named("stats_trimmed")
    ids.foldLeft(b)((m, id) => m.optional(BINARY).named(statsColumn(id))).named("rollup")
  }

  private def group(schema: MessageType, row: Row, codec: BinaryStatsCodec): Group = {
    val g = new SimpleGroup(schema)
    val b = row.meta
    if (row.startsBatch) {
      g.add("batch_id", b.id)
      g.add("batch_lower", b.lower)
      g.add("batch_upper", b.upper)
      g.add("batch_committed_ms", b.committedAtMs)
      g.add("batch_appends", b.appends)
      if (b.epochs.nonEmpty) {
        val epochs = Json.mapper.createArrayNode()
        b.epochs.foreach(e => epochs.addObject().put("queryId", e.queryId).put("epochId", e.epochId))
        g.add("batch_epochs", Json.mapper.writeValueAsString(epochs))
      }
      if (b.clusteredBy.nonEmpty) g.add("batch_clustered_by", b.clusteredBy.mkString(","))
      b.commit.foreach(c => g.add("batch_commit", Json.mapper.writeValueAsString(StateCodec.commitJson(c))))
    }
    if (row.startsRun) g.add("run", row.run)
    row.part.foreach { p =>
      g.add("key", p.key)
      g.add("rows", p.rowCount)
      g.add("bytes", p.bytes)
      g.add("min_time", p.minTime)
      g.add("max_time", p.maxTime)
      g.add("retractions", p.hasRetractions)
      p.positions.foreach(g.add("positions", _))
      p.rebasedFrom.foreach(g.add("rebased_from", _))
      p.stats.foreach { s =>
        g.add("stats_rows", s.rowCount)
        g.add("stats_bytes", s.bytes)
        if (s.trimmed.nonEmpty) g.add("stats_trimmed", s.trimmed.toSeq.sorted.mkString(","))
        codec.columnEntries(s).foreach { case (id, bytes) =>
          g.add(statsColumn(id), org.apache.parquet.io.api.Binary.fromConstantByteArray(bytes))
        }
      }
    }
    g
  }

  private def required(metadata: Map[String, String], key: String): String =
    metadata.getOrElse(key, throw new IllegalArgumentException(s"a columnar rollup's footer lacks '$key'"))

  /**
   * Each segment's summary; None for a segment without one, or whose summary is damaged.
   * `partsWithStats(k)`: how many rows of segment k hold stats (what its summary was made of).
   */
  private def segmentsOf(json: String, codec: BinaryStatsCodec, partsWithStats: Int => Int): IndexedSeq[Option[StatsSegment]] = {
    val node = Json.parse(json)
    Check.arg(node.isArray, "a columnar rollup's segments must be an array")
    node.elements().asScala.zipWithIndex.map { case (s, k) =>
      if (!s.isTextual) None
      else scala.util.Try(new StatsSegment(codec.decode(Base64.getDecoder.decode(s.textValue())), partsWithStats(k), codec))
        .toOption
    }.toIndexedSeq
  }

  /** The header of a columnar rollup: the state without its batches. */
  private final case class Header(name: String, shardId: String, since: Long, upper: Long, schema: ShardSchema)

  private object Header {
    def read(file: String, json: String, seqNo: Long): Header =
      JsonReader.read(json.getBytes(StandardCharsets.UTF_8)) { r =>
        var kind, name, shardId: Option[String] = None
        var since, upper: Option[Long] = None
        var schema: Option[ShardSchema] = None
        StateCodec.readFile(file, r, seqNo) {
          case "kind" => kind = Some(r.string("kind"))
          case "name" => name = Some(r.string("name"))
          case "shardId" => shardId = Some(r.string("shardId"))
          case "since" => since = Some(r.long("since"))
          case "upper" => upper = Some(r.long("upper"))
          case "schema" => schema = Some(StateCodec.schemaFrom(r))
          case _ => r.skip()
        }
        Check.arg(kind.contains("rollup"), s"expected a rollup, found kind '${kind.getOrElse("")}'")
        Header(JsonReader.required(name, "name"), JsonReader.required(shardId, "shardId"),
          JsonReader.required(since, "since"), JsonReader.required(upper, "upper"),
          JsonReader.required(schema, "schema"))
      }
  }

  /** The columns of a rollup's `n` rows, read row group by row group, then assembled into batches. */
  /**
   * `present`: the names of the file's columns (a rollup older than clustering has no
   * `batch_clustered_by`, one older than positional retractions no `positions`).
   */
  private final class Columns(n: Int, present: Set[String]) {
    private val run = new Array[Int](n)
    private val startsRun = new Array[Boolean](n)
    private val batchId = new Array[String](n)
    private val batchLower, batchUpper, batchCommitted, batchAppends = new Array[Long](n)
    private val batchEpochs, batchClusteredBy, batchCommit = new Array[String](n)
    private val key = new Array[String](n)
    private val rows, bytes, minTime, maxTime, statsRows, statsBytes = new Array[Long](n)
    private val retractions, hasStats = new Array[Boolean](n)
    private val trimmed, positions = new Array[String](n)
    private val rebasedFrom = new Array[java.lang.Long](n)
    private var at = 0

    /** How many rows of each segment of `segmentParts` rows hold stats. */
    def partsWithStats(segmentParts: Int): Int => Int = {
      val counts = hasStats.grouped(segmentParts).map(_.count(identity)).toArray
      k => counts.lift(k).getOrElse(0)
    }

    def read(count: Long, column: String => ParquetBytes.Column): Unit = {
      val from = at
      val until = from + count.toInt
      Check.arg(until <= n, "a columnar rollup's row groups hold more rows than its footer counts")
      def each(name: String)(f: (ParquetBytes.Column, Int) => Unit): Unit = {
        val c = column(name)
        var i = from
        while (i < until) { f(c, i); i += 1 }
      }
      each("batch_id")((c, i) => if (c.present) batchId(i) = c.string() else c.skip())
      // The other fields of a batch: on its first row (where its id is), null on the others.
      def perBatch(name: String)(f: (ParquetBytes.Column, Int) => Unit): Unit =
        each(name)((c, i) => if (batchId(i) != null) f(c, i) else c.skip())
      perBatch("batch_lower")((c, i) => batchLower(i) = c.long())
      perBatch("batch_upper")((c, i) => batchUpper(i) = c.long())
      perBatch("batch_committed_ms")((c, i) => batchCommitted(i) = c.long())
      perBatch("batch_appends")((c, i) => batchAppends(i) = c.long())
      perBatch("batch_epochs")((c, i) => if (c.present) batchEpochs(i) = c.string() else c.skip())
      if (present("batch_clustered_by")) {
        perBatch("batch_clustered_by")((c, i) => if (c.present) batchClusteredBy(i) = c.string() else c.skip())
      }
      if (present("batch_commit")) perBatch("batch_commit")((c, i) => if (c.present) batchCommit(i) = c.string() else c.skip())
      each("run")((c, i) => if (c.present) { startsRun(i) = true; run(i) = c.int() } else c.skip())
      each("key")((c, i) => if (c.present) key(i) = c.string() else c.skip())
      def partLong(name: String, to: Array[Long]): Unit =
        each(name)((c, i) => if (key(i) != null) to(i) = c.long() else c.skip())
      partLong("rows", rows)
      partLong("bytes", bytes)
      partLong("min_time", minTime)
      partLong("max_time", maxTime)
      each("retractions")((c, i) => if (key(i) != null) retractions(i) = c.boolean() else c.skip())
      if (present("positions")) each("positions")((c, i) => if (c.present) positions(i) = c.string() else c.skip())
      if (present("rebased_from")) each("rebased_from")((c, i) => if (c.present) rebasedFrom(i) = c.long() else c.skip())
      each("stats_rows")((c, i) => if (c.present) { hasStats(i) = true; statsRows(i) = c.long() } else c.skip())
      each("stats_bytes")((c, i) => if (hasStats(i)) statsBytes(i) = c.long() else c.skip())
      each("stats_trimmed")((c, i) => if (c.present) trimmed(i) = c.string() else c.skip())
      at = until
    }

    def batches(stats: EncodedStats): IndexedSeq[BatchMeta] = {
      Check.arg(at == n, s"a columnar rollup's row groups hold $at rows, its footer counts $n")
      def startsBatch(i: Int) = batchId(i) != null
      val out = Vector.newBuilder[BatchMeta]
      var i = 0
      while (i < n) {
        Check.arg(startsBatch(i) && startsRun(i), s"row $i follows a batch's rows but does not start a batch and a run")
        val first = i
        val runs = Vector.newBuilder[RunMeta]
        if (run(i) == -1) {
          Check.arg(key(i) == null, s"row $i is a part of a batch without runs")
          i += 1
        } else {
          var r = 0
          while (i < n && (i == first || !startsBatch(i))) {
            Check.arg(startsRun(i) && run(i) == r, s"row $i holds run ${run(i)} of the batch at row $first, expected run $r")
            val parts = Vector.newBuilder[PartMeta]
            if (key(i) == null) i += 1
            else {
              parts += part(i, stats)
              i += 1
              while (i < n && !startsBatch(i) && !startsRun(i)) {
                Check.arg(key(i) != null, s"row $i is a part without a key inside a run")
                parts += part(i, stats)
                i += 1
              }
            }
            runs += RunMeta(parts.result())
            r += 1
          }
        }
        out += BatchMeta(batchId(first), batchLower(first), batchUpper(first), runs.result(), batchCommitted(first),
          batchAppends(first), epochs(batchEpochs(first)), clusteredBy(batchClusteredBy(first)), commit(batchCommit(first)))
      }
      out.result()
    }

    /** Part `i`; stats counting other rows than the part's are damaged and dropped (as JSON rollups do). */
    private def part(i: Int, stats: EncodedStats): PartMeta = {
      val partStats =
        if (!hasStats(i) || statsRows(i) != rows(i)) None
        else Some(stats.part(i, statsRows(i), statsBytes(i), trimmedIds(trimmed(i))))
      PartMeta(key(i), rows(i), bytes(i), minTime(i), maxTime(i), retractions(i), partStats, Option(positions(i)),
        Option(rebasedFrom(i)).map(_.longValue))
    }
  }

  private def clusteredBy(s: String): IndexedSeq[Int] =
    if (s == null || s.isEmpty) IndexedSeq.empty else s.split(',').iterator.map(_.toInt).toIndexedSeq

  private def trimmedIds(s: String): Set[Int] =
    if (s == null || s.isEmpty) Set.empty else s.split(',').iterator.map(_.toInt).toSet

  private def commit(json: String): Option[CommitInfo] =
    Option(json).map(j => JsonReader.read(j.getBytes(StandardCharsets.UTF_8))(StateCodec.commitFrom))

  private def epochs(json: String): IndexedSeq[StreamEpoch] =
    if (json == null) IndexedSeq.empty
    else JsonReader.read(json.getBytes(StandardCharsets.UTF_8)) { r =>
      r.readArray("epochs")(StateCodec.epochFrom(r))
    }
}

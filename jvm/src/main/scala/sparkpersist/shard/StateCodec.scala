package sparkpersist.shard

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types.{DataType, Metadata}

import sparkpersist.stats.StatsCodec

/**
 * The JSON form of state files, written field by field so the format stays stable and
 * reviewable. Every file carries `formatVersion`; a file from a newer format is refused with
 * [[UnsupportedStateFormat]] rather than half-understood.
 *
 * A version file holds `{"formatVersion", "seqNo", "kind": "create"|"append"|"since", ...}`;
 * a rollup holds `{"formatVersion", "seqNo", "kind": "rollup", "state": {...}}` with the full
 * state at that version.
 */
private[shard] object StateCodec {
  private val FormatVersion = ShardState.FormatVersion

  def encodeDiff(seqNo: Long, diff: StateDiff, schema: ShardSchema): Array[Byte] = {
    val node = header(seqNo)
    diff match {
      case CreateShard(name, shardId, s) =>
        node.put("kind", "create").put("name", name).put("shardId", shardId)
        node.set[JsonNode]("schema", schemaJson(s))
      case AppendBatch(batch) =>
        node.put("kind", "append").set[JsonNode]("batch", batchJson(batch, StatsCodec(schema)))
      case DowngradeSince(since) =>
        node.put("kind", "since").put("since", since)
    }
    Json.write(node)
  }

  /**
   * Decodes version `seqNo`. `schema` (the shard's, from the version before) types the stats of
   * an appended batch; it is None only for version 0, which must be the create.
   */
  def decodeDiff(file: String, bytes: Array[Byte], seqNo: Long, schema: Option[ShardSchema]): StateDiff = {
    val node = checkedHeader(file, bytes, seqNo)
    (Json.string(node, "kind"), schema) match {
      case ("create", None) =>
        CreateShard(Json.string(node, "name"), Json.string(node, "shardId"),
          schemaFrom(Json.field(node, "schema")))
      case ("append", Some(s)) => AppendBatch(batchFrom(Json.field(node, "batch"), StatsCodec(s)))
      case ("since", Some(_)) => DowngradeSince(Json.long(node, "since"))
      case (kind, _) =>
        throw new IllegalArgumentException(s"unexpected state change kind '$kind' at version $seqNo")
    }
  }

  def encodeRollup(state: ShardState): Array[Byte] = {
    val codec = StatsCodec(state.schema)
    val s = Json.obj()
      .put("name", state.name)
      .put("shardId", state.shardId)
      .put("since", state.since)
      .put("upper", state.upper)
    s.set[JsonNode]("schema", schemaJson(state.schema))
    val batches = s.putArray("batches")
    state.batches.foreach(b => batches.add(batchJson(b, codec)))
    val node = header(state.seqNo).put("kind", "rollup")
    node.set[JsonNode]("state", s)
    Json.write(node)
  }

  def decodeRollup(file: String, bytes: Array[Byte], seqNo: Long): ShardState = {
    val node = checkedHeader(file, bytes, seqNo)
    val kind = Json.string(node, "kind")
    Check.arg(kind == "rollup", s"expected a rollup, found kind '$kind'")
    val s = Json.field(node, "state")
    val schema = schemaFrom(Json.field(s, "schema"))
    val codec = StatsCodec(schema)
    ShardState(
      name = Json.string(s, "name"),
      shardId = Json.string(s, "shardId"),
      formatVersion = FormatVersion,
      schema = schema,
      since = Json.long(s, "since"),
      upper = Json.long(s, "upper"),
      seqNo = seqNo,
      batches = Json.array(s, "batches").map(batchFrom(_, codec)).toVector)
  }

  private def header(seqNo: Long): ObjectNode =
    Json.obj().put("formatVersion", FormatVersion).put("seqNo", seqNo)

  /** Parses a state file and checks its format version (first) and sequence number. */
  private def checkedHeader(file: String, bytes: Array[Byte], seqNo: Long): JsonNode = {
    val node = Json.parse(bytes)
    Check.arg(node != null && node.isObject, "not a JSON object")
    val version = Json.int(node, "formatVersion")
    if (version > FormatVersion) throw new UnsupportedStateFormat(file, version, FormatVersion)
    val recorded = Json.long(node, "seqNo")
    Check.arg(recorded == seqNo, s"the file records seqNo $recorded, but its name says $seqNo")
    node
  }

  private def schemaJson(schema: ShardSchema): ObjectNode = {
    val node = Json.obj()
    val cols = node.putArray("columns")
    schema.columns.foreach { c =>
      val col = cols.addObject().put("id", c.id).put("name", c.name).put("nullable", c.nullable)
      col.set[JsonNode]("type", Json.parse(c.dataType.json))
      col.set[JsonNode]("metadata", Json.parse(c.metadata.json))
    }
    val orderBy = node.putArray("orderBy")
    schema.orderBy.foreach(orderBy.add)
    node
  }

  private def schemaFrom(node: JsonNode): ShardSchema =
    ShardSchema(
      Json.array(node, "columns").map { c =>
        ColumnDef(
          id = Json.int(c, "id"),
          name = Json.string(c, "name"),
          dataType = DataType.fromJson(Json.field(c, "type").toString),
          nullable = Json.bool(c, "nullable"),
          metadata = Metadata.fromJson(Json.field(c, "metadata").toString))
      }.toVector,
      Json.array(node, "orderBy").map(_.textValue()).toVector)

  private def batchJson(batch: BatchMeta, codec: StatsCodec): ObjectNode = {
    val node = Json.obj()
      .put("id", batch.id)
      .put("lower", batch.lower)
      .put("upper", batch.upper)
      .put("committedAtMs", batch.committedAtMs)
    val runs = node.putArray("runs")
    batch.runs.foreach { run =>
      val parts = runs.addArray()
      run.parts.foreach(p => parts.add(partJson(p, codec)))
    }
    node
  }

  private def batchFrom(node: JsonNode, codec: StatsCodec): BatchMeta =
    BatchMeta(
      id = Json.string(node, "id"),
      lower = Json.long(node, "lower"),
      upper = Json.long(node, "upper"),
      runs = Json.array(node, "runs").map { run =>
        Check.arg(run.isArray, s"a run must be an array of parts, got $run")
        RunMeta(run.elements().asScala.map(partFrom(_, codec)).toVector)
      }.toVector,
      committedAtMs = Json.long(node, "committedAtMs"))

  private def partJson(part: PartMeta, codec: StatsCodec): ObjectNode = {
    val node = Json.obj()
      .put("key", part.key)
      .put("rows", part.rowCount)
      .put("bytes", part.bytes)
      .put("minTime", part.minTime)
      .put("maxTime", part.maxTime)
      .put("retractions", part.hasRetractions)
    part.stats.foreach(s => node.set[JsonNode]("stats", codec.toJson(s)))
    node
  }

  private def partFrom(node: JsonNode, codec: StatsCodec): PartMeta =
    PartMeta(
      key = Json.string(node, "key"),
      rowCount = Json.long(node, "rows"),
      bytes = Json.long(node, "bytes"),
      minTime = Json.long(node, "minTime"),
      maxTime = Json.long(node, "maxTime"),
      hasRetractions = Json.bool(node, "retractions"),
      // Unreadable stats cost pruning, never answers: the part is kept as "anything".
      stats = Option(node.get("stats")).flatMap(s => scala.util.Try(codec.fromJson(s)).toOption))
}

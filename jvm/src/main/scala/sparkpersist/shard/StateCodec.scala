package sparkpersist.shard

import scala.collection.immutable.SortedMap
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types.{DataType, Metadata}

import sparkpersist.codec.{Check, Json, JsonReader}
import sparkpersist.schema.{ColumnDef, ShardSchema}
import sparkpersist.stats.{BinaryStatsCodec, PartStats}
import sparkpersist.stats.legacy.JsonPartStatsReader

/**
 * The JSON form of state files, written field by field so the format stays stable and
 * reviewable. Every file carries `formatVersion`; a file from a newer format is refused with
 * [[UnsupportedStateFormat]] rather than half-understood.
 *
 * A version file holds `{"formatVersion", "seqNo", "kind": "create"|"append"|"since"|"compact"|"alter", ...}`;
 * a JSON rollup holds `{"formatVersion", "seqNo", "kind": "rollup", "state": {...}}` with the full
 * state at that version (rollups are now written columnar, [[ColumnarRollup]], and JSON ones still
 * read). A "compact" version is written at [[ShardState.CompactionFormatVersion]],
 * an "alter" (schema change) at [[ShardState.SchemaEvolutionFormatVersion]] (at
 * [[ShardState.NestedFieldIdsFormatVersion]] when it holds ids of fields inside structs or a batch,
 * as do a "create" and a rollup whose schema holds such ids; at [[ShardState.IndexColumnsFormatVersion]]
 * when the schema marks index columns; at [[ShardState.PositionalRetractionsFormatVersion]] when a
 * batch holds parts with positions, at [[ShardState.RebasedPartsFormatVersion]] when it holds a
 * rebased part, at [[ShardState.TablePropertiesFormatVersion]] when its schema holds table
 * properties), every other file at
 * [[ShardState.FormatVersion]]; this reader reads them all. A version file may also hold a `record`
 * of what committed it ([[VersionRecord]]): it changes nothing the state is read from, so it moves no
 * format version and older readers skip it. Files are decoded by pull-parsing (a rollup of 100k parts never becomes
 * one tree); `formatVersion` must be the first field, and a state's `schema` precedes its
 * `batches`, as the writer orders them.
 */
private[shard] object StateCodec {
  private val FormatVersion = ShardState.FormatVersion
  /** The newest format version this code reads. */
  private val ReadsUpTo = ShardState.TablePropertiesFormatVersion

  /**
   * Version `seqNo`, holding `diff` and, when given, the record of its commit ([[VersionRecord]],
   * the field `record`, which older readers skip: it changes nothing they read).
   */
  def encodeDiff(seqNo: Long, diff: StateDiff, schema: ShardSchema, record: Option[VersionRecord] = None): Array[Byte] = {
    val node = diff match {
      case CreateShard(_, _, s) => header(seqNo, ShardState.versionFor(s, FormatVersion))
      case AlterSchema(s, batch) if s.hasFieldIds || s.indexedIds.nonEmpty || s.clusters || s.properties.nonEmpty ||
          batch.isDefined =>
        header(seqNo, ShardState.versionFor(s, ShardState.NestedFieldIdsFormatVersion, batch))
      case ReplaceBatches(replacements) =>
        header(seqNo, ShardState.versionFor(schema, ShardState.CompactionFormatVersion, replacements.map(_.batch)))
      case _: AlterSchema => header(seqNo, ShardState.SchemaEvolutionFormatVersion)
      case AppendBatch(batch) => header(seqNo, ShardState.versionOfBatches(FormatVersion, Seq(batch)))
      case _ => header(seqNo)
    }
    diff match {
      case CreateShard(name, shardId, s) =>
        node.put("kind", "create").put("name", name).put("shardId", shardId)
        node.set[JsonNode]("schema", schemaJson(s))
      case AppendBatch(batch) =>
        node.put("kind", "append").set[JsonNode]("batch", batchJson(batch, BinaryStatsCodec(schema)))
      case DowngradeSince(since) =>
        node.put("kind", "since").put("since", since)
      case AlterSchema(s, batch) =>
        node.put("kind", "alter").set[JsonNode]("schema", schemaJson(s))
        batch.foreach(b => node.set[JsonNode]("batch", batchJson(b, BinaryStatsCodec(s))))
      case ReplaceBatches(replacements) =>
        val codec = BinaryStatsCodec(schema)
        val array = node.put("kind", "compact").putArray("replacements")
        replacements.foreach { r =>
          val entry = array.addObject()
          val replaced = entry.putArray("replaced")
          r.replaced.foreach(replaced.add)
          entry.set[JsonNode]("batch", batchJson(r.batch, codec))
        }
    }
    record.foreach(r => node.set[JsonNode]("record", recordJson(r)))
    Json.write(node)
  }

  /**
   * Decodes version `seqNo`. `schema` (the shard's, from the version before) types the stats of
   * an appended batch; it is None only for version 0, which must be the create.
   */
  def decodeDiff(file: String, bytes: Array[Byte], seqNo: Long, schema: Option[ShardSchema]): StateDiff =
    decodeVersion(file, bytes, seqNo, schema, withStats = true)._1

  /**
   * Version `seqNo`'s change and record. `schema` is None only for version 0, which must be the
   * create; without `withStats`, parts' statistics are skipped (their stats None) and `schema` is
   * not needed for version 0 to be told from the others.
   */
  private def decodeVersion(file: String, bytes: Array[Byte], seqNo: Long, schema: Option[ShardSchema],
      withStats: Boolean): (StateDiff, Option[VersionRecord]) =
    JsonReader.read(bytes) { r =>
      var kind, name, shardId: Option[String] = None
      var created: Option[ShardSchema] = None
      var batch: Option[BatchMeta] = None
      var since: Option[Long] = None
      var replacements: Option[Vector[BatchReplacement]] = None
      var record: Option[VersionRecord] = None
      def stats(of: Option[ShardSchema]) =
        if (!withStats) StatsReaders.Skipped
        else new StatsReaders(of.getOrElse(throw new IllegalArgumentException("version 0 must create the shard")))
      readFile(file, r, seqNo) {
        case "kind" => kind = Some(r.string("kind"))
        case "name" => name = Some(r.string("name"))
        case "shardId" => shardId = Some(r.string("shardId"))
        case "schema" => created = Some(schemaFrom(r))
        // typed by the schema of an "alter" (which precedes its batch), else the shard's
        case "batch" => batch = Some(batchFrom(r, stats(created.orElse(schema))))
        case "since" => since = Some(r.long("since"))
        case "replacements" =>
          val readers = stats(schema)
          replacements = Some(r.readArray("replacements")(replacementFrom(r, readers)))
        case "record" => record = Some(recordFrom(r))
        case _ => r.skip()
      }
      val first = if (withStats) schema.isEmpty else seqNo == 0
      val change = (JsonReader.required(kind, "kind"), first) match {
        case ("create", true) => CreateShard(JsonReader.required(name, "name"),
          JsonReader.required(shardId, "shardId"), JsonReader.required(created, "schema"))
        case ("append", false) => AppendBatch(JsonReader.required(batch, "batch"))
        case ("since", false) => DowngradeSince(JsonReader.required(since, "since"))
        case ("compact", false) => ReplaceBatches(JsonReader.required(replacements, "replacements"))
        case ("alter", false) => AlterSchema(JsonReader.required(created, "schema"), batch)
        case (k, _) => throw new IllegalArgumentException(s"unexpected state change kind '$k' at version $seqNo")
      }
      (change, record)
    }

  /** A rollup of `state`: columnar ([[ColumnarRollup]]) since format version 5. */
  def encodeRollup(state: ShardState): Array[Byte] = ColumnarRollup.encode(state)

  /** A JSON rollup of `state`, as releases before columnar rollups wrote them (still read). */
  def encodeJsonRollup(state: ShardState): Array[Byte] = {
    val codec = BinaryStatsCodec(state.schema)
    val s = Json.obj()
      .put("name", state.name)
      .put("shardId", state.shardId)
      .put("since", state.since)
      .put("upper", state.upper)
    s.set[JsonNode]("schema", schemaJson(state.schema))
    val batches = s.putArray("batches")
    state.batches.foreach(b => batches.add(batchJson(b, codec)))
    val version = ShardState.versionFor(state.schema, FormatVersion, state.batches)
    val node = header(state.seqNo, version).put("kind", "rollup")
    node.set[JsonNode]("state", s)
    Json.write(node)
  }

  /** The state in a rollup, columnar or JSON. */
  def decodeRollup(file: String, bytes: Array[Byte], seqNo: Long): ShardState =
    if (ColumnarRollup.is(bytes)) ColumnarRollup.decode(file, bytes, seqNo)
    else JsonReader.read(bytes) { r =>
      var kind: Option[String] = None
      var state: Option[ShardState] = None
      readFile(file, r, seqNo) {
        case "kind" => kind = Some(r.string("kind"))
        case "state" => state = Some(stateFrom(r, seqNo))
        case _ => r.skip()
      }
      Check.arg(kind.contains("rollup"), s"expected a rollup, found kind '${kind.getOrElse("")}'")
      JsonReader.required(state, "state")
    }

  private[shard] def header(seqNo: Long, version: Int = FormatVersion): ObjectNode =
    Json.obj().put("formatVersion", version).put("seqNo", seqNo)

  /**
   * Reads a state file's object: checks its format version (the first field, before anything
   * else is interpreted) and its sequence number, and hands every other field to `field`.
   */
  private[shard] def readFile(file: String, r: JsonReader, seqNo: Long)(field: String => Unit): Unit = {
    var version: Option[Int] = None
    var recorded: Option[Long] = None
    r.readObject("a state file") { name =>
      if (version.isEmpty) {
        Check.arg(name == "formatVersion", s"the first field must be formatVersion, found '$name'")
        version = Some(r.int("formatVersion"))
        if (version.get > ReadsUpTo) throw new UnsupportedStateFormat(file, version.get, ReadsUpTo)
      } else if (name == "seqNo") {
        recorded = Some(r.long("seqNo"))
      } else {
        field(name)
      }
    }
    val s = JsonReader.required(recorded, "seqNo")
    Check.arg(s == seqNo, s"the file records seqNo $s, but its name says $seqNo")
  }

  private def stateFrom(r: JsonReader, seqNo: Long): ShardState = {
    var name, shardId: Option[String] = None
    var since, upper: Option[Long] = None
    var schema: Option[ShardSchema] = None
    var batches: Option[Vector[BatchMeta]] = None
    r.readObject("state") {
      case "name" => name = Some(r.string("name"))
      case "shardId" => shardId = Some(r.string("shardId"))
      case "since" => since = Some(r.long("since"))
      case "upper" => upper = Some(r.long("upper"))
      case "schema" => schema = Some(schemaFrom(r))
      case "batches" =>
        val codec = new StatsReaders(schema.getOrElse(throw new IllegalArgumentException("schema must precede batches")))
        batches = Some(r.readArray("batches")(batchFrom(r, codec)))
      case _ => r.skip()
    }
    ShardState(
      name = JsonReader.required(name, "name"),
      shardId = JsonReader.required(shardId, "shardId"),
      formatVersion = FormatVersion,
      schema = JsonReader.required(schema, "schema"),
      since = JsonReader.required(since, "since"),
      upper = JsonReader.required(upper, "upper"),
      seqNo = seqNo,
      batches = JsonReader.required(batches, "batches"))
  }

  private[shard] def schemaJson(schema: ShardSchema): ObjectNode = {
    val node = Json.obj()
    val cols = node.putArray("columns")
    schema.columns.foreach { c =>
      val col = cols.addObject().put("id", c.id).put("name", c.name).put("nullable", c.nullable)
      col.set[JsonNode]("type", Json.parse(c.dataType.json))
      col.set[JsonNode]("metadata", Json.parse(c.metadata.json))
      // Written only for columns with ids inside their structs: the file then has a newer format version.
      if (c.fieldIds.nonEmpty) {
        val ids = col.putArray("fieldIds")
        c.fieldIds.toSeq.sortBy(_._2).foreach { case (path, id) =>
          val entry = ids.addObject().put("id", id)
          val names = entry.putArray("path")
          path.foreach(names.add)
        }
      }
      if (c.indexed) col.put("indexed", true) // the file then has format version 7
      if (c.clustered) col.put("clustered", true) // the file then has format version 8
    }
    val orderBy = node.putArray("orderBy")
    schema.orderBy.foreach(orderBy.add)
    // Written only once a column was dropped above the others: older states never hold it.
    if (schema.recordsDroppedId) node.put("maxColumnId", schema.maxColumnId)
    if (schema.clusterAuto) node.put("clusterAuto", true) // the file then has format version 8
    if (schema.properties.nonEmpty) { // the file then has format version 11
      val properties = node.putObject("properties")
      schema.properties.toSeq.sorted.foreach { case (k, v) => properties.put(k, v) }
    }
    node
  }

  private[shard] def schemaFrom(r: JsonReader): ShardSchema = {
    var columns: Option[Vector[ColumnDef]] = None
    var orderBy: Option[Vector[String]] = None
    var maxColumnId = 0
    var clusterAuto = false
    val properties = Map.newBuilder[String, String]
    r.readObject("schema") {
      case "columns" => columns = Some(r.readArray("columns")(columnFrom(r)))
      case "orderBy" => orderBy = Some(r.readArray("orderBy")(r.string("an orderBy column")))
      case "maxColumnId" => maxColumnId = r.int("maxColumnId")
      case "clusterAuto" => clusterAuto = r.bool("clusterAuto")
      case "properties" => r.readObject("properties")(name => properties += name -> r.string(name))
      case _ => r.skip()
    }
    ShardSchema(JsonReader.required(columns, "columns"), JsonReader.required(orderBy, "orderBy"), maxColumnId, clusterAuto,
      properties.result())
  }

  private def columnFrom(r: JsonReader): ColumnDef = {
    var id: Option[Int] = None
    var name: Option[String] = None
    var nullable: Option[Boolean] = None
    var dataType: Option[DataType] = None
    var metadata: Option[Metadata] = None
    var fieldIds = Map.empty[Seq[String], Int]
    var indexed = false
    var clustered = false
    r.readObject("column") {
      case "id" => id = Some(r.int("id"))
      case "name" => name = Some(r.string("name"))
      case "nullable" => nullable = Some(r.bool("nullable"))
      case "type" => dataType = Some(sparkJson("type", DataType.fromJson(r.tree().toString)))
      case "metadata" => metadata = Some(sparkJson("metadata", Metadata.fromJson(r.tree().toString)))
      case "fieldIds" => fieldIds = r.readArray("fieldIds")(fieldIdFrom(r)).toMap
      case "indexed" => indexed = r.bool("indexed")
      case "clustered" => clustered = r.bool("clustered")
      case _ => r.skip()
    }
    ColumnDef(JsonReader.required(id, "id"), JsonReader.required(name, "name"),
      JsonReader.required(dataType, "type"), JsonReader.required(nullable, "nullable"),
      JsonReader.required(metadata, "metadata"), fieldIds, indexed, clustered)
  }

  /** One id of a field inside a column's structs: its path of names from the column, and the id. */
  private def fieldIdFrom(r: JsonReader): (Seq[String], Int) = {
    var id: Option[Int] = None
    var path: Option[Vector[String]] = None
    r.readObject("field id") {
      case "id" => id = Some(r.int("id"))
      case "path" => path = Some(r.readArray("path")(r.string("a field name")))
      case _ => r.skip()
    }
    JsonReader.required(path, "path") -> JsonReader.required(id, "id")
  }

  /** A column's type or metadata parsed by Spark, whose parser fails with any exception on damage. */
  private def sparkJson[T](what: String, parse: => T): T =
    try parse
    catch {
      case NonFatal(e) => throw new IllegalArgumentException(s"a column's $what is not Spark's JSON form: $e", e)
    }

  private def batchJson(batch: BatchMeta, codec: BinaryStatsCodec): ObjectNode = {
    val node = Json.obj()
      .put("id", batch.id)
      .put("lower", batch.lower)
      .put("upper", batch.upper)
      .put("committedAtMs", batch.committedAtMs)
    // Written only for compacted batches, so an append's JSON is what older releases wrote.
    if (batch.appends != 1L) node.put("appends", batch.appends)
    // Written only for batches of streaming writes; older readers skip the field.
    if (batch.epochs.nonEmpty) {
      val epochs = node.putArray("epochs")
      batch.epochs.foreach(e => epochs.addObject().put("queryId", e.queryId).put("epochId", e.epochId))
    }
    // Written only for batches a clustering compaction wrote: the file then has format version 8.
    if (batch.clusteredBy.nonEmpty) {
      val ids = node.putArray("clusteredBy")
      batch.clusteredBy.foreach(ids.add)
    }
    // Written only for batches whose writer said what wrote them; older readers skip the field.
    batch.commit.foreach(c => node.set[JsonNode]("commit", commitJson(c)))
    val runs = node.putArray("runs")
    batch.runs.foreach { run =>
      val parts = runs.addArray()
      run.parts.foreach(p => parts.add(partJson(p, codec)))
    }
    node
  }

  private def batchFrom(r: JsonReader, codec: StatsReaders): BatchMeta = {
    var id: Option[String] = None
    var lower, upper, committedAtMs: Option[Long] = None
    var appends = 1L
    var epochs: Vector[StreamEpoch] = Vector.empty
    var clusteredBy: Vector[Int] = Vector.empty
    var commit: Option[CommitInfo] = None
    var runs: Option[Vector[RunMeta]] = None
    r.readObject("batch") {
      case "id" => id = Some(r.string("id"))
      case "lower" => lower = Some(r.long("lower"))
      case "upper" => upper = Some(r.long("upper"))
      case "committedAtMs" => committedAtMs = Some(r.long("committedAtMs"))
      case "appends" => appends = r.long("appends")
      case "epochs" => epochs = r.readArray("epochs")(epochFrom(r))
      case "clusteredBy" => clusteredBy = r.readArray("clusteredBy")(r.int("a clustering column id"))
      case "commit" => commit = Some(commitFrom(r))
      case "runs" => runs = Some(r.readArray("runs")(RunMeta(r.readArray("run")(partFrom(r, codec)))))
      case _ => r.skip()
    }
    BatchMeta(JsonReader.required(id, "id"), JsonReader.required(lower, "lower"),
      JsonReader.required(upper, "upper"), JsonReader.required(runs, "runs"),
      JsonReader.required(committedAtMs, "committedAtMs"), appends, epochs, clusteredBy, commit)
  }

  private[shard] def commitJson(commit: CommitInfo): ObjectNode = {
    val node = Json.obj().put("operation", commit.operation)
    commit.readUpper.foreach(node.put("readUpper", _))
    commit.readVersion.foreach(node.put("readVersion", _)) // older readers skip it
    commit.userMetadata.foreach(node.put("userMetadata", _))
    // Written only when the writer gave them; older readers skip the fields.
    if (commit.parameters.nonEmpty) stringsJson(node.putObject("parameters"), commit.parameters)
    if (commit.metrics.nonEmpty) longsJson(node.putObject("metrics"), commit.metrics)
    node
  }

  private[shard] def commitFrom(r: JsonReader): CommitInfo = {
    var operation: Option[String] = None
    var readUpper, readVersion: Option[Long] = None
    var userMetadata: Option[String] = None
    var parameters = Map.empty[String, String]
    var metrics = Map.empty[String, Long]
    r.readObject("commit") {
      case "operation" => operation = Some(r.string("operation"))
      case "readUpper" => readUpper = Some(r.long("readUpper"))
      case "readVersion" => readVersion = Some(r.long("readVersion"))
      case "userMetadata" => userMetadata = Some(r.string("userMetadata"))
      case "parameters" => parameters = stringsFrom(r, "parameters")
      case "metrics" => metrics = longsFrom(r, "metrics")
      case _ => r.skip()
    }
    CommitInfo(JsonReader.required(operation, "operation"), readUpper, userMetadata, parameters, metrics, readVersion)
  }

  /**
   * The record of the version in a version file ([[VersionRecord]], the field `record`), or, in a
   * file written before records came, what its change says ([[VersionRecord.derived]]). Parts'
   * statistics are skipped, not decoded: the history of thousands of versions reads only this.
   */
  def decodeRecord(file: String, bytes: Array[Byte], seqNo: Long): VersionRecord =
    decodeVersion(file, bytes, seqNo, None, withStats = false) match {
      case (_, Some(record)) => record
      case (change, None) => VersionRecord.derived(change)
    }

  private def recordJson(record: VersionRecord): ObjectNode = {
    val node = Json.obj().put("operation", record.operation)
    stringsJson(node.putObject("parameters"), record.parameters)
    longsJson(node.putObject("metrics"), record.metrics)
    record.timestampMs.foreach(node.put("timestampMs", _))
    record.userName.foreach(node.put("userName", _))
    record.appId.foreach(node.put("appId", _))
    record.engineInfo.foreach(node.put("engineInfo", _))
    record.userMetadata.foreach(node.put("userMetadata", _))
    record.readUpper.foreach(node.put("readUpper", _))
    record.readVersion.foreach(node.put("readVersion", _))
    node
  }

  private def recordFrom(r: JsonReader): VersionRecord = {
    var operation, userName, appId, engineInfo, userMetadata: Option[String] = None
    var timestampMs, readUpper, readVersion: Option[Long] = None
    var parameters = Map.empty[String, String]
    var metrics = Map.empty[String, Long]
    r.readObject("record") {
      case "operation" => operation = Some(r.string("operation"))
      case "parameters" => parameters = stringsFrom(r, "parameters")
      case "metrics" => metrics = longsFrom(r, "metrics")
      case "timestampMs" => timestampMs = Some(r.long("timestampMs"))
      case "userName" => userName = Some(r.string("userName"))
      case "appId" => appId = Some(r.string("appId"))
      case "engineInfo" => engineInfo = Some(r.string("engineInfo"))
      case "userMetadata" => userMetadata = Some(r.string("userMetadata"))
      case "readUpper" => readUpper = Some(r.long("readUpper"))
      case "readVersion" => readVersion = Some(r.long("readVersion"))
      case _ => r.skip()
    }
    VersionRecord(JsonReader.required(operation, "operation"), SortedMap.from(parameters), SortedMap.from(metrics),
      timestampMs, userName, appId, engineInfo, userMetadata, readUpper, readVersion)
  }

  private def stringsJson(node: ObjectNode, map: Map[String, String]): Unit =
    map.toSeq.sorted.foreach { case (k, v) => node.put(k, v) }

  private def longsJson(node: ObjectNode, map: Map[String, Long]): Unit =
    map.toSeq.sorted.foreach { case (k, v) => node.put(k, v) }

  private def stringsFrom(r: JsonReader, what: String): Map[String, String] = {
    val b = Map.newBuilder[String, String]
    r.readObject(what)(name => b += name -> r.string(name))
    b.result()
  }

  private def longsFrom(r: JsonReader, what: String): Map[String, Long] = {
    val b = Map.newBuilder[String, Long]
    r.readObject(what)(name => b += name -> r.long(name))
    b.result()
  }

  private[shard] def epochFrom(r: JsonReader): StreamEpoch = {
    var queryId: Option[String] = None
    var epochId: Option[Long] = None
    r.readObject("epoch") {
      case "queryId" => queryId = Some(r.string("queryId"))
      case "epochId" => epochId = Some(r.long("epochId"))
      case _ => r.skip()
    }
    StreamEpoch(JsonReader.required(queryId, "queryId"), JsonReader.required(epochId, "epochId"))
  }

  private def replacementFrom(r: JsonReader, codec: StatsReaders): BatchReplacement = {
    var replaced: Option[Vector[String]] = None
    var batch: Option[BatchMeta] = None
    r.readObject("replacement") {
      case "replaced" => replaced = Some(r.readArray("replaced")(r.string("a replaced batch id")))
      case "batch" => batch = Some(batchFrom(r, codec))
      case _ => r.skip()
    }
    BatchReplacement(JsonReader.required(replaced, "replaced"), JsonReader.required(batch, "batch"))
  }

  private def partJson(part: PartMeta, codec: BinaryStatsCodec): ObjectNode = {
    val node = Json.obj()
      .put("key", part.key)
      .put("rows", part.rowCount)
      .put("bytes", part.bytes)
      .put("minTime", part.minTime)
      .put("maxTime", part.maxTime)
      .put("retractions", part.hasRetractions)
    // Written only for parts of a row-level operation's run: the file then has format version 9.
    part.positions.foreach(node.put("positions", _))
    // Written only for rebased parts: the file then has format version 10.
    part.rebasedFrom.foreach(node.put("rebasedFrom", _))
    part.stats.foreach(s => node.put("binStats", codec.encode(s)))
    node
  }

  private def partFrom(r: JsonReader, codec: StatsReaders): PartMeta = {
    var key: Option[String] = None
    var rows, bytes, minTime, maxTime: Option[Long] = None
    var retractions: Option[Boolean] = None
    var stats: Option[PartStats] = None
    var positions: Option[String] = None
    var rebasedFrom: Option[Long] = None
    r.readObject("part") {
      case "key" => key = Some(r.string("key"))
      case "rows" => rows = Some(r.long("rows"))
      case "bytes" => bytes = Some(r.long("bytes"))
      case "minTime" => minTime = Some(r.long("minTime"))
      case "maxTime" => maxTime = Some(r.long("maxTime"))
      case "retractions" => retractions = Some(r.bool("retractions"))
      case "positions" => positions = Some(r.string("positions"))
      case "rebasedFrom" => rebasedFrom = Some(r.long("rebasedFrom"))
      case "stats" | "binStats" if codec.skips => r.skip()
      // Unreadable stats cost pruning, never answers: the part is kept as "anything".
      case "stats" => stats = r.recovering(codec.legacy.read(r))
      case "binStats" => stats = r.recovering(codec.binary.decode(r.binary("binStats")))
      case _ => r.skip()
    }
    val rowCount = JsonReader.required(rows, "rows")
    // So do stats counting other rows than the part's: damaged, they would misjudge its nulls.
    PartMeta(JsonReader.required(key, "key"), rowCount,
      JsonReader.required(bytes, "bytes"), JsonReader.required(minTime, "minTime"),
      JsonReader.required(maxTime, "maxTime"), JsonReader.required(retractions, "retractions"),
      stats.filter(_.rowCount == rowCount), positions, rebasedFrom)
  }

  /**
   * The readers of the parts' stats of one schema, as state files hold them: `binStats`, the
   * binary encoding written since it came, or `stats`, the legacy JSON of older releases (read-only).
   * Each is built when a part first needs it.
   */
  private class StatsReaders(schema: ShardSchema) {
    lazy val binary: BinaryStatsCodec = BinaryStatsCodec(schema)
    lazy val legacy: JsonPartStatsReader = JsonPartStatsReader(schema)
    /** Whether parts' stats are skipped, not read. */
    def skips: Boolean = false
  }

  private object StatsReaders {
    /** Readers that read no stats: the parts' stats are skipped. */
    object Skipped extends StatsReaders(ShardSchema(Vector.empty, Nil)) {
      override def skips: Boolean = true
    }
  }
}

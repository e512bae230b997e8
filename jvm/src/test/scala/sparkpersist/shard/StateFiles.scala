package sparkpersist.shard

import scala.util.Random

import sparkpersist.schema.ShardSchema

/**
 * Real state files and their decoding, for tests outside `shard` (the codec is private to it):
 * the create, appends, a compaction and a rollup of a shard of [[ShardFixtures.eventSchema]].
 */
object StateFiles {

  /** A state file: its name, bytes, the version it is, and the schema of the version before (None for 0). */
  final case class Encoded(name: String, bytes: Array[Byte], seqNo: Long, schema: Option[ShardSchema]) {
    def isRollup: Boolean = name.startsWith("rollup")
  }

  /** Version 0, three appends, a compaction of two of them, and the rollup after each, framed as written. */
  def encodings(rnd: Random): Seq[Encoded] = {
    val schema = ShardFixtures.eventSchema
    val create = CreateShard("events", "0d5c6a8e-0000-4000-8000-000000000001", schema)
    val batches = (0 until 3).map(i => ShardFixtures.eventBatch(s"b$i", i * 1000L, (i + 1) * 1000L, 1 + rnd.nextInt(3), rnd))
    val merged = ShardFixtures.eventBatch("m0", 0L, 2000L, 2, rnd).copy(appends = 2)
    val changes: Seq[StateChange] = batches.map(AppendBatch) :+
      ReplaceBatches(Seq(BatchReplacement(Vector("b0", "b1"), merged))) :+ DowngradeSince(500L)
    val states = changes.scanLeft(create.state)((s, c) => c.applyTo(s))
    val diffs = changes.zip(states).map { case (c, before) =>
      Encoded(FsStateLog.versionName(before.seqNo + 1), StateFrame.seal(StateCodec.encodeDiff(before.seqNo + 1, c, schema)),
        before.seqNo + 1, Some(before.schema))
    }
    Encoded(FsStateLog.versionName(0), StateFrame.seal(StateCodec.encodeDiff(0, create, schema)), 0, None) +:
      (diffs ++ states.tail.map(s =>
        Encoded(f"rollup-${s.seqNo}%020d.json", StateFrame.seal(StateCodec.encodeRollup(s)), s.seqNo, None)))
  }

  /** What the state file `file` holds, read from `bytes` as the log reads it: a rollup's state or a version's change. */
  def decode(file: Encoded, bytes: Array[Byte]): Any =
    if (file.isRollup) StateCodec.decodeRollup(file.name, StateFrame.open(bytes), file.seqNo)
    else StateCodec.decodeDiff(file.name, StateFrame.open(bytes), file.seqNo, file.schema)

  /** The parts of a decoded state file (a rollup's, or the batches a version adds). */
  def parts(decoded: Any): Seq[PartMeta] = decoded match {
    case s: ShardState => s.batches.flatMap(_.parts.toSeq)
    case AppendBatch(b) => b.parts.toSeq
    case ReplaceBatches(rs) => rs.flatMap(_.batch.parts.toSeq)
    case _ => Nil
  }
}

/** Rollups as releases before columnar rollups wrote them, for benchmarks that compare both in one run. */
object JsonRollups {

  /**
   * Rewrites the newest rollup in `stateDir` (the one an open reads) as the JSON rollup of the
   * same state; older rollups stay as they are.
   */
  def rewrite(stateDir: java.io.File): Unit =
    stateDir.listFiles().filter(_.getName.startsWith("rollup-")).maxByOption(_.getName).foreach { f =>
      val seqNo = f.getName.stripPrefix("rollup-").stripSuffix(".json").toLong
      val state = StateCodec.decodeRollup(f.toString, StateFrame.open(java.nio.file.Files.readAllBytes(f.toPath)), seqNo)
      java.nio.file.Files.write(f.toPath, StateFrame.seal(StateCodec.encodeJsonRollup(state)))
      // The local file system's checksum of the old content would fail the read.
      new java.io.File(stateDir, s".${f.getName}.crc").delete()
    }
}

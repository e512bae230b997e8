package sparkpersist.shard

import java.io.FileNotFoundException
import java.nio.file.NoSuchFileException

import scala.annotation.tailrec
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.slf4j.LoggerFactory

import sparkpersist.PersistConf
import sparkpersist.codec.Check
import sparkpersist.schema.ShardSchema

/**
 * The [[StateLog]] of one shard as files in `stateDir` on any Hadoop FileSystem:
 *
 *  - `<seqNo>.json` (20 digits): version `seqNo`, one [[StateDiff]], written put-if-absent
 *    ([[PutIfAbsent]]) — writing version n+1 is the compare-and-set;
 *  - `rollup-<seqNo>.json`: the full state at `seqNo`, written by the committer of every
 *    `rollupEvery`-th version (and by a reader that had to replay more diffs than that), so
 *    opening a shard reads one rollup plus fewer than `rollupEvery` diffs.
 *
 * Each file is framed with its checksum ([[StateFrame]]). A damaged rollup is passed over for
 * the rollup before it and the versions since, while they exist. Any other file (a crashed
 * writer's temp file) is ignored. The newest state is cached; later
 * calls read only the versions after it. Safe for concurrent use by threads of one process
 * and by any number of instances in any number of processes.
 *
 * Garbage collection ([[truncateBefore]]) deletes old versions, oldest first, but never version
 * 0 nor the newest rollup. So when the version after the cached one is missing, the cache is
 * current unless the cached version itself is gone too: then the log reloads from the newest
 * rollup instead of taking a truncated history for the newest state (and then committing over
 * a deleted version number).
 */
final class FsStateLog(
    val shard: String,
    val stateDir: Path,
    hadoopConf: Configuration,
    rollupEvery: Long = PersistConf.RollupEvery.default) extends StateLog {
  import FsStateLog._

  Check.arg(rollupEvery >= 1, s"rollupEvery must be at least 1, got $rollupEvery")

  private val fs: FileSystem = stateDir.getFileSystem(hadoopConf)
  private val putIfAbsent = PutIfAbsent.forStore(fs, stateDir, hadoopConf)
  private var cached: Option[ShardState] = None
  /** A damaged rollup was passed over: the next commit writes a rollup, so that GC can then drop the damaged one. */
  private var rollupOwed = false

  def current(): ShardState = synchronized {
    val state = cached match {
      case Some(s) =>
        val replayed = replayAfter(s)
        if (truncatedPast(replayed.seqNo)) load() else replayed
      case None => load()
    }
    cached = Some(state)
    state
  }

  /**
   * Writes version 0, `created`, as every version is written (put-if-absent, framed); false if the
   * shard already exists. Fails with [[NoAtomicCommit]] before writing on a store that cannot commit.
   */
  private[shard] def create(created: CreateShard): Boolean = {
    putIfAbsent.requireAtomic()
    fs.mkdirs(stateDir)
    writeVersion(0L, StateCodec.encodeDiff(0L, created, created.schema,
      Some(VersionRecord.committed(created, None, Committer.current()))))
  }

  def compareAndAppend(expectedUpper: Long, batch: BatchMeta): ShardState =
    appendWith(None, None)(expecting(expectedUpper, batch))

  def compareAndAppend(expectedUpper: Long, batch: BatchMeta, writtenUnder: ShardSchema,
      alteredFrom: Option[ShardSchema]): ShardState =
    appendWith(Some(writtenUnder), alteredFrom)(expecting(expectedUpper, batch))

  def appendOnto(writtenUnder: ShardSchema, alteredFrom: Option[ShardSchema])(onto: ShardState => BatchMeta): ShardState =
    appendWith(Some(writtenUnder), alteredFrom)(onto)

  /** `batch` if the shard is still at `expectedUpper`, else [[UpperMismatch]]. */
  private def expecting(expectedUpper: Long, batch: BatchMeta): ShardState => BatchMeta = {
    Check.arg(batch.lower == expectedUpper,
      s"Batch '${batch.id}' has lower ${batch.lower} but the append expects upper $expectedUpper: " +
        "a batch must start at the upper it expects.")
    state => if (state.upper != expectedUpper) throw new UpperMismatch(shard, expectedUpper, state.upper) else batch
  }

  private def appendWith(writtenUnder: Option[ShardSchema], alteredFrom: Option[ShardSchema])(
      onto: ShardState => BatchMeta): ShardState =
    commit { state =>
      val alters = alteredFrom.contains(state.schema) && !writtenUnder.contains(state.schema)
      if (!alters && writtenUnder.exists(_ != state.schema)) throw new SchemaChanged(shard)
      val batch = onto(state)
      Some(if (alters) AlterSchema(writtenUnder.get, Some(batch)) else AppendBatch(batch))
    }

  def alterSchema(change: ShardSchema => ShardSchema): ShardState =
    commit { state =>
      val next = change(state.schema)
      if (next == state.schema) None else Some(AlterSchema(next))
    }

  def downgradeSince(newSince: Long): ShardState =
    commit(state => if (newSince == state.since) None else Some(DowngradeSince(newSince)))

  def replaceBatches(replacements: Seq[BatchReplacement]): (ShardState, Seq[BatchReplacement]) = synchronized {
    var applied = Seq.empty[BatchReplacement]
    val state = commit { s =>
      applied = replacements.filter(_.positionIn(s).isDefined)
      if (applied.isEmpty) None else Some(ReplaceBatches(applied))
    }
    (state, applied)
  }

  /**
   * Reads each version file on disk once, decoding its record (or its change, for a version written
   * before records, without the parts' statistics); no state is rebuilt. A version deleted by
   * garbage collection between the listing and its read is left out.
   */
  def history(limit: Int): IndexedSeq[VersionEntry] =
    listing().versions.reverse.take(limit).flatMap { f =>
      val file = versionPath(f.seqNo)
      decodeIfExists(file)(StateCodec.decodeRecord(file.toString, _, f.seqNo)).map(VersionEntry(f.seqNo, f.modifiedMs, _))
    }

  def listing(): StateListing = {
    val files = listStatuses()
    def of(pick: String => Option[Long]) = files.flatMap { f =>
      pick(f.getPath.getName).map(StateFile(_, f.getModificationTime, f.getPath.getName))
    }.sortBy(_.seqNo).toIndexedSeq
    StateListing(of(Version.unapply), of(Rollup.unapply))
  }

  def statesFrom(seqNo: Long): Iterator[ShardState] = {
    val base = loadBase(listStateFiles().collect { case Rollup(n) if n <= seqNo => n })
      .getOrElse(throw new IllegalStateException(s"Shard '$shard': the rollup below version $seqNo vanished"))
    val first = Iterator.iterate(Option(base))(_.flatMap(nextVersion)).takeWhile(_.isDefined).flatten
      .find(_.seqNo == seqNo)
      .getOrElse(throw new IllegalStateException(s"Shard '$shard' holds no state version $seqNo"))
    Iterator.iterate(Option(first))(_.flatMap(nextVersion)).takeWhile(_.isDefined).flatten
  }

  def truncateBefore(seqNo: Long): Seq[String] = {
    val files = listing()
    Check.arg(files.rollups.exists(_.seqNo == seqNo),
      s"Shard '$shard': cannot truncate its state log before version $seqNo, which is not a rollup.")
    val unreadable =
      try readRollup(seqNo).isEmpty
      catch {
        case e: CorruptState =>
          log.warn(s"Shard '$shard': its state log is not truncated before version $seqNo: that rollup is damaged " +
            s"(${e.getMessage}), and the older rollups and versions are what its state is rebuilt from.")
          true
      }
    val doomed =
      if (unreadable) Nil
      else files.versions.filter(v => v.seqNo > 0 && v.seqNo < seqNo) ++ files.rollups.filter(_.seqNo < seqNo)
    doomed.foreach(f => fs.delete(new Path(stateDir, f.name), false))
    doomed.map(_.name)
  }

  /**
   * Writes the change `decide` picks for the newest state as the next version. A lost race for
   * that version re-reads and decides again, so a change is re-validated against the winner's
   * state (an append whose upper moved fails there with [[UpperMismatch]]).
   */
  private def commit(decide: ShardState => Option[StateChange]): ShardState = synchronized {
    @tailrec def attempt(n: Int): ShardState = {
      val state = current()
      decide(state) match {
        case None => state
        case Some(change) =>
          val next = change.applyTo(state)
          val record = VersionRecord.committed(change, Some(state), Committer.current())
          val bytes = StateCodec.encodeDiff(next.seqNo, change, state.schema, Some(record))
          if (writeVersion(next.seqNo, bytes)) {
            cached = Some(next)
            if (next.seqNo % rollupEvery == 0 || change.rollsUp || rollupOwed) {
              writeRollup(next).foreach(r => cached = Some(r))
            }
            cached.get
          } else if (n >= MaxAttempts) {
            throw new SeqNoConflict(shard, next.seqNo)
          } else {
            attempt(n + 1)
          }
      }
    }
    attempt(1)
  }

  /**
   * Cold start: the newest rollup (or version 0), then every version after it. Garbage collection
   * running meanwhile may delete the rollup or versions just listed: then the listing is retried.
   */
  private def load(): ShardState = {
    @tailrec def attempt(n: Int): ShardState = {
      val loaded = loadBase(listStateFiles().collect { case Rollup(seqNo) => seqNo }).map { base =>
        val state = replayAfter(base)
        // A committer died before its rollup: write one now.
        if (state.seqNo - base.seqNo >= rollupEvery) writeRollup(state)
        state
      }
      loaded match {
        case Some(state) if !truncatedPast(state.seqNo) => state
        case _ if n < MaxAttempts => attempt(n + 1)
        case _ => throw new IllegalStateException(
          s"Shard '$shard': its state log under $stateDir kept being truncated while it was read.")
      }
    }
    attempt(1)
  }

  /**
   * The state at the newest of `rollups` (or at version 0 when there is none); None if that rollup
   * was deleted meanwhile. A damaged rollup is passed over, with a warning naming it, when its
   * state can be rebuilt from the rollup before it (or version 0) and the versions after that one;
   * when those were garbage-collected, reading fails with the rollup's [[CorruptState]].
   */
  private def loadBase(rollups: Seq[Long]): Option[ShardState] = rollups.maxOption match {
    case Some(seqNo) =>
      try readRollup(seqNo)
      catch {
        case damaged: CorruptState => Some(rebuilt(damaged, seqNo, rollups.filter(_ < seqNo)))
      }
    case None =>
      val file = versionPath(0)
      Some(decodeIfExists(file)(StateCodec.decodeDiff(file.toString, _, 0, None)).getOrElse(throw noState) match {
        case c: CreateShard => c.state
        case other => throw new CorruptState(shard, file.toString,
          new IllegalArgumentException(s"version 0 must create the shard, found $other"))
      })
  }

  /** The state at `seqNo`, whose rollup is `damaged`, replayed from the `older` rollups; else `damaged` is thrown. */
  private def rebuilt(damaged: CorruptState, seqNo: Long, older: Seq[Long]): ShardState = {
    @tailrec def replayTo(state: ShardState): ShardState =
      if (state.seqNo >= seqNo) state
      else nextVersion(state) match {
        case None => state
        case Some(next) => replayTo(next)
      }
    val replayed =
      try loadBase(older).map(replayTo)
      catch {
        case NonFatal(e) =>
          damaged.addSuppressed(e)
          None
      }
    replayed match {
      case Some(state) if state.seqNo == seqNo =>
        log.warn(s"Shard '$shard': rollup ${damaged.file} cannot be read (${damaged.getCause.getMessage}); its " +
          s"state was rebuilt from ${older.maxOption.fold("version 0")(n => s"the rollup at version $n")} and the " +
          "versions after it. The next commit writes a fresh rollup after it, and garbage collection then deletes it.")
        rollupOwed = true
        state
      case _ => throw damaged
    }
  }

  /** Applies versions base.seqNo + 1, + 2, ... until the next one does not exist. */
  @tailrec private def replayAfter(state: ShardState): ShardState = nextVersion(state) match {
    case None => state
    case Some(next) => replayAfter(next)
  }

  /** The state at the version after `state`'s, if that version exists. */
  private def nextVersion(state: ShardState): Option[ShardState] = {
    val file = versionPath(state.seqNo + 1)
    decodeIfExists(file) { bytes =>
      StateCodec.decodeDiff(file.toString, bytes, state.seqNo + 1, Some(state.schema)) match {
        case change: StateChange => change.applyTo(state)
        case other => throw new IllegalArgumentException(s"only version 0 may be $other")
      }
    }
  }

  /**
   * Whether garbage collection truncated the log past version `seqNo`, the newest one found: its
   * file is gone (versions are deleted oldest first), or, for version 0, which is never deleted,
   * a rollup exists although version 1 does not.
   */
  private def truncatedPast(seqNo: Long): Boolean =
    if (seqNo == 0) listStateFiles().exists { case Rollup(n) => n > 0; case _ => false }
    else !fs.exists(versionPath(seqNo))

  /** Put-if-absent of a version; the state directory vanishing under a writer means a drop. */
  private def writeVersion(seqNo: Long, bytes: Array[Byte]): Boolean =
    try putIfAbsent(versionPath(seqNo), StateFrame.seal(bytes))
    catch {
      case _: FileNotFoundException | _: NoSuchFileException => throw noState
    }

  private def noState = new IllegalStateException(
    s"Shard '$shard' has no state under $stateDir: it was dropped, or never created.")

  /**
   * Writes the rollup of `state`. Never fails the caller: the version it follows is already
   * committed (an error here must not look like a failed append), and a later reader repairs it.
   * Returns `state` as the rollup holds it (its stats as the rollup's bytes, [[ColumnarRollup]]),
   * which the log keeps instead: its parts' stats are then written again as they are, their
   * segment summaries carried forward, by the next rollups, and held as bytes, not objects.
   */
  private def writeRollup(state: ShardState): Option[ShardState] =
    try {
      val body = StateCodec.encodeRollup(state)
      putIfAbsent(rollupPath(state.seqNo), StateFrame.seal(body))
      rollupOwed = false
      Some(StateCodec.decodeRollup(rollupPath(state.seqNo).toString, body, state.seqNo))
    } catch {
      case NonFatal(e) =>
        log.warn(s"Shard '$shard': could not write rollup at ${state.seqNo}", e)
        None
    }

  /** The rollup at `seqNo`, if it exists. */
  private def readRollup(seqNo: Long): Option[ShardState] = {
    val file = rollupPath(seqNo)
    decodeIfExists(file)(StateCodec.decodeRollup(file.toString, _, seqNo))
  }

  /** The state file `file` decoded by `decode` from the body of its frame ([[StateFrame]]); None if it does not exist. */
  private def decodeIfExists[T](file: Path)(decode: Array[Byte] => T): Option[T] =
    readIfExists(file).map(bytes => decoding(file)(decode(StateFrame.open(bytes))))

  private def decoding[T](file: Path)(f: => T): T =
    try f
    catch {
      case e: UnsupportedStateFormat => throw e
      case NonFatal(e) => throw new CorruptState(shard, file.toString, e)
    }

  private def listStateFiles(): Seq[String] = listStatuses().map(_.getPath.getName)

  private def listStatuses(): Seq[org.apache.hadoop.fs.FileStatus] =
    try fs.listStatus(stateDir).toSeq
    catch {
      case _: FileNotFoundException => Nil
    }

  private def read(file: Path): Array[Byte] = {
    val in = fs.open(file)
    try in.readAllBytes() finally in.close()
  }

  private def readIfExists(file: Path): Option[Array[Byte]] =
    try Some(read(file))
    catch {
      case _: FileNotFoundException => None
    }

  private[shard] def versionPath(seqNo: Long): Path = new Path(stateDir, versionName(seqNo))

  private def rollupPath(seqNo: Long): Path = new Path(stateDir, f"rollup-$seqNo%020d.json")
}

object FsStateLog {
  private val log = LoggerFactory.getLogger(classOf[FsStateLog])

  /** Lost races for the next version (each meaning another writer progressed) before giving up. */
  private val MaxAttempts = 100

  private[shard] def versionName(seqNo: Long): String = f"$seqNo%020d.json"

  private object Version {
    private val pattern = """(\d{20})\.json""".r
    def unapply(name: String): Option[Long] = name match {
      case pattern(n) => Some(n.toLong)
      case _ => None
    }
  }

  private object Rollup {
    private val pattern = """rollup-(\d{20})\.json""".r
    def unapply(name: String): Option[Long] = name match {
      case pattern(n) => Some(n.toLong)
      case _ => None
    }
  }
}

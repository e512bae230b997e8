package sparkpersist.shard

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.codec.Json
import sparkpersist.schema.{ColumnDef, ShardSchema}
import sparkpersist.shard.ShardFixtures._
import sparkpersist.stats.{ColumnStats, PartStats}

class FsStateLogSuite extends AnyFunSuite {

  /** A fresh shard "s" with [[ShardFixtures.eventSchema]], plus its directory. */
  private def withShard[T](rollupEvery: Long = 100)(f: (ShardStore, File) => T): T =
    withTempDir { dir =>
      val store = new ShardStore(dir.toURI.toString, hadoopConf, rollupEvery)
      store.create("s", eventSchema)
      f(store, new File(dir, "s/state"))
    }

  private def freshLog(store: ShardStore): StateLog = store.open("s").log

  private def batch(id: String, lower: Long, upper: Long, parts: Int = 2): BatchMeta =
    eventBatch(id, lower, upper, parts, new Random(lower))

  private def stateFiles(stateDir: File): Seq[String] = stateDir.list().toSeq.sorted

  /** Overwrites a state file behind the log's back; returns its path as error messages name it. */
  private def writeStateFile(stateDir: File, name: String, content: String): String = {
    val file = new File(stateDir, name)
    Files.write(file.toPath, content.getBytes(StandardCharsets.UTF_8))
    new Path(file.toURI).toString
  }

  test("appends advance upper and seqNo and survive a reopen, stats of every type included") {
    val struct = StructType(Seq(
      StructField("b", BooleanType), StructField("i8", ByteType), StructField("i16", ShortType),
      StructField("i32", IntegerType), StructField("i64", LongType), StructField("f", FloatType),
      StructField("d", DoubleType), StructField("dec", DecimalType(20, 4)), StructField("dt", DateType),
      StructField("ts", TimestampType), StructField("ntz", TimestampNTZType), StructField("s", StringType),
      StructField("bin", BinaryType), StructField("arr", ArrayType(IntegerType)),
      StructField("m", IntegerType, nullable = false, new MetadataBuilder().putString("comment", "ü").build())))
    val schema = ShardSchema.fromStruct(struct, orderBy = Seq("i64"))
    val bounds: Seq[(Option[Any], Option[Any])] = Seq(
      Some(false) -> Some(true), Some(Byte.MinValue) -> Some(Byte.MaxValue),
      Some(Short.MinValue) -> Some(Short.MaxValue), Some(Int.MinValue) -> Some(Int.MaxValue),
      Some(Long.MinValue) -> Some(Long.MaxValue), Some(-0.0f) -> Some(Float.NaN),
      Some(Double.NegativeInfinity) -> Some(Double.NaN), Some(Decimal(BigDecimal("-1.2500"))) -> None,
      Some(-719162) -> Some(2932896), Some(Long.MinValue) -> Some(Long.MaxValue), Some(0L) -> Some(1L),
      Some(UTF8String.fromString("Ärger")) -> Some(UTF8String.fromString("日本語 😀")),
      Some(Array[Byte](0, -1)) -> Some(Array[Byte](127)), None -> None, Some(1) -> Some(1))
    val stats = PartStats(10, 2048,
      bounds.zipWithIndex.map { case ((lo, hi), i) => (i + 1) -> ColumnStats(math.min(i, 10), lo, hi) }.toMap,
      trimmed = Set(12))
    val parts = Vector(
      PartMeta("parts/b1/p0.parquet", 10, 2048, 0, 99, hasRetractions = true, Some(stats)),
      PartMeta("parts/b1/p1.parquet", 3, 512, 5, 7, hasRetractions = false, None))
    val b = BatchMeta("b1", 0, 100, Vector(RunMeta(parts), RunMeta(Vector.empty)), committedAtMs = 42)
    withTempDir { dir =>
      val store = new ShardStore(dir.getPath, hadoopConf)
      val h = store.create("typed", schema)
      val after = h.log.compareAndAppend(0, b)
      assert((after.upper, after.seqNo, after.batches) === (100L, 1L, Vector(b)))
      val reopened = new ShardStore(dir.getPath, hadoopConf).open("typed").state
      assert(reopened === after)
      assert(reopened.partCount == 2 && reopened.hasRetractions)
    }
  }

  test("an append of parts with positions is written at format version 9 and read back; other appends stay at 2") {
    withShard() { (store, stateDir) =>
      val log = freshLog(store)
      log.compareAndAppend(0, batch("plain", 0, 100))
      val plain = batch("pos", 100, 200)
      val positional = plain.copy(runs = plain.runs.map(r => RunMeta(r.parts.map(_.copy(hasRetractions = true,
        positions = Some("parts/pos/positions-00000-a0.bin"))))))
      val after = log.compareAndAppend(100, positional)
      def version(seqNo: Int) = Json.parse(new String(Files.readAllBytes(new File(stateDir, f"$seqNo%020d.json").toPath), StandardCharsets.UTF_8))
        .get("formatVersion").asInt
      assert((version(1), version(2)) === (ShardState.FormatVersion, ShardState.PositionalRetractionsFormatVersion))
      assert(store.open("s").state === after)
      assert(after.parts.toSeq.takeRight(plain.partCount).forall(_.positions.contains("parts/pos/positions-00000-a0.bin")))
    }
  }

  test("two writers racing on the same upper: exactly one wins, the other learns the new upper") {
    withShard() { (store, _) =>
      val (w1, w2) = (freshLog(store), freshLog(store))
      assert(w1.current().upper == 0 && w2.current().upper == 0)
      w1.compareAndAppend(0, batch("a", 0, 10))
      // w2's cached state still says upper 0: its write of version 1 loses, it re-reads, and fails.
      val e = intercept[UpperMismatch](w2.compareAndAppend(0, batch("b", 0, 20)))
      assert((e.shard, e.expected, e.actual) === ("s", 0L, 10L))
      assert(e.getMessage === "[PERSIST_UPPER_MISMATCH] Shard 's' upper moved: the append expected upper 0 but the shard is at 10 " +
        "(another writer committed first). Nothing was written; retry with times >= the new upper. SQLSTATE: 40001")
      val s = freshLog(store).current()
      assert((s.upper, s.seqNo, s.batches.map(_.id)) === (10L, 1L, Vector("a")))
      assert(w2.compareAndAppend(10, batch("b", 10, 20)).batches.map(_.id) === Vector("a", "b"))
    }
  }

  test("threads racing from many logs: exactly one append per upper wins, every batch lands once") {
    withShard(rollupEvery = 7) { (store, _) =>
      val writers = 6
      val perWriter = 15
      val pool = Executors.newFixedThreadPool(writers)
      implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
      val start = new CountDownLatch(1)
      try {
        val mismatches = Future.sequence((0 until writers).map { w =>
          Future {
            val log = freshLog(store)
            start.await()
            var lost = 0
            (0 until perWriter).foreach { i =>
              var done = false
              while (!done) {
                val upper = log.current().upper
                try {
                  log.compareAndAppend(upper, batch(s"w$w-$i", upper, upper + 1 + w, parts = 1))
                  done = true
                } catch {
                  case e: UpperMismatch =>
                    assert(e.expected == upper && e.actual > upper)
                    lost += 1
                }
              }
            }
            lost
          }
        })
        start.countDown()
        val lost = Await.result(mismatches, 5.minutes).sum
        val s = freshLog(store).current()
        assert(s.batches.size == writers * perWriter)
        assert(s.batches.map(_.id).toSet === (for (w <- 0 until writers; i <- 0 until perWriter) yield s"w$w-$i").toSet)
        assert(s.seqNo == writers * perWriter)
        s.batches.sliding(2).foreach { case Seq(a, b) => assert(a.upper == b.lower) }
        assert(s.upper == s.batches.last.upper)
        info(s"$lost lost races, each reported as UpperMismatch")
      } finally {
        pool.shutdown()
        pool.awaitTermination(1, TimeUnit.MINUTES)
      }
    }
  }

  test("racing creates of one shard: exactly one succeeds, the others get ShardAlreadyExists") {
    withTempDir { dir =>
      val pool = Executors.newFixedThreadPool(4)
      implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
      try {
        val start = new CountDownLatch(1)
        val outcomes = Future.sequence((0 until 8).map { i =>
          Future {
            val store = new ShardStore(dir.toURI.toString, hadoopConf)
            start.await()
            try Right(store.create("t", ShardSchema(Vector(ColumnDef(i + 1, s"c$i", IntegerType, true)), Nil)))
            catch { case e: ShardAlreadyExists => Left(e.shard) }
          }
        })
        start.countDown()
        val results = Await.result(outcomes, 1.minute)
        val winners = results.collect { case Right(h) => h.state.schema }
        assert(winners.size == 1 && results.count(_ == Left("t")) == 7)
        assert(new ShardStore(dir.toURI.toString, hadoopConf).open("t").state.schema === winners.head)
      } finally pool.shutdown()
    }
  }

  test("a lost race against a since move is retried, since the upper did not move") {
    withShard() { (store, _) =>
      val (w1, w2) = (freshLog(store), freshLog(store))
      w1.compareAndAppend(0, batch("a", 0, 10))
      w2.current()
      w1.downgradeSince(5)
      val s = w2.compareAndAppend(10, batch("b", 10, 20))
      assert((s.since, s.upper, s.seqNo, s.batches.map(_.id)) === (5L, 20L, 3L, Vector("a", "b")))
    }
  }

  test("since moves forward only, never past upper; an equal since writes nothing") {
    withShard() { (store, _) =>
      val log = freshLog(store)
      log.compareAndAppend(0, batch("a", 0, 10))
      assert(log.downgradeSince(4).since == 4)
      assert(log.downgradeSince(4).seqNo == 2)
      assert(intercept[IllegalArgumentException](log.downgradeSince(3)).getMessage ===
        "Cannot move since of shard 's' backward from 4 to 3: history before since " +
          "may already be compacted.")
      assert(intercept[IllegalArgumentException](log.downgradeSince(11)).getMessage ===
        "Cannot move since of shard 's' to 11, past its upper 10: since must stay <= upper.")
      assert(log.downgradeSince(10).since == 10)
      assert(freshLog(store).current().since == 10)
    }
  }

  test("invalid appends are refused before anything is written") {
    withShard() { (store, stateDir) =>
      val log = freshLog(store)
      log.compareAndAppend(0, batch("a", 0, 10))
      val before = stateFiles(stateDir)
      assert(intercept[IllegalArgumentException](log.compareAndAppend(10, batch("b", 9, 20))).getMessage ===
        "Batch 'b' has lower 9 but the append expects upper 10: a batch must start at " +
          "the upper it expects.")
      assert(intercept[IllegalArgumentException](log.compareAndAppend(10, batch("b", 10, 10))).getMessage ===
        "Batch 'b' has upper 10 <= lower 10: a batch must cover a non-empty time range " +
          "[lower, upper).")
      assert(intercept[IllegalArgumentException](log.compareAndAppend(10, batch("a", 10, 12))).getMessage ===
        "Shard 's' already holds a batch with id 'a': batch ids must be unique.")
      assert(intercept[UpperMismatch](log.compareAndAppend(3, batch("c", 3, 12))).actual == 10)
      assert(stateFiles(stateDir) === before)
    }
  }

  test("rollups are written every N versions; a fresh open equals the incrementally cached state") {
    withShard(rollupEvery = 5) { (store, stateDir) =>
      val log = freshLog(store)
      (0 until 12).foreach(i => log.compareAndAppend(i * 10L, batch(s"b$i", i * 10L, i * 10L + 10)))
      log.downgradeSince(30)
      val files = stateFiles(stateDir)
      assert(files.filter(_.startsWith("rollup-")) ===
        Seq("rollup-00000000000000000005.json", "rollup-00000000000000000010.json"))
      assert(files.count(_.matches("\\d{20}\\.json")) == 14)
      val cached = log.current()
      assert(cached.seqNo == 13 && cached.since == 30 && cached.upper == 120)
      assert(freshLog(store).current() === cached)
      // The open really starts from the newest rollup: versions before it are not read.
      (1 to 10).foreach(i => Files.delete(new File(stateDir, FsStateLog.versionName(i)).toPath))
      assert(freshLog(store).current() === cached)
    }
  }

  test("a reader that replays a missing rollup's worth of diffs writes it") {
    withShard(rollupEvery = 3) { (store, stateDir) =>
      val log = freshLog(store)
      (0 until 4).foreach(i => log.compareAndAppend(i.toLong, batch(s"b$i", i.toLong, i + 1L)))
      Files.delete(new File(stateDir, "rollup-00000000000000000003.json").toPath)
      val s = freshLog(store).current()
      assert(s.seqNo == 4)
      assert(stateFiles(stateDir).filter(_.startsWith("rollup-")) === Seq("rollup-00000000000000000004.json"))
      assert(freshLog(store).current() === s)
    }
  }

  test("a cached log reads only newer versions, and sees other writers' appends") {
    withShard() { (store, stateDir) =>
      val (reader, writer) = (freshLog(store), freshLog(store))
      writer.compareAndAppend(0, batch("a", 0, 10))
      assert(reader.current().upper == 10)
      // Damage an already-read version: a cached reader never reads it again.
      writeStateFile(stateDir, FsStateLog.versionName(1), "garbage")
      writer.compareAndAppend(10, batch("b", 10, 20))
      assert(reader.current().batches.map(_.id) === Vector("a", "b"))
    }
  }

  test("torn temp files and unreferenced parts of a crashed writer are ignored") {
    withShard() { (store, stateDir) =>
      val log = freshLog(store)
      log.compareAndAppend(0, batch("a", 0, 10))
      writeStateFile(stateDir, ".00000000000000000002.json.5f0c.tmp", """{"formatVersion":1,"se""")
      writeStateFile(stateDir, "00000000000000000002.json.tmp", "\u0000\u0001")
      writeStateFile(stateDir, ".rollup-00000000000000000100.json.x.tmp", "{")
      val orphan = new File(stateDir.getParentFile, "parts/crashed/p.parquet")
      orphan.getParentFile.mkdirs()
      Files.write(orphan.toPath, "not parquet".getBytes)
      val s = freshLog(store).current()
      assert((s.seqNo, s.batches.map(_.id), s.parts.map(_.key).toSeq) ===
        (1L, Vector("a"), Seq("parts/a/part-0.parquet", "parts/a/part-1.parquet")))
      assert(log.compareAndAppend(10, batch("b", 10, 20)).seqNo == 2)
      assert(freshLog(store).current().batches.map(_.id) === Vector("a", "b"))
    }
  }

  test("a state file from a newer format is refused with a clear error") {
    withShard() { (store, stateDir) =>
      def refused(file: String) = intercept[UnsupportedStateFormat](freshLog(store).current()).getMessage ===
        "[PERSIST_UNSUPPORTED_FORMAT.STATE] A file of the shard is in a format this sparkpersist does not read: " +
          s"state file $file has formatVersion 99, but this sparkpersist reads formatVersion up to " +
          s"${ShardState.TablePropertiesFormatVersion}. Upgrade sparkpersist to read this shard. SQLSTATE: 0A000"
      val version = writeStateFile(stateDir, FsStateLog.versionName(1),
        """{"formatVersion":99,"seqNo":1,"kind":"append","batch":{}}""")
      assert(refused(version))
      val rollup = writeStateFile(stateDir, "rollup-00000000000000000001.json",
        """{"formatVersion":99,"seqNo":1,"kind":"rollup","future":true}""")
      assert(refused(rollup))
    }
  }

  test("a damaged version file names itself") {
    withShard() { (store, stateDir) =>
      val file = writeStateFile(stateDir, FsStateLog.versionName(1),
        """{"formatVersion":1,"seqNo":7,"kind":"since","since":1}""")
      assert(intercept[CorruptState](freshLog(store).current()).getMessage ===
        s"[PERSIST_CORRUPT_STATE] Shard 's': state file $file cannot be read (the file records seqNo 7, but its name says 1). " +
          "State files are written atomically, so it was damaged after it was written: restore it from a backup. SQLSTATE: XX001")
    }
  }

  test("damaged stats of one part cost only that part's stats (in a file written before checksums)") {
    withShard() { (store, stateDir) =>
      val appended = freshLog(store).compareAndAppend(0, batch("a", 0, 10, parts = 3))
      val file = new File(stateDir, FsStateLog.versionName(1))
      val json = new String(StateFrame.open(Files.readAllBytes(file.toPath)), StandardCharsets.UTF_8)
      val damaged = json.replaceFirst("\"binStats\":\"[^\"]+\"", "\"binStats\":{\"rows\":{\"x\":[1]}}")
      assert(damaged != json)
      writeStateFile(stateDir, file.getName, damaged)
      val parts = freshLog(store).current().parts.toSeq
      val expected = appended.parts.toSeq
      assert(parts.head === expected.head.copy(stats = None))
      assert(parts.tail === expected.tail)
    }
  }

  test("a dropped shard's log says so, and a writer still holding it cannot bring it back") {
    withShard() { (store, stateDir) =>
      val (h, writer) = (store.open("s"), freshLog(store))
      writer.current()
      store.drop("s")
      val message = s"Shard 's' has no state under ${new Path(h.dir, "state")}: it was dropped, or never created."
      assert(intercept[IllegalStateException](h.log.current()).getMessage === message)
      assert(intercept[IllegalStateException](writer.compareAndAppend(0, batch("a", 0, 10))).getMessage === message)
      assert(!stateDir.getParentFile.exists())
    }
  }

  test("put-if-absent by rename refuses an existing target, as on HDFS") {
    withTempDir { dir =>
      val fs = new Path(dir.toURI).getFileSystem(hadoopConf)
      val put = new PutIfAbsent.RenameNoOverwrite(fs, hadoopConf)
      val target = new Path(dir.toURI.toString, "v.json")
      assert(put(target, "one".getBytes))
      assert(!put(target, "two".getBytes))
      assert(new String(Files.readAllBytes(new File(dir, "v.json").toPath)) === "one")
      assert(dir.list().toSeq.filterNot(_.endsWith(".crc")) === Seq("v.json"))
      assert(intercept[java.io.FileNotFoundException](put(new Path(dir.toURI.toString, "gone/v.json"), Array[Byte]()))
        .getMessage.contains("gone"))
      assert(!new File(dir, "gone").exists())
      val linked = new PutIfAbsent.HardLink(fs)
      assert(!linked(target, "three".getBytes))
      assert(linked(new Path(dir.toURI.toString, "w.json"), "four".getBytes))
      assert(dir.list().toSeq.filterNot(_.endsWith(".crc")).sorted === Seq("v.json", "w.json"))
    }
  }
  test("each store gets its atomic primitive; a store without one refuses commits, naming the setting") {
    withTempDir { dir =>
      val local = new Path(dir.toURI).getFileSystem(hadoopConf)
      val target = new Path(dir.toURI.toString, "v.json")
      assert(PutIfAbsent.forStore(local, target.getParent, hadoopConf).name === "hard link")

      val other = new OtherSchemeFileSystem
      other.initialize(dir.toURI, hadoopConf)
      val refused = PutIfAbsent.forStore(other, target.getParent, hadoopConf)
      assert(refused.name === "none")
      val e = intercept[NoAtomicCommit](refused(target, "one".getBytes))
      assert(e.getMessage.contains("sparkpersist knows no atomic create-if-absent on 'other' stores"), e.getMessage)
      assert(e.getMessage.contains(s"add 'other' to ${sparkpersist.PersistConf.RenameSchemes.key}"), e.getMessage)
      assert(!new File(dir, "v.json").exists())

      val declared = new Configuration(hadoopConf)
      declared.set(sparkpersist.PersistConf.RenameSchemes.key, "hdfs, Other")
      val renaming = PutIfAbsent.forStore(other, target.getParent, declared)
      assert(renaming.name === "rename without overwrite")
      assert(renaming(target, "one".getBytes) && !renaming(target, "two".getBytes))
      assert(new String(Files.readAllBytes(new File(dir, "v.json").toPath)) === "one")
    }
  }

}

/** The local file system under another scheme name: a store sparkpersist knows no commit primitive for. */
final class OtherSchemeFileSystem extends org.apache.hadoop.fs.RawLocalFileSystem {
  override def getScheme: String = "other"
}

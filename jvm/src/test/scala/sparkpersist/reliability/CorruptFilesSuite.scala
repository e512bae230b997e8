package sparkpersist.reliability

import java.io.File
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.util.Random

import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.QueryTest

import sparkpersist.{KeyValueShards, PersistConf, PersistSparkSession}
import sparkpersist.codec.Json
import sparkpersist.shard.{ShardFixtures, ShardState, ShardStore, StateFiles}
import sparkpersist.stats.BinaryStatsCodec
import sparkpersist.stats.legacy.LegacyStatsJson
import sparkpersist.shard.PartFormat

/**
 * Damaged files under a shard: a part cut short, overwritten, bit-flipped or missing; a state
 * version or rollup cut short, garbage, with a digit changed (its checksum fails) or from a newer
 * format (a damaged rollup is read through the one before it while the versions since exist);
 * stats of the wrong type, shape or counts.
 * Each either fails the query with an error naming the file and what to do, or (stats) keeps the
 * part: never a wrong or silently shorter answer, whatever `spark.sql.files.ignore*Files` say.
 */
class CorruptFilesSuite extends QueryTest with PersistSparkSession with KeyValueShards {

  private val all = Seq("[1,a]", "[2,b]", "[3,c]", "[4,null]", "[5,e]")

  /** Shard `name`: three batches of one part each, (1, a) (2, b) | (3, c) (4, null) | (5, e). */
  private def threeBatches(name: String): Unit = {
    create(name)
    append(name, 10, 1L -> "a", 2L -> "b")
    append(name, 20, 3L -> "c", 4L -> null)
    append(name, 30, 5L -> "e")
  }

  private def partFile(name: String, batch: Int): (String, File) = {
    val key = store.open(name).state.batches(batch).parts.next().key
    key -> new File(root, s"$name/$key")
  }

  private def stateFile(name: String, seqNo: Long): File = new File(root, f"$name/state/$seqNo%020d.json")

  private def rows(name: String): Seq[String] =
    sql(s"SELECT k, v FROM persist.$name").collect().map(_.toString).toSeq.sorted

  /** The messages of `e` and its causes. */
  private def messages(e: Throwable): String =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString("\n")

  /** Runs `query` in pushdown modes on and off, skipping corrupt and missing files if Spark may: each must fail. */
  private def failsEverywhere(name: String): Seq[String] =
    for (mode <- Seq("on", "off"); ignore <- Seq("false", "true")) yield
      withSQLConf(PersistConf.PushdownMode.key -> mode, "spark.sql.files.ignoreCorruptFiles" -> ignore,
          "spark.sql.files.ignoreMissingFiles" -> ignore) {
        messages(intercept[Exception](rows(name)))
      }

  private val partAdvice = "so it was removed or damaged outside sparkpersist: restore it from a backup of the shard directory"

  test("a part cut short, overwritten with garbage or missing fails every read, naming the file and what to do") {
    val damages: Seq[(String, File => Unit)] = Seq(
      "cut" -> (f => Files.write(f.toPath, Files.readAllBytes(f.toPath).take(f.length().toInt / 2))),
      "garbage" -> (f => Files.write(f.toPath, Array.fill(f.length().toInt)(7.toByte))),
      "empty" -> (f => Files.write(f.toPath, Array.emptyByteArray)),
      "missing" -> (f => assert(f.delete())))
    damages.foreach { case (what, damage) =>
      val name = s"part_$what"
      threeBatches(name)
      val (key, file) = partFile(name, 1)
      damage(file)
      failsEverywhere(name).foreach { m =>
        assert(m.contains(s"Part file ") && m.contains(s"$name/$key cannot be read") && m.contains(partAdvice), s"$what: $m")
      }
    }
  }

  test("a flipped byte anywhere in a part's pages fails the read or changes nothing: never other rows") {
    val name = "part_flips"
    threeBatches(name)
    val (key, file) = partFile(name, 1)
    val original = Files.readAllBytes(file.toPath)
    val footerLength = ByteBuffer.wrap(original.slice(original.length - 8, original.length - 4))
      .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt
    val pagesEnd = original.length - 8 - footerLength
    val rnd = new Random(13)
    val outcomes = (0 until 12).map { i =>
      val at = 4 + (i * (pagesEnd - 4)) / 12 + rnd.nextInt(math.max(1, (pagesEnd - 4) / 12))
      Files.write(file.toPath, original.updated(at, (original(at) ^ (1 << rnd.nextInt(8))).toByte))
      // Without the local file system's checksum beside it, as on a store that keeps none (S3).
      Files.deleteIfExists(new File(file.getParentFile, s".${file.getName}.crc").toPath)
      try {
        assert(rows(name) === all, s"byte $at flipped")
        "same rows"
      } catch {
        case e: Exception if messages(e).contains(s"$name/$key cannot be read") => "error naming the part"
      }
    }
    Files.write(file.toPath, original)
    assert(rows(name) === all)
    assert(outcomes.contains("error naming the part"), outcomes)
    info(outcomes.groupBy(identity).map { case (o, n) => s"$o: ${n.size}" }.mkString(", ") + s" of 12 flips in $pagesEnd bytes of pages")
  }

  /**
   * `file` with the part format version in its footer (one character) replaced by `version`, its
   * local checksum file removed (as on a store that keeps none).
   */
  private def recordFormatVersion(file: File, version: Char): Unit = {
    val bytes = Files.readAllBytes(file.toPath)
    val key = PartFormat.FormatVersionKey.getBytes(StandardCharsets.UTF_8)
    val at = bytes.indexOfSlice(key) + key.length
    // Thrift's compact encoding of the value after the key: a field header, the length 1, the version.
    val value = at + 2
    assert(at > key.length && bytes(value - 1) == 1 && bytes(value + 1) == 0, s"no one-character version in $file")
    Files.write(file.toPath, bytes.updated(value, version.toByte))
    Files.deleteIfExists(new File(file.getParentFile, s".${file.getName}.crc").toPath)
  }

  test("a part of a newer or damaged format version fails every read, naming the file; older versions read") {
    val name = "part_newer"
    threeBatches(name)
    val (key, file) = partFile(name, 1)
    val expected = Seq(
      '3' -> (s"$name/$key has part format version 3, but this sparkpersist reads part formats up to " +
        s"${ShardState.FormatVersion}. A newer sparkpersist wrote it: upgrade sparkpersist to read this shard."),
      'x' -> (s"$name/$key records part format version 'x', which is not a version: its footer was damaged outside " +
        "sparkpersist. Restore the part from a backup of the shard directory."))
    expected.foreach { case (version, message) =>
      recordFormatVersion(file, version)
      // Spark's vectorized reader, and its row reader (which keeps the footer to itself).
      Seq("true", "false").foreach { vectorized =>
        withSQLConf("spark.sql.parquet.enableVectorizedReader" -> vectorized) {
          failsEverywhere(name).foreach { m =>
            assert(m.contains("[PERSIST_UNSUPPORTED_FORMAT.PART") && m.contains(message) && m.contains(" SQLSTATE: 0A000"),
              s"$version: $m")
          }
        }
      }
    }
    recordFormatVersion(file, '1')
    assert(rows(name) === all)
  }

  test("a state version cut short or overwritten fails opening the shard, naming the file and what to do") {
    Seq("cut" -> ((b: Array[Byte]) => b.take(b.length / 2)), "garbage" -> ((b: Array[Byte]) => b.map(_ => '{'.toByte)))
      .foreach { case (what, damage) =>
        val name = s"state_$what"
        threeBatches(name)
        val file = stateFile(name, 2)
        Files.write(file.toPath, damage(Files.readAllBytes(file.toPath)))
        val m = messages(intercept[Exception](rows(name)))
        assert(m.contains(s"Shard '$name': state file ") && m.contains(s"$name/state/${file.getName} cannot be read") &&
          m.contains("it was damaged after it was written: restore it from a backup"), m)
      }
  }

  /**
   * A shard "r" of `batches` appends under `dir`, with a rollup every 2 versions (at 2, 4, ...):
   * its state as written, and the state file named `name` there.
   */
  private def rolling(dir: File, batches: Int): (ShardState, String => File) = {
    val shard = new ShardStore(dir.toURI.toString, spark.sessionState.newHadoopConf(), rollupEvery = 2)
      .create("r", ShardFixtures.eventSchema)
    (0 until batches).foreach(i =>
      shard.log.compareAndAppend(i * 10L, ShardFixtures.eventBatch(s"b$i", i * 10L, i * 10L + 10, 1, new Random(i))))
    (shard.state, name => new File(dir, s"r/state/$name"))
  }

  private def rollupName(seqNo: Long): String = f"rollup-$seqNo%020d.json"

  private def reopened(dir: File): ShardState = new ShardStore(dir.toURI.toString, spark.sessionState.newHadoopConf()).open("r").state

  /** `file` with the last digit of the number after the first `"field":` changed (the checksum left as it was). */
  private def changeDigit(file: File, field: String): Unit = {
    val text = new String(Files.readAllBytes(file.toPath), StandardCharsets.UTF_8)
    val at = text.indexOf(s""""$field":""")
    assert(at >= 0, s"no $field in $file")
    val end = text.indexWhere(c => !c.isDigit && c != '-', at + field.length + 3)
    val digit = text(end - 1)
    assert(digit.isDigit, s"$field in $file is not a number")
    Files.write(file.toPath, text.updated(end - 1, ((digit - '0' + 1) % 10 + '0').toChar).getBytes(StandardCharsets.UTF_8))
  }

  private val checksumAdvice = "does not match its checksum"

  test("a digit changed in a state version (a row count, a path, an upper) fails its checksum, naming the file") {
    val damages: Seq[(String, File => Unit)] = Seq(
      "rows" -> (f => changeDigit(f, "rows")),
      "upper" -> (f => changeDigit(f, "upper")),
      "path" -> { f =>
        // The last hex digit of the part's name: the path of another (nonexistent) part.
        val text = new String(Files.readAllBytes(f.toPath), StandardCharsets.UTF_8)
        val at = text.indexOf(".parquet\"") - 1
        Files.write(f.toPath, text.updated(at, if (text(at) == '0') '1' else '0').getBytes(StandardCharsets.UTF_8))
      })
    damages.foreach { case (what, damage) =>
      val name = s"state_digit_$what"
      threeBatches(name)
      val file = stateFile(name, 2)
      val before = Files.readAllBytes(file.toPath)
      damage(file)
      assert(!java.util.Arrays.equals(before, Files.readAllBytes(file.toPath)), what)
      failsEverywhere(name).foreach { m =>
        assert(m.contains(s"Shard '$name': state file ") && m.contains(s"$name/state/${file.getName} cannot be read (") &&
          m.contains(checksumAdvice) && m.contains("restore it from a backup"), s"$what: $m")
      }
    }
  }

  test("a rollup cut short or with a digit changed, the versions before it collected, fails opening the shard, naming it") {
    Seq[(String, File => Unit)](
      "cut" -> (f => Files.write(f.toPath, Files.readAllBytes(f.toPath).take(100))),
      "since" -> (f => changeDigit(f, "since")),
      "upper" -> (f => changeDigit(f, "upper"))).foreach { case (what, damage) =>
      val dir = new File(root, s"rollups_$what")
      val (_, file) = rolling(dir, batches = 3)
      new ShardStore(dir.toURI.toString, spark.sessionState.newHadoopConf()).open("r").log.truncateBefore(2)
      assert(!file(f"${1}%020d.json").exists(), what)
      damage(file(rollupName(2)))
      val m = messages(intercept[Exception](reopened(dir)))
      assert(m.contains(s"Shard 'r': state file ") && m.contains(s"r/state/${rollupName(2)} cannot be read") &&
        m.contains("restore it from a backup"), s"$what: $m")
      if (what != "cut") assert(m.contains(checksumAdvice), s"$what: $m")
    }
  }

  test("a damaged rollup is rebuilt from the rollup before it and the versions after that; GC keeps them") {
    val dir = new File(root, "rollups_fallback")
    val (written, file) = rolling(dir, batches = 5)
    changeDigit(file(rollupName(4)), "upper")
    assert(reopened(dir) === written)
    // Both rollups damaged: rebuilt from version 0.
    Files.write(file(rollupName(2)).toPath, Files.readAllBytes(file(rollupName(2)).toPath).take(50))
    assert(reopened(dir) === written)
    // Garbage collection does not delete what the damaged rollup's state is rebuilt from.
    val log = new ShardStore(dir.toURI.toString, spark.sessionState.newHadoopConf()).open("r").log
    assert(log.truncateBefore(4) === Nil)
    assert(log.statesFrom(4).map(_.seqNo).toSeq === Seq(4L, 5L))
    assert(reopened(dir) === written)
  }

  test("the next commit after a damaged rollup writes a fresh rollup, which GC truncates to, deleting the damaged one") {
    val dir = new File(root, "rollups_repaired")
    val (_, file) = rolling(dir, batches = 4)
    changeDigit(file(rollupName(4)), "upper")
    val shard = new ShardStore(dir.toURI.toString, spark.sessionState.newHadoopConf(), rollupEvery = 2).open("r")
    // Version 5 is no multiple of 2: its rollup is written because the one at 4 was passed over.
    val written = shard.log.compareAndAppend(40L, ShardFixtures.eventBatch("b4", 40L, 50L, 1, new Random(4)))
    val fresh = file(rollupName(5))
    assert(fresh.exists())
    val encoded = StateFiles.Encoded(fresh.getName, Files.readAllBytes(fresh.toPath), 5L, None)
    assert(StateFiles.decode(encoded, encoded.bytes) === written)
    assert(shard.log.truncateBefore(5).toSet === Set(rollupName(2), rollupName(4)) ++ (1 to 4).map(n => f"$n%020d.json"))
    assert(!file(rollupName(4)).exists())
    assert(reopened(dir) === written)
    assert(written.batches.map(_.id) === (0 to 4).map(i => s"b$i"))
  }

  test("a state version of a newer format is refused, naming the file and asking for an upgrade") {
    val name = "state_newer"
    threeBatches(name)
    val file = stateFile(name, 3)
    val json = Json.parse(new String(Files.readAllBytes(file.toPath), StandardCharsets.UTF_8)).asInstanceOf[ObjectNode]
    json.put("formatVersion", 99)
    Files.write(file.toPath, Json.write(json))
    val m = messages(intercept[Exception](rows(name)))
    assert(m.contains(s"$name/state/${file.getName} has formatVersion 99, but this sparkpersist reads formatVersion up to " +
      s"${ShardState.TablePropertiesFormatVersion}. " +
      "Upgrade sparkpersist to read this shard."), m)
  }

  /**
   * Shard `name` with the stats of batch 1's part (k in [3, 4], one null v) edited by `edit`, in
   * the JSON encoding state files held before binary stats (which readers still read); binary
   * stats are guarded by a checksum, which `CodecFuzz` damages.
   */
  private def withEditedStats(name: String)(edit: ObjectNode => Unit): Unit = {
    threeBatches(name)
    val schema = store.open(name).state.schema
    val file = stateFile(name, 2)
    val json = Json.parse(new String(Files.readAllBytes(file.toPath), StandardCharsets.UTF_8))
    val part = json.at("/batch/runs/0/0").asInstanceOf[ObjectNode]
    val stats = BinaryStatsCodec(schema).decode(part.remove("binStats").binaryValue())
    val legacy = Json.parse(LegacyStatsJson(schema).encode(stats)).asInstanceOf[ObjectNode]
    edit(legacy)
    part.set[ObjectNode]("stats", legacy)
    Files.write(file.toPath, Json.write(json))
  }

  test("stats of the wrong type, of the wrong shape or with impossible counts keep their part") {
    def columns(edit: ObjectNode => Unit): ObjectNode => Unit =
      s => Seq("1", "2").foreach(id => edit(s.`with`("columns").`with`(id)))
    // (damage, edit, parts kept by k = 1: 2 where the damage costs k's bounds)
    val edits: Seq[(String, ObjectNode => Unit, Int)] = Seq(
      ("type", columns(c => c.put("type", if (c.get("type").asText() == "bigint") "string" else "bigint")), 2),
      ("shape", columns(c => c.putObject("lower").put("x", 1)), 2),
      ("nested", columns(c => c.putObject("nested").putObject("array").put("count", 1)), 1),
      ("negative_nulls", columns(c => c.put("nulls", -1)), 2),
      ("too_many_nulls", columns(c => c.put("nulls", 3)), 2),
      ("rows", s => s.put("rows", 1), 2))
    edits.foreach { case (what, edit, keptByK1) =>
      val name = s"stats_$what"
      withEditedStats(name)(edit)
      val (k1, k1Reports) = inEveryMode(s"SELECT k, v FROM persist.$name WHERE k = 1")
      assert(k1 === Seq("[1,a]"), what)
      assert(k1Reports("on").map(_.metrics.partsKept) === Seq(keptByK1), what)
      // Damaged counts that claimed k all null, or v all null, would skip the part of (3, c).
      Seq(s"k >= 3 AND v IS NOT NULL" -> Seq("[3,c]", "[5,e]"), "v = 'c' OR v IS NULL" -> Seq("[3,c]", "[4,null]"))
        .foreach { case (filter, expected) =>
          assert(inEveryMode(s"SELECT k, v FROM persist.$name WHERE $filter")._1 === expected, s"$what: $filter")
        }
    }
  }
}

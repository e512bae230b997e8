package sparkpersist.reliability

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.compact.{GarbageCollector, GcSettings}
import sparkpersist.shard.{ShardFixtures, ShardStore}
import sparkpersist.shard.ShardFixtures.{hadoopConf, withTempDir}

/**
 * Hostile shard names cannot reach outside the root or onto another shard, and a root reached
 * through a symbolic link is the same root.
 */
class NamesSuite extends AnyFunSuite {

  // An absolute path or a URI ("/abs", "file:x") is no name but a location (a path table), and
  // "a.b" the shard b of namespace a: the suites of ShardLocations and namespaces cover them.
  private val hostile = Seq("..", ".", "../outside", "a/b", "a\\b", "..\\outside", "a\u0000b", "a%2Fb",
    "%2e%2e", "a%5Cb", "a b", "a..b", ".a", "a.", ".hidden", ".dropped-x", "\uff41dmin" /* fullwidth a */,
    "\u0435vents" /* Cyrillic e */, "events\u200b" /* zero-width space */, "e\u0301vents", "", "1st", "x" * 129)

  test("hostile shard names are refused by every operation before anything is touched") {
    withTempDir { dir =>
      val root = new File(dir, "root")
      Files.createDirectories(root.toPath)
      val store = new ShardStore(root.toURI.toString, hadoopConf)
      hostile.foreach { name =>
        val ops: Seq[(String, () => Any)] = Seq("create" -> (() => store.create(name, ShardFixtures.eventSchema)),
          "open" -> (() => store.open(name)), "exists" -> (() => store.exists(name)), "drop" -> (() => store.drop(name)))
        ops.foreach { case (op, f) =>
          val e = intercept[IllegalArgumentException](f())
          assert(e.getMessage.startsWith(s"[PERSIST_INVALID_NAME.SHARD] Invalid name: shard name '$name': ") &&
            e.getMessage.contains("A shard name must match [A-Za-z_][A-Za-z0-9_]{0,127}"), s"$op '$name'")
        }
      }
      assert(dir.list().toSeq === Seq("root") && root.list().isEmpty)
    }
  }

  test("names that differ only in case cannot both be created; reserved-looking names stay inside their directory") {
    withTempDir { dir =>
      val store = new ShardStore(dir.toURI.toString, hadoopConf)
      store.create("events", ShardFixtures.eventSchema)
      val e = intercept[IllegalArgumentException](store.create("Events", ShardFixtures.eventSchema))
      assert(e.getMessage.contains("it differs only in case from the existing shard 'events'"))
      // Words the layout uses are plain shard names, each in its own directory.
      Seq("state", "parts", "rollup", "CON", "NUL", "select", "_").foreach(n => store.create(n, ShardFixtures.eventSchema))
      assert(store.list() === Seq("CON", "NUL", "_", "events", "parts", "rollup", "select", "state"))
      assert(store.open("state").state.name === "state" && store.open("events").state.batches.isEmpty)
    }
  }

  test("a root reached through a symbolic link is the same root: commits, reads and garbage collection agree") {
    withTempDir { dir =>
      val real = new File(dir, "real")
      Files.createDirectories(real.toPath)
      val link = new File(dir, "link")
      Files.createSymbolicLink(link.toPath, real.toPath)
      val viaLink = new ShardStore(link.toURI.toString, hadoopConf)
      val shard = viaLink.create("s", ShardFixtures.eventSchema)
      val batch = ShardFixtures.eventBatch("b0", 0, 10, 2, new Random(1))
      batch.parts.foreach(p => touch(new File(link, s"s/${p.key}")))
      val orphan = new File(link, "s/parts/crashed/part-0.parquet")
      touch(orphan)
      shard.log.compareAndAppend(0, batch)
      val viaReal = new ShardStore(real.toURI.toString, hadoopConf).open("s")
      assert(viaReal.state.batches === Vector(batch))
      val gc = GarbageCollector.collect(shard, GcSettings(keepVersions = 1, graceMs = 0), System.currentTimeMillis() + 86400000L)
      assert(gc.partsDeleted === Seq("parts/crashed/part-0.parquet"))
      assert(!orphan.exists() && batch.parts.forall(p => new File(real, s"s/${p.key}").exists()))
      assert(ShardAudit.unreferencedParts(viaReal) === Nil)
    }
  }

  private def touch(f: File): Unit = {
    Files.createDirectories(f.getParentFile.toPath)
    Files.write(f.toPath, Array[Byte](1))
  }
}

package sparkpersist.shard

import java.io.File

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.ShardFixtures._

class ShardStoreSuite extends AnyFunSuite {

  private def withStore[T](f: (ShardStore, File) => T): T =
    withTempDir(dir => f(new ShardStore(dir.toURI.toString, hadoopConf), dir))

  test("create writes an empty version 0; open, exists, list and drop see the shard") {
    withStore { (store, dir) =>
      assert(store.list() === Nil)
      val h = store.create("events", eventSchema)
      store.create("_audit2", eventSchema)
      val s = h.state
      assert((s.name, s.since, s.upper, s.seqNo, s.batches, s.schema, s.formatVersion) ===
        ("events", 0L, 0L, 0L, Vector.empty, eventSchema, ShardState.FormatVersion))
      assert(new File(dir, "events/state/00000000000000000000.json").isFile)
      assert(store.exists("events") && !store.exists("other"))
      assert(store.list() === Seq("_audit2", "events"))
      val reopened = new ShardStore(dir.getPath, hadoopConf).open("events")
      assert(reopened.state === s)
      assert(store.drop("events"))
      assert(!store.drop("events"))
      assert(store.list() === Seq("_audit2"))
      assert(dir.list().toSeq === Seq("_audit2"))
    }
  }

  test("a store keeping shards open reuses their logs, sees other writers' commits, and opens a recreated shard anew") {
    withTempDir { dir =>
      val root = dir.toURI.toString
      val kept = new ShardStore(root, hadoopConf, openShards = 2)
      val writer = new ShardStore(root, hadoopConf)
      val rnd = new scala.util.Random(3)
      def append(h: ShardHandle, n: Int): Unit = (0 until n).foreach { _ =>
        val upper = h.state.upper
        h.log.compareAndAppend(upper, eventBatch(s"b$upper", upper, upper + 10, 1, rnd))
      }
      val first = writer.create("events", eventSchema)
      append(first, 3)
      val opened = kept.open("events")
      assert(opened.state.seqNo === 3)
      assert(kept.open("events").log eq opened.log)
      // Another store's commits are read by the kept log (only the versions after its state).
      append(first, 2)
      assert(kept.open("events").state.seqNo === 5 && kept.open("events").state === first.state)
      // Dropped and created again elsewhere, with more versions than the kept state: a new shard.
      val oldId = opened.state.shardId
      Thread.sleep(5) // a new version 0 (its modification time, in ms on the local file system)
      assert(writer.drop("events"))
      val again = writer.create("events", eventSchema)
      append(again, 7)
      val reopened = kept.open("events")
      assert(!(reopened.log eq opened.log))
      assert(reopened.state.shardId === again.state.shardId && reopened.state.shardId != oldId)
      assert(reopened.state.seqNo === 7 && reopened.state.batches.map(_.id) === again.state.batches.map(_.id))
      // At most two kept: opening a third shard forgets the least recently opened one.
      writer.create("a", eventSchema)
      writer.create("b", eventSchema)
      val a = kept.open("a").log
      kept.open("events")
      kept.open("b")
      assert(kept.open("events").log eq reopened.log)
      assert(!(kept.open("a").log eq a))
      // A store that keeps none opens anew every time; a drop through the keeping store forgets it.
      assert(!(writer.open("events").log eq writer.open("events").log))
      assert(kept.drop("events"))
      intercept[NoSuchShard](kept.open("events"))
    }
  }

  test("dropIfUnwritten undoes a bare creation but keeps a shard another writer committed to") {
    withStore { (store, _) =>
      store.create("fresh", eventSchema)
      assert(store.dropIfUnwritten("fresh") && !store.exists("fresh"))
      val used = store.create("used", eventSchema)
      used.log.compareAndAppend(0L, eventBatch("b1", 0L, 10L, 1, new scala.util.Random(1)))
      assert(!store.dropIfUnwritten("used"))
      assert(store.open("used").state.batches.map(_.id) === Seq("b1"))
      assert(!store.dropIfUnwritten("never_created"))
    }
  }

  test("a list of a root that does not exist yet is empty; create makes it") {
    withTempDir { dir =>
      val store = new ShardStore(new File(dir, "nested/root").toURI.toString, hadoopConf)
      assert(store.list() === Nil)
      store.create("t", eventSchema)
      assert(store.list() === Seq("t"))
    }
  }

  test("creating an existing shard fails and leaves it untouched") {
    withStore { (store, _) =>
      val first = store.create("events", eventSchema)
      val e = intercept[ShardAlreadyExists](store.create("events", ShardSchema(Vector.empty, Nil)))
      assert(e.getMessage === s"[PERSIST_SHARD_EXISTS] Shard 'events' already exists under ${new Path(store.root).toString.stripSuffix("/")}. " +
        "Open it to append to it, or drop it first to re-create it with a new schema. SQLSTATE: 42P07")
      assert(store.open("events").state.schema === eventSchema)
      assert(store.open("events").state.shardId === first.state.shardId)
    }
  }

  test("opening a missing shard lists the existing ones and suggests a case-insensitive match") {
    withStore { (store, _) =>
      val root = new Path(store.root).toString.stripSuffix("/")
      val e1 = intercept[NoSuchShard](store.open("events"))
      assert(e1.getMessage === s"[PERSIST_SHARD_NOT_FOUND] Shard 'events' does not exist under $root (existing shards: none). " +
        "Create it first, or check the root directory and the name. SQLSTATE: 42P01")
      store.create("Events", eventSchema)
      store.create("clicks", eventSchema)
      val e2 = intercept[NoSuchShard](store.open("events"))
      assert(e2.getMessage === s"[PERSIST_SHARD_NOT_FOUND] Shard 'events' does not exist under $root (existing shards: Events, clicks). " +
        "Did you mean 'Events'? (names are case-sensitive) Create it first, or check the root directory and the name. SQLSTATE: 42P01")
      assert(e2.existing === Seq("Events", "clicks"))
    }
  }

  test("bad shard names are refused with the rule and the reason") {
    val rule = "A shard name must match [A-Za-z_][A-Za-z0-9_]{0,127}: a letter or '_', then up to 127 " +
      "letters, digits or '_'."
    val cases = Seq(
      "" -> "it is empty",
      "a/b" -> "character '/' at position 1 is not allowed",
      "../x" -> "character '.' at position 0 is not allowed",
      "my shard" -> "character ' ' at position 2 is not allowed",
      "1abc" -> "it starts with a digit",
      "café" -> "character 'é' at position 3 is not allowed",
      ("x" * 129) -> "it is 129 characters long, the limit is 128")
    withStore { (store, _) =>
      cases.foreach { case (name, why) =>
        val expected = s"[PERSIST_INVALID_NAME.SHARD] Invalid name: shard name '$name': $why. $rule SQLSTATE: 42602"
        assert(intercept[IllegalArgumentException](ShardStore.validateName(name)).getMessage === expected)
        assert(intercept[IllegalArgumentException](store.create(name, eventSchema)).getMessage === expected)
        assert(intercept[IllegalArgumentException](store.open(name)).getMessage === expected)
        assert(intercept[IllegalArgumentException](store.exists(name)).getMessage === expected)
      }
      ShardStore.validateName("x" * 128)
      ShardStore.validateName("_")
      assert(store.list() === Nil)
    }
  }

  test("part paths live under parts/<batch>/, and keys are relative to the shard directory") {
    withStore { (store, dir) =>
      val h = store.create("events", eventSchema)
      val p1 = h.newPartPath("b-1")
      val p2 = h.newPartPath("b-1")
      assert(p1 != p2)
      val key = h.relativeKey(p1)
      assert(key.matches("parts/b-1/[0-9a-f-]{36}\\.parquet"), key)
      val part = PartMeta(key, 1, 1, 0, 0, hasRetractions = false, None)
      assert(h.partPath(part) === p1)
      assert(new File(new File(dir, "events"), key).toURI.getPath === p1.toUri.getPath)
      // An unqualified path to the same file gives the same key.
      assert(h.relativeKey(new Path(p1.toUri.getPath)) === key)

      val outside = new Path(new File(dir, "other/x.parquet").toURI)
      assert(intercept[IllegalArgumentException](h.relativeKey(outside)).getMessage ===
        s"Path $outside is not under the directory ${h.partPath(part).getParent.getParent.getParent} of shard 'events'.")
      assert(intercept[IllegalArgumentException](h.newPartPath("../x")).getMessage ===
        "Invalid batch id '../x' for shard 'events': a batch id is a single path segment of letters, " +
          "digits, '_', '-' or '.', not starting with '.' (e.g. a UUID).")
      Seq("/abs/x.parquet", "parts/../../x", "file:/x", "").foreach { bad =>
        assert(intercept[IllegalArgumentException](h.partPath(part.copy(key = bad))).getMessage ===
          s"Part key '$bad' of shard 'events' is not a plain path relative to the shard directory.")
        assert(intercept[IllegalArgumentException](h.partUri(part.copy(key = bad))).getMessage ===
          s"Part key '$bad' of shard 'events' is not a plain path relative to the shard directory.")
      }
    }
  }

  test("a part's URI is its path's, for the keys writers make and for keys that need escaping") {
    withTempDir { base =>
      // A root whose own path needs escaping too.
      val dir = new File(base, "a root %20 é")
      val h = new ShardStore(dir.toURI.toString, hadoopConf).create("events", eventSchema)
      val rnd = new scala.util.Random(7)
      val chars = "abcXYZ019_.-/ %é+#?"
      val keys = Seq(h.relativeKey(h.newPartPath("b-1")), "parts/b.1/x-y_z.parquet", "parts/a b/c%20d.parquet",
        "parts/ü/x+y.parquet") ++ Seq.fill(300)(Seq.fill(1 + rnd.nextInt(12))(chars(rnd.nextInt(chars.length))).mkString)
      val valid = keys.map(k => PartMeta(k, 1, 1, 0, 0, hasRetractions = false, None))
        .filter(p => scala.util.Try(h.partPath(p)).isSuccess)
      assert(valid.size > 100)
      valid.foreach(p => assert(h.partUri(p) === h.partPath(p).toUri.toString, p.key))
    }
  }
}

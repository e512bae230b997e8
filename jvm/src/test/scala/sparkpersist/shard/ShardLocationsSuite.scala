package sparkpersist.shard

import java.io.File

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.shard.ShardFixtures._

class ShardLocationsSuite extends AnyFunSuite {

  test("a shard at any directory: create, exists, open, commit, drop; the last segment may be any name") {
    withTempDir { tmp =>
      val shards = new ShardLocations(hadoopConf)
      val dir = new Path(new File(tmp, "data/my table-1.v2").toURI)
      assert(!shards.exists(dir))
      val created = shards.create(dir, eventSchema)
      val uri = shards.qualified(dir).toString
      assert(created.name === uri && created.state.name === uri && created.state.seqNo === 0L)
      assert(new File(tmp, "data/my table-1.v2/state/00000000000000000000.json").isFile)
      // The same directory named without a scheme is the same shard.
      val plain = new Path(new File(tmp, "data/my table-1.v2").getPath)
      assert(shards.exists(plain))
      created.log.compareAndAppend(0L, eventBatch("b1", 0L, 10L, 1, new scala.util.Random(1)))
      assert(shards.open(plain).state.batches.map(_.id) === Seq("b1"))
      assert(!shards.dropIfUnwritten(dir))
      assert(shards.drop(dir) && !shards.exists(dir) && !shards.drop(dir))
      assert(new File(tmp, "data").list().toSeq === Nil)
    }
  }

  test("creating where a shard is fails and leaves it; opening where none is says so") {
    withTempDir { tmp =>
      val shards = new ShardLocations(hadoopConf)
      val dir = new Path(new File(tmp, "t").toURI)
      val uri = shards.qualified(dir).toString
      val first = shards.create(dir, eventSchema)
      val e = intercept[ShardAlreadyExists](shards.create(dir, eventSchema))
      assert(e.getMessage === s"[PERSIST_SHARD_EXISTS] Shard '$uri' already exists under " +
        s"${shards.qualified(new Path(tmp.getPath))}. Open it to append to it, or drop it first to re-create it with a " +
        "new schema. SQLSTATE: 42P07")
      assert(shards.open(dir).state.shardId === first.state.shardId)
      val missing = new Path(new File(tmp, "none").toURI)
      val n = intercept[NoSuchShard](shards.open(missing))
      assert(n.getMessage === s"[PERSIST_SHARD_NOT_FOUND_AT] There is no shard at ${shards.qualified(missing)} (no " +
        "state/00000000000000000000.json under it). Create one there first, or check the path. SQLSTATE: 42P01")
      assert(n.existing === Nil)
      assert(shards.dropIfUnwritten(dir) && !shards.exists(dir))
      // A directory holding other files is no place for a shard, whose drop deletes its directory.
      val occupied = new File(tmp, "occupied")
      assert(new File(occupied, "data").mkdirs())
      val taken = intercept[IllegalArgumentException](shards.create(new Path(occupied.toURI), eventSchema))
      assert(taken.getMessage === s"[PERSIST_LOCATION_NOT_EMPTY] Cannot create a shard at " +
        s"${shards.qualified(new Path(occupied.getPath))}: the directory holds other files. Dropping the shard would " +
        "delete them with its directory: choose a new or empty directory. SQLSTATE: 42K04")
      assert(occupied.list().toSeq === Seq("data"))
      assert(new File(tmp, "empty").mkdirs())
      shards.create(new Path(new File(tmp, "empty").toURI), eventSchema)
    }
  }

  test("a store's named shards and its locations share one cache of open shards; a drop forgets it") {
    withTempDir { tmp =>
      val store = new ShardStore(tmp.toURI.toString, hadoopConf, openShards = 4)
      store.create("events", eventSchema)
      val byName = store.open("events")
      val dir = new Path(tmp.toURI.resolve("events"))
      assert(store.locations.open(dir).log eq byName.log)
      val elsewhere = new Path(new File(tmp, "elsewhere/x").toURI)
      store.locations.create(elsewhere, eventSchema)
      val opened = store.locations.open(elsewhere)
      assert(store.locations.open(elsewhere).log eq opened.log)
      assert(store.locations.drop(elsewhere))
      intercept[NoSuchShard](store.locations.open(elsewhere))
      assert(store.list() === Seq("events"))
    }
  }
}

class ShardStoreNamespacesSuite extends AnyFunSuite {

  test("namespaces: nested directories with their properties; shards named <namespace>.<name>; drop restrict and cascade") {
    withTempDir { tmp =>
      val store = new ShardStore(tmp.toURI.toString, hadoopConf)
      assert(store.namespaceExists(Nil) && !store.namespaceExists(Seq("sales")))
      store.createNamespace(Seq("sales"), Map("comment" -> "orders: the = and : kept"))
      store.createNamespace(Seq("sales", "eu"), Map.empty)
      intercept[NamespaceAlreadyExists](store.createNamespace(Seq("sales"), Map.empty))
      val orphan = intercept[NoSuchNamespace](store.createNamespace(Seq("nope", "x"), Map.empty))
      assert(orphan.getMessage === s"[PERSIST_NAMESPACE_NOT_FOUND] Namespace 'nope' does not exist under " +
        s"${store.dirOf("x").getParent}. Create it first (CREATE NAMESPACE persist.nope), or check the name. SQLSTATE: 42704")
      assert(store.namespaceProperties(Seq("sales")) === Map("comment" -> "orders: the = and : kept"))
      assert(store.listNamespaces(Nil) === Seq(Seq("sales")) && store.listNamespaces(Seq("sales")) === Seq(Seq("sales", "eu")))
      store.create("sales.orders", eventSchema)
      store.create("sales.eu.orders", eventSchema)
      assert(new File(tmp, "sales/eu/orders/state/00000000000000000000.json").isFile)
      assert(store.list() === Nil && store.list(Seq("sales")) === Seq("orders"))
      assert(store.open("sales.eu.orders").name === "sales.eu.orders")
      intercept[NoSuchNamespace](store.create("other.orders", eventSchema))
      val missing = intercept[NoSuchShard](store.open("sales.nope"))
      assert(missing.existing === Seq("sales.orders"))
      // A name is a shard's or a namespace's, never both.
      store.create("events", eventSchema)
      assert(intercept[IllegalArgumentException](store.createNamespace(Seq("events"), Map.empty)).getMessage
        .startsWith("[PERSIST_NAME_TAKEN.BY_SHARD] Cannot create namespace 'events': a shard of that name exists"))
      assert(intercept[IllegalArgumentException](store.create("sales.eu", eventSchema)).getMessage
        .startsWith("[PERSIST_NAME_TAKEN.BY_NAMESPACE] Cannot create shard 'sales.eu': a namespace of that name exists"))
      val restrict = intercept[NamespaceNotEmpty](store.dropNamespace(Seq("sales"), cascade = false))
      assert(restrict.getMessage === "[PERSIST_NAMESPACE_NOT_EMPTY] Namespace 'sales' is not empty (shards: " +
        "sales.orders; namespaces: sales.eu). Drop them first, or drop it with CASCADE to drop every shard in it. " +
        "SQLSTATE: 2BP01")
      assert(store.exists("sales.eu.orders"))
      assert(store.dropNamespace(Seq("sales"), cascade = true))
      assert(!store.dropNamespace(Seq("sales"), cascade = true))
      assert(tmp.list().toSeq === Seq("events"))
    }
  }

  test("dotted names are checked part by part") {
    val rule = "A shard name must match [A-Za-z_][A-Za-z0-9_]{0,127}: a letter or '_', then up to 127 letters, digits or '_'."
    Seq("sales..orders" -> "character '.' at position 6 is not allowed",
      "sales.orders." -> "character '.' at position 12 is not allowed",
      "sales.1x" -> "it starts with a digit",
      "sales.or-ders" -> "character '-' at position 8 is not allowed").foreach { case (name, why) =>
      assert(intercept[IllegalArgumentException](ShardStore.validateQualifiedName(name)).getMessage ===
        s"[PERSIST_INVALID_NAME.SHARD] Invalid name: shard name '$name': $why. $rule SQLSTATE: 42602")
    }
    assert(ShardStore.isLocation("/data/t") && ShardStore.isLocation("s3a://b/t") && ShardStore.isLocation("file:/t"))
    assert(!ShardStore.isLocation("sales.orders") && !ShardStore.isLocation("events"))
  }

  test("rename moves a shard's directory, across namespaces and to a path; it refuses a taken name and non-atomic stores") {
    withTempDir { tmp =>
      val store = new ShardStore(new File(tmp, "root").toURI.toString, hadoopConf, openShards = 4)
      val h = store.create("h", eventSchema)
      h.log.compareAndAppend(0L, eventBatch("b1", 0L, 10L, 1, new scala.util.Random(1)))
      store.open("h")
      store.createNamespace(Seq("archive"), Map.empty)
      store.rename("h", "archive.h2")
      assert(!store.exists("h") && store.open("archive.h2").state.batches.map(_.id) === Seq("b1"))
      val elsewhere = new File(tmp, "elsewhere/h3").toURI.toString
      store.rename("archive.h2", elsewhere)
      assert(store.open(elsewhere).state.batches.map(_.id) === Seq("b1"))
      store.create("taken", eventSchema)
      intercept[ShardAlreadyExists](store.rename(elsewhere, "taken"))
      intercept[NoSuchShard](store.rename("gone", "other"))
      assert(ShardLocations.atomicRename("file", hadoopConf) && ShardLocations.atomicRename("hdfs", hadoopConf))
      assert(!ShardLocations.atomicRename("s3a", hadoopConf) && !ShardLocations.atomicRename("gs", hadoopConf))
    }
  }
}

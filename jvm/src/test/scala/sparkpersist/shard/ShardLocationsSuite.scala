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
      assert(e.getMessage === s"Shard '$uri' already exists under ${shards.qualified(new Path(tmp.getPath))}. " +
        "Open it to append to it, or drop it first to re-create it with a new schema.")
      assert(shards.open(dir).state.shardId === first.state.shardId)
      val missing = new Path(new File(tmp, "none").toURI)
      val n = intercept[NoSuchShard](shards.open(missing))
      assert(n.getMessage === s"There is no shard at ${shards.qualified(missing)} (no state/00000000000000000000.json " +
        "under it). Create one there first, or check the path.")
      assert(n.existing === Nil)
      assert(shards.dropIfUnwritten(dir) && !shards.exists(dir))
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

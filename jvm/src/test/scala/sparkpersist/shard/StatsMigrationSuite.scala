package sparkpersist.shard

import scala.jdk.CollectionConverters._
import scala.util.Random

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.codec.Json
import sparkpersist.shard.ShardFixtures._
import sparkpersist.stats.legacy.LegacyStatsJson

/**
 * The move of part stats from JSON to the binary encoding (seed 002's dual-format rule): state
 * is written with binary stats (`binStats`), and state written before, with JSON stats
 * (`stats`), still opens with the same stats, in the same file as binary ones.
 */
class StatsMigrationSuite extends AnyFunSuite {

  private val state = ShardState("events", "id-1", ShardState.FormatVersion, eventSchema, since = 0,
    upper = 3000, seqNo = 7, batches = Vector(eventBatch("b1", 0, 1000, 3, new Random(1)),
      eventBatch("b2", 1000, 3000, 2, new Random(2))))

  private def parts(node: JsonNode): Seq[ObjectNode] =
    node.get("state").get("batches").elements().asScala.flatMap(_.get("runs").elements().asScala)
      .flatMap(_.elements().asScala).map(_.asInstanceOf[ObjectNode]).toSeq

  /** A rollup as the JSON-stats release wrote it: `stats` objects in place of `binStats`, in `parts`. */
  private def withJsonStats(pick: Int => Boolean): Array[Byte] = {
    val node = Json.mapper.readTree(StateCodec.encodeJsonRollup(state))
    val codec = LegacyStatsJson(eventSchema)
    parts(node).zip(state.batches.flatMap(_.runs.flatMap(_.parts))).zipWithIndex.foreach { case ((p, meta), i) =>
      if (pick(i)) {
        p.remove("binStats")
        p.set[JsonNode]("stats", codec.toJson(meta.stats.get))
      }
    }
    Json.write(node)
  }

  test("state is written with binary stats only") {
    val node = Json.mapper.readTree(StateCodec.encodeJsonRollup(state))
    assert(parts(node).size === 5)
    parts(node).foreach { p =>
      assert(p.has("binStats") && !p.has("stats"))
      assert(p.get("binStats").isTextual)
    }
    assert(StateCodec.decodeRollup("r", StateCodec.encodeRollup(state), 7) === state)
  }

  test("state with JSON stats opens with the same stats, alone or mixed with binary stats") {
    assert(StateCodec.decodeRollup("r", withJsonStats(_ => true), 7) === state)
    assert(StateCodec.decodeRollup("r", withJsonStats(_ % 2 == 0), 7) === state)
  }

  test("an append version with JSON stats opens") {
    val diff = Json.mapper.readTree(StateCodec.encodeDiff(8, AppendBatch(state.batches.head), eventSchema))
    val codec = LegacyStatsJson(eventSchema)
    diff.get("batch").get("runs").get(0).elements().asScala.zip(state.batches.head.runs.head.parts.iterator).foreach {
      case (p: ObjectNode, meta) =>
        p.remove("binStats")
        p.set[JsonNode]("stats", codec.toJson(meta.stats.get))
      case (other, _) => fail(s"a part is an object, got $other")
    }
    assert(StateCodec.decodeDiff("v", Json.write(diff), 8, Some(eventSchema)) === AppendBatch(state.batches.head))
  }

  test("damaged binary stats cost that part its stats, never the state or a wrong bound") {
    val node = Json.mapper.readTree(StateCodec.encodeJsonRollup(state))
    val damaged = parts(node)(1)
    val bytes = damaged.get("binStats").binaryValue()
    bytes(bytes.length / 2) = (bytes(bytes.length / 2) ^ 0x10).toByte
    damaged.put("binStats", bytes)
    parts(node)(3).put("binStats", "not base64 at all!")
    val read = StateCodec.decodeRollup("r", Json.write(node), 7)
    val expected = state.batches.flatMap(_.runs.flatMap(_.parts)).zipWithIndex.map { case (p, i) =>
      if (i == 1 || i == 3) p.copy(stats = None) else p
    }
    assert(read.batches.flatMap(_.runs.flatMap(_.parts)) === expected)
  }
}

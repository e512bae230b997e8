package sparkpersist.stream

import org.apache.spark.sql.connector.read.streaming.Offset

import sparkpersist.codec.{Json, JsonReader}

/**
 * How far a streaming read of a shard has got: every update with time < `upper` has been
 * emitted. `None` before the first micro-batch, which reads the snapshot as of the starting
 * as-of and ends at `asOf + 1`. `shardId` ties the offset to one shard, so a checkpoint is never
 * resumed against a shard dropped and created again under the same name.
 *
 * JSON: `{"shardId":"…","upper":42}` (`upper` absent before the snapshot).
 */
final case class ShardOffset(shardId: String, upper: Option[Long]) extends Offset {
  override def json(): String = {
    val node = Json.obj().put("shardId", shardId)
    upper.foreach(node.put("upper", _))
    new String(Json.write(node), java.nio.charset.StandardCharsets.UTF_8)
  }

  /** The as-of of the micro-batch that ends at this offset: `upper - 1`. */
  def asOf: Long = upper.getOrElse(throw new IllegalStateException("no upper before the snapshot")) - 1
}

object ShardOffset {
  def fromJson(json: String): ShardOffset =
    JsonReader.read(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)) { r =>
      var shardId: Option[String] = None
      var upper: Option[Long] = None
      r.readObject("a shard offset") {
        case "shardId" => shardId = Some(r.string("shardId"))
        case "upper" => upper = Some(r.long("upper"))
        case _ => r.skip()
      }
      ShardOffset(JsonReader.required(shardId, "shardId"), upper)
    }
}

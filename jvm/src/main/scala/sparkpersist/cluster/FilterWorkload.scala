package sparkpersist.cluster

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.slf4j.LoggerFactory

import sparkpersist.codec.{Json, JsonReader}
import sparkpersist.shard.ShardHandle

/** What the scans whose filters constrained one column read: how many scans, of how many parts, read how many. */
final case class ColumnUse(scans: Long, partsTotal: Long, partsRead: Long) {
  def +(o: ColumnUse): ColumnUse = ColumnUse(scans + o.scans, partsTotal + o.partsTotal, partsRead + o.partsRead)
}

/**
 * The evidence automatic clustering chooses from ([[AutoClustering]]): per shard and column, what
 * the scans whose filters constrained the column read. Each process sums its scans in memory (a
 * few counters per column: bounded by the shard's columns, whatever the number of queries). For a
 * shard clustered `auto`, the process also keeps its sums in a file of its own under the shard's
 * `workload/` directory, rewritten at most every [[FlushEveryMs]]; a lost file loses evidence,
 * never data. [[evidence]] sums the files younger than the age limit (older ones are deleted) and
 * this process's sums. Recording never fails a query.
 */
object FilterWorkload {
  private val log = LoggerFactory.getLogger(getClass)

  /** The directory under a shard holding the processes' files. */
  val Dir = "workload"

  /** How often a process rewrites its file of a shard, at most. */
  val FlushEveryMs = 30000L

  private val process = UUID.randomUUID().toString

  private final class Sums {
    var byColumn = Map.empty[Int, ColumnUse]
    var flushedMs = 0L
  }

  private val sums = new ConcurrentHashMap[String, Sums]()

  private def key(shard: ShardHandle): String = shard.fs.makeQualified(shard.dir).toString

  /**
   * Records one scan of `shard` whose filter constrained the columns `columnIds`; keeps this
   * process's sums in its file when `durable` (the shard is clustered `auto`).
   */
  def record(shard: ShardHandle, columnIds: Set[Int], partsTotal: Long, partsRead: Long, durable: Boolean): Unit =
    if (columnIds.nonEmpty) {
      try {
        val s = sums.computeIfAbsent(key(shard), _ => new Sums)
        val flush = s.synchronized {
          val use = ColumnUse(1, partsTotal, partsRead)
          s.byColumn = columnIds.foldLeft(s.byColumn)((m, id) => m.updated(id, m.get(id).fold(use)(_ + use)))
          val now = System.currentTimeMillis()
          val due = durable && now - s.flushedMs >= FlushEveryMs
          if (due) s.flushedMs = now
          if (due) Some(s.byColumn) else None
        }
        flush.foreach(write(shard, _))
      } catch {
        case NonFatal(e) => log.debug(s"Shard '${shard.name}': workload not recorded", e)
      }
    }

  /** Writes this process's sums now (a compaction does, so the evidence it chose from outlives the process). */
  def flush(shard: ShardHandle): Unit =
    Option(sums.get(key(shard))).map(s => s.synchronized(s.byColumn)).filter(_.nonEmpty).foreach(write(shard, _))

  /** Per column id, what the scans of every process recorded in the last `maxAgeMs`, this process's included. */
  def evidence(shard: ShardHandle, maxAgeMs: Long): Map[Int, ColumnUse] = {
    val now = System.currentTimeMillis()
    val dir = new Path(shard.dir, Dir)
    val files = try {
      if (shard.fs.exists(dir)) shard.fs.listStatus(dir).toSeq.filter(_.getPath.getName.endsWith(".json")) else Nil
    } catch { case NonFatal(_) => Nil }
    val (fresh, stale) = files.partition(f => now - f.getModificationTime <= maxAgeMs)
    stale.foreach(f => try shard.fs.delete(f.getPath, false) catch { case NonFatal(_) => () })
    val others = fresh.filterNot(_.getPath.getName == s"$process.json").flatMap(f => read(shard, f.getPath))
    val own = Option(sums.get(key(shard))).map(s => s.synchronized(s.byColumn)).getOrElse(Map.empty)
    (others :+ own).foldLeft(Map.empty[Int, ColumnUse]) { (acc, m) =>
      m.foldLeft(acc) { case (a, (id, use)) => a.updated(id, a.get(id).fold(use)(_ + use)) }
    }
  }

  private def write(shard: ShardHandle, byColumn: Map[Int, ColumnUse]): Unit =
    try {
      val node = Json.obj().put("process", process).put("writtenMs", System.currentTimeMillis())
      val columns = node.putArray("columns")
      byColumn.toSeq.sortBy(_._1).foreach { case (id, u) =>
        columns.addObject().put("id", id).put("scans", u.scans).put("partsTotal", u.partsTotal).put("partsRead", u.partsRead)
      }
      val dir = new Path(shard.dir, Dir)
      val tmp = new Path(dir, s".$process.json.tmp")
      val out = shard.fs.create(tmp, true)
      try out.write(Json.write(node)) finally out.close()
      val target = new Path(dir, s"$process.json")
      shard.fs.delete(target, false)
      shard.fs.rename(tmp, target)
    } catch {
      case NonFatal(e) => log.debug(s"Shard '${shard.name}': workload not written", e)
    }

  private def read(shard: ShardHandle, file: Path): Option[Map[Int, ColumnUse]] =
    try {
      val in = shard.fs.open(file)
      val bytes = try in.readAllBytes() finally in.close()
      Some(JsonReader.read(bytes) { r =>
        var columns = Vector.empty[(Int, ColumnUse)]
        r.readObject("workload") {
          case "columns" => columns = r.readArray("columns") {
            var id, scans, total, read = 0L
            r.readObject("column") {
              case "id" => id = r.long("id")
              case "scans" => scans = r.long("scans")
              case "partsTotal" => total = r.long("partsTotal")
              case "partsRead" => read = r.long("partsRead")
              case _ => r.skip()
            }
            id.toInt -> ColumnUse(scans, total, read)
          }
          case _ => r.skip()
        }
        columns.toMap
      })
    } catch {
      case NonFatal(e) =>
        log.debug(s"Shard '${shard.name}': unreadable workload file $file skipped", e)
        None
    }
}

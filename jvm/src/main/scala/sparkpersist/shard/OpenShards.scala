package sparkpersist.shard

import org.apache.hadoop.fs.{EtagSource, FileStatus}

/**
 * The shards a [[ShardStore]] keeps open between `open` calls, the most recently opened first:
 * a kept handle's log caches the newest state it read, so a query on it reads only the state
 * versions committed since (a listing and a read or two) instead of the newest rollup and the
 * versions after it. A handle is kept while its shard's version 0 is the file it was opened on
 * ([[OpenShards.created]]), so a shard dropped and created again under the same name is opened
 * anew; the least recently opened handle goes past `capacity`.
 * Thread-safe.
 */
private[shard] final class OpenShards(capacity: Int) {

  import OpenShards.Created

  private val kept = new java.util.LinkedHashMap[String, (Created, ShardHandle)](16, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[String, (Created, ShardHandle)]): Boolean =
      size() > capacity
  }

  /** The handle kept for shard `name` created as `created`, else `open`'s, kept from now on. */
  def apply(name: String, created: Created)(open: => ShardHandle): ShardHandle =
    if (capacity <= 0) open
    else synchronized {
      Option(kept.get(name)).collect { case (c, handle) if c == created => handle }.getOrElse {
        val handle = open
        kept.put(name, created -> handle)
        handle
      }
    }

  /** Forgets shard `name` (dropped). */
  def remove(name: String): Unit = synchronized { kept.remove(name) }
}

private[shard] object OpenShards {

  /** What identifies one creation of a shard: its version 0's modification time, length and, where the store has one, entity tag. */
  type Created = (Long, Long, String)

  /**
   * The creation `versionZero` (the status of a shard's version 0) records. Its entity tag (S3,
   * ABFS), which changes with the content (each creation writes a new shard id), tells two
   * creations apart even within one tick of the store's modification times (a second on S3).
   */
  def created(versionZero: FileStatus): Created = (versionZero.getModificationTime, versionZero.getLen,
    versionZero match {
      case e: EtagSource => e.getEtag
      case _ => null
    })
}

package sparkpersist.isolation

import sparkpersist.errors.{PersistError, PersistThrowable}

/**
 * A statement (`DELETE`, `UPDATE`, `MERGE`, an overwrite) conflicts with a commit that landed
 * after its read (`reason` names it and says why); nothing was written.
 */
final class ConcurrentShardUpdate(val shard: String, val statement: String, reason: String)
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_CONCURRENT_SHARD_UPDATE", "statement" -> statement,
    "shard" -> shard, "reason" -> reason)
}

package sparkpersist.isolation

/**
 * A statement (`DELETE`, `UPDATE`, `MERGE`, an overwrite) conflicts with a commit that landed
 * after its read (`reason` names it and says why); nothing was written.
 */
final class ConcurrentShardUpdate(val shard: String, val statement: String, reason: String)
  extends IllegalStateException(s"$statement on shard '$shard' conflicted with a concurrent commit: $reason. " +
    "Nothing was written; run the statement again to apply it to the shard as it is now.")

package sparkpersist.shard

import sparkpersist.errors.{PersistError, PersistThrowable}

/**
 * No shard of this name exists under the store's root, or (`located`) no shard is at the location
 * `shard` names (`root` is then its parent and `existing` empty).
 */
final class NoSuchShard(val shard: String, val root: String, val existing: Seq[String], located: Boolean = false)
  extends NoSuchElementException with PersistThrowable {
  override def error: PersistError =
    if (located) PersistError("PERSIST_SHARD_NOT_FOUND_AT", "path" -> shard,
      "state" -> s"${ShardStore.StateDir}/${FsStateLog.versionName(0)}")
    else PersistError("PERSIST_SHARD_NOT_FOUND", "shard" -> shard, "root" -> root,
      "existing" -> (if (existing.isEmpty) "none" else existing.mkString(", ")),
      "hint" -> existing.find(_.equalsIgnoreCase(shard)).fold("")(n => s" Did you mean '$n'? (names are case-sensitive)"))
}

/** `create` named a shard that already exists. Nothing was written. */
final class ShardAlreadyExists(val shard: String, val root: String) extends IllegalStateException with PersistThrowable {
  override def error: PersistError = PersistError("PERSIST_SHARD_EXISTS", "shard" -> shard, "root" -> root)
}

/** A state file was written by a newer sparkpersist than this one. */
final class UnsupportedStateFormat(val file: String, val found: Int, val supported: Int)
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError =
    PersistError("PERSIST_UNSUPPORTED_FORMAT.STATE", "file" -> file, "found" -> found, "supported" -> supported)
}

/**
 * A state file that exists but cannot be decoded. State files become visible atomically and
 * complete, so this means the file was damaged afterwards.
 */
final class CorruptState(val shard: String, val file: String, cause: Throwable)
  extends IllegalStateException(cause) with PersistThrowable {
  override def error: PersistError =
    PersistError("PERSIST_CORRUPT_STATE", "shard" -> shard, "file" -> file, "cause" -> cause.getMessage)
}

/** A namespace of a [[ShardStore]] (a nested directory under its root) does not exist. */
final class NoSuchNamespace(val namespace: Seq[String], val root: String)
  extends NoSuchElementException with PersistThrowable {
  override def error: PersistError =
    PersistError("PERSIST_NAMESPACE_NOT_FOUND", "namespace" -> namespace.mkString("."), "root" -> root)
}

/** `createNamespace` named a namespace that exists. Nothing was written. */
final class NamespaceAlreadyExists(val namespace: Seq[String], val root: String)
  extends IllegalStateException with PersistThrowable {
  override def error: PersistError =
    PersistError("PERSIST_NAMESPACE_EXISTS", "namespace" -> namespace.mkString("."), "root" -> root)
}

/** A namespace holding shards or namespaces was dropped without cascade. Nothing was dropped. */
final class NamespaceNotEmpty(val namespace: Seq[String], val shards: Seq[String], val namespaces: Seq[String])
  extends IllegalStateException with PersistThrowable {
  private def listed(names: Seq[String]): String = if (names.isEmpty) "none" else names.mkString(", ")
  override def error: PersistError = PersistError("PERSIST_NAMESPACE_NOT_EMPTY",
    "namespace" -> namespace.mkString("."), "shards" -> listed(shards), "namespaces" -> listed(namespaces))
}

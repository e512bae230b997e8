package sparkpersist.shard

/** No shard of this name exists under the store's root (or at a location: `existing` is then empty). */
final class NoSuchShard(val shard: String, val root: String, val existing: Seq[String], message: String)
  extends NoSuchElementException(message) {
  def this(shard: String, root: String, existing: Seq[String]) =
    this(shard, root, existing, NoSuchShard.message(shard, root, existing))
}

private object NoSuchShard {
  def message(shard: String, root: String, existing: Seq[String]): String = {
    val listed = if (existing.isEmpty) "none" else existing.mkString(", ")
    val hint = existing.find(_.equalsIgnoreCase(shard)).map(n => s" Did you mean '$n'? (names are case-sensitive)")
    s"Shard '$shard' does not exist under $root (existing shards: $listed).${hint.getOrElse("")} " +
      "Create it first, or check the root directory and the name."
  }
}

/** `create` named a shard that already exists. Nothing was written. */
final class ShardAlreadyExists(val shard: String, val root: String)
  extends IllegalStateException(
    s"Shard '$shard' already exists under $root. Open it to append to it, or drop it first to " +
      "re-create it with a new schema.")

/** A state file was written by a newer sparkpersist than this one. */
final class UnsupportedStateFormat(val file: String, val found: Int, val supported: Int)
  extends IllegalStateException(
    s"State file $file has formatVersion $found, but this sparkpersist reads formatVersion up to " +
      s"$supported. Upgrade sparkpersist to read this shard.")

/**
 * A state file that exists but cannot be decoded. State files become visible atomically and
 * complete, so this means the file was damaged afterwards.
 */
final class CorruptState(val shard: String, val file: String, cause: Throwable)
  extends IllegalStateException(
    s"Shard '$shard': state file $file cannot be read (${cause.getMessage}). State files are " +
      "written atomically, so it was damaged after it was written: restore it from a backup.", cause)

/** A namespace of a [[ShardStore]] (a nested directory under its root) does not exist. */
final class NoSuchNamespace(val namespace: Seq[String], val root: String)
  extends NoSuchElementException(
    s"Namespace '${namespace.mkString(".")}' does not exist under $root. Create it first (CREATE NAMESPACE " +
      s"persist.${namespace.mkString(".")}), or check the name.")

/** `createNamespace` named a namespace that exists. Nothing was written. */
final class NamespaceAlreadyExists(val namespace: Seq[String], val root: String)
  extends IllegalStateException(s"Namespace '${namespace.mkString(".")}' already exists under $root.")

/** A namespace holding shards or namespaces was dropped without cascade. Nothing was dropped. */
final class NamespaceNotEmpty(val namespace: Seq[String], val shards: Seq[String], val namespaces: Seq[String])
  extends IllegalStateException(
    s"Namespace '${namespace.mkString(".")}' is not empty (shards: ${if (shards.isEmpty) "none" else shards.mkString(", ")}; " +
      s"namespaces: ${if (namespaces.isEmpty) "none" else namespaces.mkString(", ")}). Drop them first, or drop it " +
      "with CASCADE to drop every shard in it.")

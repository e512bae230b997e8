package sparkpersist.shard

import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}

import sparkpersist.PersistConf
import sparkpersist.errors.PersistError
import sparkpersist.schema.ShardSchema

/**
 * All shards under one root directory (any Hadoop FileSystem URI), one sub-directory per
 * shard: `<root>/<name>/state/` holds its [[FsStateLog]], `<root>/<name>/parts/` its parts.
 * A shard exists once its state version 0 exists; that file is written put-if-absent, so of two
 * racing `create`s exactly one succeeds.
 *
 * Only Hadoop FileSystem APIs are used. Commits need an atomic create-if-absent, which
 * [[PutIfAbsent]] picks per store (hard link on `file:`, conditional create on S3A, rename on
 * HDFS); on a store with none, creating a shard or committing to one fails with [[NoAtomicCommit]]
 * before anything is written.
 *
 * With `openShards` > 0 the store keeps that many shards open between `open` calls
 * ([[OpenShards]]): opening one again reads only the state versions committed since. A shard at
 * any other directory (a path table) is reached through [[locations]], which shares that cache.
 */
final class ShardStore(
    val root: String,
    hadoopConf: Configuration,
    rollupEvery: Long = PersistConf.RollupEvery.default,
    openShards: Int = 0) {
  import ShardStore._

  private val rootPath: Path = new Path(root)
  private val fs: FileSystem = rootPath.getFileSystem(hadoopConf)
  private val qualifiedRoot: Path = fs.makeQualified(rootPath)
  private val namespaces = new ShardNamespaces(fs, hadoopConf)

  /** The shards at locations of their own (path tables); this store keeps its named shards through them too. */
  val locations: ShardLocations = new ShardLocations(hadoopConf, rollupEvery, openShards)

  /**
   * Creates `shard` with `schema` at state version 0 (since = upper = 0, no batches). `shard` is
   * a name under the root (`events`, or `sales.orders` in the namespace `sales`, which must exist)
   * or a location ([[isLocation]]: `/data/t`, `s3a://bucket/t`).
   */
  def create(shard: String, schema: ShardSchema): ShardHandle = resolve(shard) match {
    case Located(dir) => locations.create(dir, schema)
    case Named(namespace, name) =>
      val where = namespaceDir(namespace)
      if (!namespaceExists(namespace)) throw new NoSuchNamespace(namespace, qualifiedRoot.toString)
      if (namespaces.exists(new Path(where, name))) {
        throw PersistError("PERSIST_NAME_TAKEN.BY_NAMESPACE", "action" -> "create shard", "name" -> shard,
          "where" -> where).invalidInput()
      }
      // On a case-insensitive file system (macOS, Windows) the two would be one directory.
      list(namespace).find(n => n != name && n.equalsIgnoreCase(name)).foreach { other =>
        throw PersistError("PERSIST_INVALID_NAME.SHARD_CASE", "name" -> shard, "root" -> where,
          "existing" -> qualify(namespace, other)).invalidInput()
      }
      locations.create(new Path(where, name), shard, schema, where.toString)
  }

  /** Opens `shard` (a name or a location); [[NoSuchShard]] (listing the shards of its namespace) if it does not exist. */
  def open(shard: String): ShardHandle = resolve(shard) match {
    case Located(dir) => locations.open(dir)
    case Named(namespace, name) =>
      locations.open(new Path(namespaceDir(namespace), name), shard,
        new NoSuchShard(shard, namespaceDir(namespace).toString, list(namespace).map(qualify(namespace, _))))
  }

  def exists(shard: String): Boolean = locations.exists(dirOf(shard))

  /** The names of all shards directly under the root, sorted. */
  def list(): Seq[String] = list(Nil)

  /** The names (last segments) of the shards directly in `namespace`, sorted; empty if it does not exist. */
  def list(namespace: Seq[String]): Seq[String] = {
    val dir = namespaceDir(namespace)
    if (!fs.exists(dir)) Nil
    else {
      fs.listStatus(dir).toSeq
        .filter(s => s.isDirectory && isName(s.getPath.getName))
        .map(_.getPath.getName)
        .filter(n => locations.exists(new Path(dir, n)))
        .sorted
    }
  }

  /**
   * Deletes `shard` and all its parts; false if it did not exist. The directory is first
   * renamed aside (atomic on local disk and HDFS), so the shard disappears at once. Writers
   * still appending to a dropped shard fail; stop them first.
   */
  def drop(shard: String): Boolean = locations.drop(dirOf(shard))

  /**
   * Drops `shard` only if nothing was ever committed to it (its state is still version 0):
   * for undoing a creation whose first write failed, while another writer that found the new
   * shard and committed to it keeps its batch. False if the shard was kept or did not exist.
   */
  def dropIfUnwritten(shard: String): Boolean = locations.dropIfUnwritten(dirOf(shard))

  /**
   * Moves shard `from` to `to` (names or locations) by one rename of its directory, where renames
   * are atomic ([[ShardLocations.move]]); a named target's namespace must exist. Writers still
   * appending to `from` fail afterwards, as after a drop: stop them first.
   */
  def rename(from: String, to: String): Unit = {
    resolve(to) match {
      case Named(namespace, name) =>
        if (!namespaceExists(namespace)) throw new NoSuchNamespace(namespace, qualifiedRoot.toString)
        if (namespaces.exists(new Path(namespaceDir(namespace), name))) {
          throw PersistError("PERSIST_NAME_TAKEN.BY_NAMESPACE", "action" -> s"rename shard '$from' to", "name" -> to,
            "where" -> namespaceDir(namespace)).invalidInput()
        }
      case Located(_) =>
    }
    if (!exists(from)) open(from) // throws NoSuchShard, naming the shards there
    locations.move(dirOf(from), dirOf(to))
  }

  /** True for the root (the empty namespace) and every namespace created under it. */
  def namespaceExists(namespace: Seq[String]): Boolean = {
    namespace.foreach(validateName)
    namespace.isEmpty || namespaces.exists(namespaceDir(namespace))
  }

  /**
   * Creates `namespace` (its parent must exist) holding `properties`; [[NamespaceAlreadyExists]]
   * if it exists, PERSIST_NAME_TAKEN if a shard has its name.
   */
  def createNamespace(namespace: Seq[String], properties: Map[String, String]): Unit = {
    require(namespace.nonEmpty, "The root namespace always exists.")
    val parent = namespace.init
    if (!namespaceExists(parent)) throw new NoSuchNamespace(parent, qualifiedRoot.toString)
    val dir = namespaceDir(namespace)
    if (locations.exists(dir)) {
      throw PersistError("PERSIST_NAME_TAKEN.BY_SHARD", "action" -> "create namespace",
        "name" -> namespace.mkString("."), "where" -> namespaceDir(parent)).invalidInput()
    }
    if (!namespaces.create(dir, properties)) throw new NamespaceAlreadyExists(namespace, qualifiedRoot.toString)
  }

  /** The properties `namespace` was created with; [[NoSuchNamespace]] if it does not exist. */
  def namespaceProperties(namespace: Seq[String]): Map[String, String] =
    if (namespace.isEmpty) Map.empty
    else namespaces.properties(namespaceDir(namespace)).getOrElse(throw new NoSuchNamespace(namespace, qualifiedRoot.toString))

  /** The namespaces directly in `parent`, sorted; [[NoSuchNamespace]] if `parent` does not exist. */
  def listNamespaces(parent: Seq[String]): Seq[Seq[String]] = {
    if (!namespaceExists(parent)) throw new NoSuchNamespace(parent, qualifiedRoot.toString)
    namespaces.children(namespaceDir(parent)).map(parent :+ _)
  }

  /**
   * Drops `namespace`; false if it does not exist. Unless `cascade`, one holding shards or
   * namespaces is refused ([[NamespaceNotEmpty]]); with it, every shard in it (at any depth) is
   * dropped first, then the directory.
   */
  def dropNamespace(namespace: Seq[String], cascade: Boolean): Boolean = namespace.nonEmpty && namespaceExists(namespace) && {
    val shards = list(namespace)
    val nested = namespaces.children(namespaceDir(namespace))
    if (!cascade && (shards.nonEmpty || nested.nonEmpty)) {
      throw new NamespaceNotEmpty(namespace, shards.map(qualify(namespace, _)), nested.map(qualify(namespace, _)))
    }
    nested.foreach(n => dropNamespace(namespace :+ n, cascade))
    shards.foreach(n => drop(qualify(namespace, n)))
    val dir = namespaceDir(namespace)
    val aside = new Path(dir.getParent, s".dropped-${dir.getName}-${UUID.randomUUID()}")
    fs.rename(dir, aside) && fs.delete(aside, true)
  }

  /** The directory of `shard`. */
  def dirOf(shard: String): Path = resolve(shard) match {
    case Located(dir) => locations.qualified(dir)
    case Named(namespace, name) => new Path(namespaceDir(namespace), name)
  }

  private def namespaceDir(namespace: Seq[String]): Path = namespace.foldLeft(qualifiedRoot)(new Path(_, _))

  override def toString: String = s"ShardStore($qualifiedRoot)"
}

object ShardStore {
  /** Sub-directory of a shard holding its state versions and rollups. */
  val StateDir = "state"

  val MaxNameLength = 128

  private val NamePattern = "[A-Za-z_][A-Za-z0-9_]{0,127}".r

  /** A URI scheme (`file:`, `s3a:`, `hdfs:`): the start of a location. */
  private val SchemePattern = "[A-Za-z][A-Za-z0-9+.-]*:.*".r

  /** True if `name` is a valid single name (of a shard or a namespace). */
  def isName(name: String): Boolean = name != null && NamePattern.matches(name)

  /**
   * True if `shard` names a location rather than a name under a store's root: an absolute path
   * (`/data/t`) or a URI (`file:/data/t`, `s3a://bucket/t`). Names never hold `/` or `:`, so the
   * two cannot be confused.
   */
  def isLocation(shard: String): Boolean = shard != null && (shard.startsWith("/") || SchemePattern.matches(shard))

  /** A shard reference: a name under the root (in a namespace), or a directory of its own. */
  private sealed trait Resolved
  private final case class Named(namespace: Seq[String], name: String) extends Resolved
  private final case class Located(dir: Path) extends Resolved

  private def resolve(shard: String): Resolved =
    if (isLocation(shard)) Located(new Path(shard))
    else {
      validateQualifiedName(shard)
      val segments = shard.split('.').toSeq
      Named(segments.init, segments.last)
    }

  /** `name` in `namespace`, as a shard reference (`sales.orders`). */
  def qualify(namespace: Seq[String], name: String): String = (namespace :+ name).mkString(".")

  /**
   * A shard's name under a store's root: its own name, after its namespaces' names if it is in
   * one, dot-separated (`events`, `sales.orders`); each segment follows [[validateName]].
   */
  def validateQualifiedName(name: String): Unit =
    if (name == null || !name.contains('.')) validateName(name)
    else {
      // A dot only stands between two names.
      name.indices.find(i => name(i) == '.' && (i == 0 || i == name.length - 1 || name(i - 1) == '.'))
        .foreach(i => failName(name, s"character '.' at position $i is not allowed"))
      name.split('.').foldLeft(0) { (start, segment) =>
        problem(segment, start).foreach(failName(name, _))
        start + segment.length + 1
      }
    }

  /**
   * Shard names are identifiers, `[A-Za-z_][A-Za-z0-9_]{0,127}`, so that they are valid SQL
   * identifiers and a single, safe directory name on every file system.
   */
  def validateName(name: String): Unit = problem(name, 0).foreach(failName(name, _))

  /** What is wrong with a single name, its characters' positions counted from `offset`. */
  private def problem(name: String, offset: Int): Option[String] =
    if (name == null) Some("it is null")
    else if (name.isEmpty) Some("it is empty")
    else if (name.length > MaxNameLength) Some(s"it is ${name.length} characters long, the limit is $MaxNameLength")
    else if (NamePattern.matches(name)) None
    else {
      val i = name.indexWhere(c => !(c == '_' || (c < 128 && c.isLetterOrDigit)))
      if (i >= 0) Some(s"character '${name.charAt(i)}' at position ${i + offset} is not allowed")
      else Some("it starts with a digit")
    }

  private def failName(name: String, why: String): Nothing =
    throw PersistError("PERSIST_INVALID_NAME.SHARD", "name" -> name, "reason" -> why).invalidInput()
}

package sparkpersist.isolation

import sparkpersist.errors.PersistErrors
import sparkpersist.schema.ShardSchema

/**
 * How strictly a shard's statements are kept apart from the commits that land while they run,
 * named as Delta Lake names its levels (the table property [[IsolationLevel.Property]]):
 *  - [[IsolationLevel.WriteSerializable]] (the default): a commit that retracted a row of a part
 *    the statement read (another statement, an overwrite), or removed that part's batch, conflicts;
 *    appends, streaming micro-batches, compactions and statements on other parts do not, and the
 *    statement commits after them as if it had run before the appends;
 *  - [[IsolationLevel.Serializable]]: an append holding a part whose rows the statement's condition
 *    may match (decided from the part's statistics, as a scan decides) conflicts too, so the
 *    statement's result is that of running it after every commit before its own.
 */
sealed abstract class IsolationLevel(val name: String) {
  override def toString: String = name
}

object IsolationLevel {
  /** The table property naming a shard's isolation level. */
  val Property = "sparkpersist.isolationLevel"

  case object WriteSerializable extends IsolationLevel("WriteSerializable")

  case object Serializable extends IsolationLevel("Serializable")

  val all: Seq[IsolationLevel] = Seq(WriteSerializable, Serializable)

  /** The level `value` names (ignoring case), or an error saying which levels there are. */
  def parse(value: String, context: String): IsolationLevel =
    all.find(_.name.equalsIgnoreCase(value.trim)).getOrElse(throw PersistErrors.invalidOption(context,
      s"'$value' is not an isolation level of table property '$Property'. Use WriteSerializable " +
        "(the default: appends never conflict with a statement) or Serializable (appends whose rows the " +
        "statement's condition may match conflict too)."))

  /** The isolation level of a shard of `schema`. */
  def of(schema: ShardSchema): IsolationLevel =
    schema.properties.get(Property).flatMap(v => all.find(_.name == v)).getOrElse(WriteSerializable)

  /** `schema` with isolation level `level` (the default one is not stored). */
  def set(schema: ShardSchema, level: Option[IsolationLevel]): ShardSchema =
    schema.copy(properties = level.filter(_ != WriteSerializable)
      .fold(schema.properties - Property)(l => schema.properties.updated(Property, l.name)))
}

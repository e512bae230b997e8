package sparkpersist.iceberg

import java.util.Locale

import sparkpersist.errors.PersistErrors
import sparkpersist.schema.ShardSchema

/**
 * The table property `sparkpersist.iceberg` ('true' | 'false', default false): whether each commit
 * of the shard writes its Iceberg metadata ([[IcebergCommitHook]]). Kept in the shard's schema
 * properties, so every catalog naming the shard (the persist catalog, path tables, the session
 * catalog) sees the same setting.
 */
object IcebergProperty {
  val Property = "sparkpersist.iceberg"

  /** Whether `value` turns the metadata on; anything but 'true' or 'false' (any case) is refused. */
  def parse(value: String, context: String): Boolean = value.trim.toLowerCase(Locale.ROOT) match {
    case "true" => true
    case "false" => false
    case _ => throw PersistErrors.invalidOption(context, s"table property '$Property' is 'true' (each commit " +
      s"writes Iceberg metadata beside the shard's state) or 'false', not '$value'.")
  }

  /** Whether a shard of `schema` writes its Iceberg metadata at each commit. */
  def enabled(schema: ShardSchema): Boolean = schema.properties.get(Property).contains("true")

  /** `schema` with the property set (stored only when on). */
  def set(schema: ShardSchema, on: Boolean): ShardSchema =
    schema.copy(properties = if (on) schema.properties.updated(Property, "true") else schema.properties - Property)
}

package sparkpersist.source

/**
 * The catalog's name before the read path was split into packages (`catalog`, `scan`, `plan`,
 * `consolidate`, `read`): `spark.sql.catalog.persist=sparkpersist.source.PersistCatalog` in
 * existing configurations keeps working. New configurations name
 * [[sparkpersist.catalog.PersistCatalog]]. This package holds nothing else.
 */
@deprecated("name sparkpersist.catalog.PersistCatalog in spark.sql.catalog.<name>", "0.1.0")
class PersistCatalog extends sparkpersist.catalog.PersistCatalog

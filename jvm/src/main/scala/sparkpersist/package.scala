/**
 * sparkpersist: persist shards for Spark, with part pruning by abstract interpretation.
 *
 * The root package holds the configuration ([[sparkpersist.PersistConf]], read by every layer
 * from `shard` up) and the session extension ([[sparkpersist.PersistExtensions]], which installs
 * `catalyst` and `stream`). The packages below it form layers, storage at the bottom; a package
 * imports only from layers below its own. These rules live in the package descriptions, in a form
 * `LayeringSuite` reads and holds to the compiled classes: each package's `package.scala` says which
 * packages it imports (its "Layer rule"), exactly; the sentence below orders them, and
 * docs/development.md repeats it word for word. The root package counts as two units, its session
 * extension (`PersistExtensions`) on top and everything else (`PersistConf`) low; the Spark bridge
 * (`org.apache.spark.sql.sparkpersist`, what Spark keeps package-private) counts as one.
 *
 * Layers, bottom first: `errors` <- `codec`, `schema`, `util`, `org.apache.spark.sql.sparkpersist` <- `stats` <-
 * `PersistConf`, `stats.legacy` <- `interpret`, `index`, `shard` <- `positional` <- `read`, `write` <-
 * `consolidate`, `plan`, `cluster` <- `scan`, `isolation`, `iceberg` <- `dml` <- `catalog` <- `compact`, `stream`, `aggregate`, `metastore`,
 * `restore` <- `catalyst`, `api`, `parser`, `table` <- `PersistExtensions`, `source`, `datasource`.
 *
 * Layer rule: `PersistConf` imports `errors`, `stats`.
 *
 * Layer rule: `PersistExtensions` imports `aggregate`, `catalyst`, `parser`, `stream`.
 */
package object sparkpersist

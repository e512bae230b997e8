/**
 * sparkpersist: persist shards for Spark, with part pruning by abstract interpretation.
 *
 * The root package holds the configuration ([[sparkpersist.PersistConf]], read by every layer
 * from `shard` up) and the session extension ([[sparkpersist.PersistExtensions]], which installs
 * `catalyst` and `stream`). The packages below it form layers, storage at the bottom; a package
 * imports only from layers below its own (checked by `LayeringSuite`):
 * `codec`, `schema`, `util` <- `stats` <- configuration <- `interpret`, `index`, `shard` <-
 * `write` <- `read` <- `consolidate`, `plan` <- `scan` <- `catalog` <- `compact`, `stream`, `aggregate` <-
 * `catalyst`, `api` <- the extension (and `source`, the catalog's former name).
 */
package object sparkpersist

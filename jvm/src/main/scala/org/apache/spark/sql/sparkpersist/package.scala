package org.apache.spark.sql

/**
 * The Spark bridge: a few calls into what Spark keeps `private[sql]` (its errors, row-level
 * operation tables, Catalyst columns, data source filters, the metastore entry of a session catalog table), from inside Spark's package, so that
 * the rest of sparkpersist reaches them through ordinary public names.
 *
 * Layer rule: `org.apache.spark.sql.sparkpersist` imports nothing of sparkpersist.
 */
package object sparkpersist

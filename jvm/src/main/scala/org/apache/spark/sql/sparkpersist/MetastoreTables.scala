package org.apache.spark.sql.sparkpersist

import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.connector.catalog.{Table, V1Table}

/** The metastore entry behind a table Spark's session catalog loaded (its `V1Table`), if that is what it is. */
object MetastoreTables {
  def entryOf(table: Table): Option[CatalogTable] = table match {
    case v1: V1Table => Some(v1.v1Table)
    case _ => None
  }
}

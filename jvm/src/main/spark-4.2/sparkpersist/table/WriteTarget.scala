package sparkpersist.table

import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation
import org.apache.spark.sql.catalyst.plans.logical.{MergeAction, MergeIntoTable}
import org.apache.spark.sql.connector.catalog.TableWritePrivilege

/**
 * The relation a statement writes, with the write privileges Spark's parser asks of the catalog for
 * the same SQL statement. Spark 4.2 and 4.3 take them as a `Set`; 4.1 as a `Seq`.
 */
private[table] object WriteTarget {
  def relation(parts: Seq[String], privileges: Seq[TableWritePrivilege]): UnresolvedRelation =
    UnresolvedRelation(parts).requireWritePrivileges(privileges.toSet)

  def mergePrivileges(matched: Seq[MergeAction], notMatched: Seq[MergeAction],
      notMatchedBySource: Seq[MergeAction]): Seq[TableWritePrivilege] =
    MergeIntoTable.getWritePrivileges(matched, notMatched, notMatchedBySource).toSeq
}

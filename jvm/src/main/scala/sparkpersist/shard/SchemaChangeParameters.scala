package sparkpersist.shard

import sparkpersist.schema.ShardSchema

/**
 * Which change an `ALTER TABLE` version made, as parameters of its history row: the columns added,
 * dropped, renamed (`old -> new`, matched by stable id) and changed (type or nullability), the order
 * key, and the table properties, index and clustering columns set or removed. Only what changed is named.
 */
private[shard] object SchemaChangeParameters {

  /** The parameters of a change of table properties only (`ALTER TABLE ... SET TBLPROPERTIES`, `CLUSTER BY`). */
  val Properties: Set[String] = Set("indexColumns", "clusterBy", "setProperties", "unsetProperties")

  def apply(before: ShardSchema, after: ShardSchema): Map[String, String] = {
    val was = before.columns.map(c => c.id -> c).toMap
    val is = after.columns.map(c => c.id -> c).toMap
    def names(ids: Iterable[Int], of: Map[Int, sparkpersist.schema.ColumnDef]) = ids.toSeq.sorted.map(of(_).name)
    val kept = after.columns.filter(c => was.contains(c.id))
    val params = Seq(
      "addedColumns" -> names(is.keySet -- was.keySet, is),
      "droppedColumns" -> names(was.keySet -- is.keySet, was),
      "renamedColumns" -> kept.filter(c => was(c.id).name != c.name).map(c => s"${was(c.id).name} -> ${c.name}"),
      "changedColumns" -> kept.filter(c => was(c.id).dataType != c.dataType || was(c.id).nullable != c.nullable)
        .map(c => s"${c.name} ${c.dataType.simpleString}${if (c.nullable) "" else " NOT NULL"}"),
      "indexColumns" -> changed(before.columns.filter(_.indexed).map(_.name), after.columns.filter(_.indexed).map(_.name)),
      "clusterBy" -> changed(clusterBy(before), clusterBy(after)),
      "orderBy" -> changed(before.orderBy, after.orderBy),
      "setProperties" -> after.properties.toSeq.sorted.filter { case (k, v) => !before.properties.get(k).contains(v) }
        .map { case (k, v) => s"$k=$v" },
      "unsetProperties" -> (before.properties.keySet -- after.properties.keySet).toSeq.sorted)
    params.collect { case (k, v) if v.nonEmpty => k -> v.mkString(", ") }.toMap
  }

  private def clusterBy(s: ShardSchema): Seq[String] =
    if (s.clusterAuto) Seq("auto") else s.columns.filter(_.clustered).map(_.name)

  /** `after` if it differs from `before` (`(none)` when emptied), else nothing. */
  private def changed(before: Seq[String], after: Seq[String]): Seq[String] =
    if (before == after) Nil else if (after.isEmpty) Seq("(none)") else after
}

package sparkpersist.plan

import org.apache.spark.sql.catalyst.expressions.{And, AttributeReference, EqualTo, Expression, In, Literal}
import org.apache.spark.sql.catalyst.util.QuotingUtils
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference, Literal => V2Literal}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.types.{ArrayType, MapType, StructType}

/**
 * Runtime filtering (`SupportsRuntimeV2Filtering`): once a join's other side is known, Spark hands
 * a scan the values its join key can take (`key IN (…)`, dynamic partition pruning over any
 * column); the scan rules out the parts whose statistics (bounds, membership filters) admit none of
 * them, with the same interpreter and the same soundness as its own filter
 * ([[PartPruning.select]]: nulls, NaN, -0.0, collations, truncated string bounds), and in soft mode
 * reads them anyway and verifies them against the filter and the runtime predicate together.
 *
 * Only predicates on one column of the scan whose values are literals are used (`IN`, `=`);
 * anything else Spark hands over reads every part, as it would without it.
 */
private[sparkpersist] object RuntimeFiltering {

  /**
   * The columns a join may filter the scan by: the data columns it reads of atomic types. Names
   * are quoted, as `Expressions.column` parses its argument as a multipart identifier (Spark 4.3
   * asks every scan for these when planning, so a name such as `x1"{}` failed every query).
   */
  def attributes(readSchema: StructType, dataColumns: Set[String]): Array[NamedReference] =
    readSchema.fields.filter(f => dataColumns(f.name) && atomic(f.dataType))
      .map(f => Expressions.column(QuotingUtils.quoteIdentifier(f.name)))

  /** `predicates` as one Catalyst condition over `readSchema`'s columns, from those that can be used. */
  def condition(predicates: Array[Predicate], readSchema: StructType): Option[Expression] =
    predicates.toSeq.flatMap(p => usable(p, readSchema)).reduceOption(And)

  private def usable(p: Predicate, readSchema: StructType): Option[Expression] = {
    val children = p.children().toSeq
    val column = children.headOption.collect {
      case r: NamedReference if r.fieldNames().length == 1 && readSchema.fieldNames.contains(r.fieldNames().head) =>
        val f = readSchema(r.fieldNames().head)
        AttributeReference(f.name, f.dataType, f.nullable)()
    }
    val values: Seq[Option[Expression]] = children.drop(1).map {
      case l: V2Literal[_] => column.filter(_.dataType == l.dataType()).map(_ => Literal(l.value(), l.dataType()))
      case _ => None
    }
    (p.name(), column) match {
      case (_, None) => None
      case (_, _) if values.isEmpty || values.exists(_.isEmpty) => None
      case ("IN", Some(c)) => Some(In(c, values.flatten))
      case ("=", Some(c)) if values.size == 1 => Some(EqualTo(c, values.head.get))
      case _ => None
    }
  }

  private def atomic(dt: org.apache.spark.sql.types.DataType): Boolean = dt match {
    case _: StructType | _: ArrayType | _: MapType => false
    case _ => true
  }
}

/**
 * What a scan's runtime filter changes for its reader factory, which Spark builds before the
 * filter arrives and ships to tasks after: whether the scan still reads every visible part
 * (consolidation checks negative counts only then), and in soft mode the check of the parts read
 * only to be verified, against the filter and the runtime predicate together.
 */
final class RuntimeDecision extends Serializable {
  @volatile var complete: Boolean = true
  @volatile var softCheck: Option[SoftCheck] = None
}

package sparkpersist.interpret

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.DataType

/**
 * Declared monotone functions evaluated through a [[UdfTable]] (Python UDFs): the interpreter
 * maps ranges through them as through any monotone function ([[SpecNode.MonotoneCall]]), with a
 * [[Call]] in place of the function itself.
 */
private[interpret] object TabledNodes {

  /** Raised by a [[Call]] at a point the table does not know or at which the function raised. */
  final class NoValue(function: String) extends RuntimeException(s"no value of $function", null, false, false)

  /**
   * The function `function` read from `table` at the values of its (bound) arguments. Only ever
   * evaluated by the interpreter on the driver, at range endpoints.
   */
  final case class Call(function: String, children: Seq[Expression], dataType: DataType, table: UdfTable)
      extends Expression with CodegenFallback {
    private lazy val argTypes = children.map(_.dataType)

    override def nullable: Boolean = true

    override def eval(input: InternalRow): Any =
      table.valueAt(function, argTypes, children.map(_.eval(input)).toIndexedSeq) match {
        case Some(Some(v)) => v
        case _ => throw new NoValue(function)
      }

    override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): Call =
      copy(children = newChildren)
  }

  /**
   * Anything when an argument may be null (the table holds values at range endpoints only, and a
   * user function may map null to any value or raise on it), else `call`.
   */
  final class NonNullArgs(args: Array[SpecNode], call: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec =
      if (args.exists(_.eval(columns).nullable)) ResultSpec.Anything else call.eval(columns)
  }
}

package sparkpersist.interpret

import org.apache.spark.sql.catalyst.expressions.variant.{ArrayExtraction, ObjectExtraction, VariantPathParser}

import sparkpersist.interpret.Values._

/** Spec nodes that read JSON documents (VARIANT values and JSON text), see [[JsonSpec]]. */
private[interpret] object JsonNodes {

  /** One step of a constant path: an object key, an array index, or a step not understood. */
  sealed trait Step
  final case class Key(name: String) extends Step
  final case class Index(index: Int) extends Step
  case object Unknown extends Step

  /** The steps of a `variant_get` path (`$.a.b[0]`, `$['a b']`), if it parses as Spark parses it. */
  def variantPath(path: String): Option[Seq[Step]] =
    VariantPathParser.parse(path).map(_.toSeq.map {
      case ObjectExtraction(key) => Key(key)
      case ArrayExtraction(index) => Index(index)
    })

  private val TextStep = """\.([^.\[\]'"?*\s]+)|\['([^'?*\[\]\s]+)'\]|\[(\d{1,9})\]""".r

  /**
   * The steps of a `get_json_object` path in its plain forms (`$`, then `.name`, `['name']` or
   * `[index]`, names without spaces, quotes, brackets or wildcards), as Spark's `JsonPathParser`
   * reads them. Any other path (wildcards, unusual names, or one Spark refuses, which makes
   * `get_json_object` null) is a single [[Unknown]] step, which admits anything or null.
   */
  def textPath(path: String): Seq[Step] = {
    val steps = Seq.newBuilder[Step]
    var pos = 1
    var ok = path.startsWith("$")
    while (ok && pos < path.length) {
      TextStep.findPrefixMatchOf(path.substring(pos)) match {
        case Some(m) =>
          steps += (if (m.group(3) != null) Index(m.group(3).toInt) else Key(Option(m.group(1)).getOrElse(m.group(2))))
          pos += m.end
        case None => ok = false
      }
    }
    if (ok) steps.result() else Seq(Unknown)
  }

  /**
   * The JSON value at a constant path inside the document `child`: SQL null where a key is
   * missing, an index is out of range, or the value is of another kind than the step needs.
   */
  final class Path(child: SpecNode, steps: Array[Step]) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      var s = child.eval(columns)
      var i = 0
      while (i < steps.length) {
        s = step(s, steps(i))
        i += 1
      }
      s
    }

    private def step(s: ResultSpec, step: Step): ResultSpec = (JsonSpec.of(s.values), step) match {
      case (None, _) => s
      case (Some(js), Key(name)) if js.objects =>
        val fields = s.values match {
          case n: Nested => n.fields
          case _ => Map.empty[String, ResultSpec]
        }
        val f = fields.getOrElse(name, ResultSpec.AnyValue)
        ResultSpec(s.nullable || f.nullable || js.jsonNull || !js.onlyObjects, s.fallible || f.fallible, f.values)
      case (Some(js), Index(_)) if js.arrays =>
        ResultSpec(nullable = true, s.fallible || js.elements.fallible, js.elements.values)
      case (Some(_), Unknown) => ResultSpec(nullable = true, s.fallible, All)
      case _ => ResultSpec(nullable = true, s.fallible, Empty)
    }
  }

  /**
   * A VARIANT value read as a VARIANT (`variant_get` with a VARIANT result): Spark rebuilds it, and
   * rebuilding an object raises `VARIANT_DUPLICATE_KEY` when two of its keys are equal as stored
   * (a lone surrogate such as U+D800 in a key is stored as '?', so it collides with `"?"`). The stats do
   * not record such keys, so a value that may be or contain an object may raise; scalars never do.
   */
  final class Rebuild(child: SpecNode) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val s = child.eval(columns)
      if (mayHoldObject(s.values)) s.orFail else s
    }

    private def mayHoldObject(values: Values): Boolean = JsonSpec.of(values).exists { js =>
      js.objects || (js.arrays && mayHoldObject(js.elements.values))
    }
  }

  /**
   * A JSON value read as a SQL value: `read` gives the outcome per kind ([[JsonCasts]]); an
   * invalid value raises when `raises`, else is null. A JSON null is SQL null; `alwaysNullable`
   * for `get_json_object`, which is null on any text it cannot parse.
   */
  final class Read(child: SpecNode, read: JsonSpec => JsonCasts.Outcome, raises: Boolean,
      alwaysNullable: Boolean) extends SpecNode {
    def eval(columns: Array[ResultSpec]): ResultSpec = {
      val s = child.eval(columns)
      JsonSpec.of(s.values) match {
        case None => ResultSpec(s.nullable || alwaysNullable, s.fallible, Empty)
        case Some(js) =>
          val out = read(js)
          ResultSpec(
            nullable = s.nullable || alwaysNullable || js.jsonNull || (out.invalid && !raises),
            fallible = s.fallible || (out.invalid && raises),
            values = out.values)
      }
    }
  }
}

package sparkpersist.interpret

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen

import sparkpersist.interpret.SoundnessGen.Part

/**
 * Random material for the soundness property over nested columns: the scalar columns of
 * [[SoundnessGen]] plus structs (in structs), arrays (of strings, structs, arrays) and a map,
 * with nulls at every level and empty collections; predicates that read struct fields, array
 * elements by constant and computed indexes (in range, past the end, 0, negative), map values,
 * sizes and `array_contains`, mixed with [[SoundnessGen]]'s scalar expressions.
 */
object NestedSoundnessGen {

  private val inner = StructType(Seq(StructField("x", LongType)))

  /** Nested columns, after [[SoundnessGen.columns]]. */
  val nestedColumns: IndexedSeq[(String, DataType)] = IndexedSeq(
    "st" -> StructType(Seq(StructField("a", IntegerType), StructField("s", StringType), StructField("in", inner))),
    "arr" -> ArrayType(IntegerType),
    "sarr" -> ArrayType(StringType),
    "ast" -> ArrayType(StructType(Seq(StructField("k", IntegerType)))),
    "aa" -> ArrayType(ArrayType(IntegerType)),
    "mp" -> MapType(StringType, IntegerType))

  val columns: IndexedSeq[(String, DataType)] = SoundnessGen.columns ++ nestedColumns

  /** One part (scalar rows from [[SoundnessGen.part]], nested values appended) and its bound length. */
  final case class NestedPart(part: Part, boundChars: Int)

  /** A predicate and parts to check it on. */
  final case class NestedCase(sql: String, parts: Seq[NestedPart])

  private def nullable(rate: Gen[Double], values: Gen[Any]): Gen[Gen[Any]] =
    rate.map(r => Gen.frequency((r * 100).toInt -> Gen.const(null), ((1 - r) * 100).toInt -> values))

  private val nullRate = Gen.oneOf(0.0, 0.0, 0.2, 0.6, 1.0)

  /** A per-part profile of non-null internal values of `dt`; nulls inside at random rates. */
  def value(dt: DataType): Gen[Gen[Any]] = dt match {
    case s: StructType =>
      Gen.sequence[IndexedSeq[Gen[Any]], Gen[Any]](s.fields.toIndexedSeq.map(f => withNulls(f.dataType)))
        .map(fields => Gen.sequence[IndexedSeq[Any], Any](fields).map(v => InternalRow.fromSeq(v)))
    case a: ArrayType =>
      for {
        sizes <- Gen.oneOf(Gen.const(Gen.const(0)), Gen.const(Gen.choose(0, 3)), Gen.const(Gen.choose(1, 4)),
          Gen.choose(1, 3).map(Gen.const))
        elements <- withNulls(a.elementType)
      } yield sizes.flatMap(n => Gen.listOfN(n, elements)).map(es => new GenericArrayData(es.toArray))
    case m: MapType =>
      for {
        keys <- Gen.oneOf(Seq("k", "a"), Seq("a", "b", "k", "z"), Seq("k"))
        values <- withNulls(m.valueType)
      } yield Gen.someOf(keys).flatMap { ks =>
        Gen.listOfN(ks.size, values).map(vs => ArrayBasedMapData(ks.map(UTF8String.fromString).toArray, vs.toArray))
      }
    case other => SoundnessGen.value(other)
  }

  private def withNulls(dt: DataType): Gen[Gen[Any]] =
    for (values <- value(dt); rate <- nullRate; g <- nullable(Gen.const(rate), values)) yield g

  val part: Gen[NestedPart] = for {
    p <- SoundnessGen.part
    nested <- Gen.sequence[IndexedSeq[Gen[Any]], Gen[Any]](nestedColumns.map(c => withNulls(c._2)))
    values <- Gen.listOfN(p.rows.size, Gen.sequence[IndexedSeq[Any], Any](nested))
    boundChars <- Gen.oneOf(1, 16)
  } yield NestedPart(p.copy(rows = p.rows.zip(values).map { case (r, n) => r ++ n }), boundChars)

  // ---- SQL expressions ----

  private def index(d: Int): Gen[String] =
    Gen.frequency(4 -> Gen.oneOf("1", "2", "-1", "3", "0", "-4", "5"), 1 -> SoundnessGen.int(d),
      1 -> Gen.const("2147483647"), 1 -> Gen.const("-2147483648"))

  private def arrayIndex(array: String, d: Int): Gen[String] = index(d).flatMap { i =>
    Gen.oneOf(s"element_at($array, $i)", s"try_element_at($array, $i)", s"$array[$i]", s"get($array, $i)")
  }

  private def key: Gen[String] = Gen.oneOf("'k'", "'a'", "'q'", "s", "cast(null as string)")

  /** Int-valued reads of nested columns. */
  def nestedInt(d: Int): Gen[String] = Gen.frequency(
    3 -> Gen.const("st.a"),
    2 -> arrayIndex("arr", d),
    2 -> arrayIndex("ast", d).map(e => s"$e.k"),
    1 -> arrayIndex("ast.k", d),
    1 -> arrayIndex("aa", d).flatMap(inner => arrayIndex(s"($inner)", d)),
    2 -> Gen.oneOf("size(arr)", "size(sarr)", "cardinality(mp)", "array_size(ast)", "size(aa)"),
    1 -> arrayIndex("aa", d).map(e => s"size($e)"),
    2 -> key.flatMap(k => Gen.oneOf(s"mp[$k]", s"element_at(mp, $k)", s"try_element_at(mp, $k)")),
    1 -> Gen.const("coalesce(arr, array(7, 8))[1]"),
    1 -> Gen.const("if(b, st, named_struct('a', 3, 's', 'x', 'in', named_struct('x', 1L))).a"))

  /** String-valued reads of nested columns. */
  def nestedStr(d: Int): Gen[String] = Gen.frequency(
    2 -> Gen.const("st.s"),
    3 -> arrayIndex("sarr", d))

  def bool(d: Int): Gen[String] =
    if (d <= 0) comparison(0)
    else Gen.frequency(
      4 -> comparison(d),
      1 -> (for (a <- bool(d - 1); b <- bool(d - 1); op <- Gen.oneOf("AND", "OR")) yield s"($a $op $b)"),
      1 -> bool(d - 1).map(x => s"(NOT $x)"),
      1 -> Gen.oneOf(nestedInt(d - 1), nestedStr(d - 1), Gen.oneOf("st", "st.in", "arr", "mp", "ast"))
        .flatMap(x => Gen.oneOf(s"($x IS NULL)", s"($x IS NOT NULL)")),
      1 -> Gen.oneOf(
        SoundnessGen.str(0).map(x => s"array_contains(sarr, $x)"),
        Gen.oneOf(nestedInt(0), SoundnessGen.int(0)).flatMap(x => Gen.oneOf(s"array_contains(arr, $x)",
          s"array_contains(ast.k, $x)", s"array_contains(element_at(aa, 1), $x)"))),
      1 -> SoundnessGen.bool(d - 1))

  private def comparison(d: Int): Gen[String] = for {
    (l, r) <- Gen.oneOf(
      for (l <- nestedInt(d); r <- Gen.oneOf(SoundnessGen.int(0), nestedInt(0), Gen.oneOf("0", "1", "3", "-1"))) yield (l, r),
      for (l <- Gen.const("st.in.x"); r <- SoundnessGen.long(0)) yield (l, r),
      for (l <- nestedStr(d); r <- Gen.oneOf(SoundnessGen.str(0), nestedStr(0))) yield (l, r))
    op <- Gen.oneOf("=", "<", "<=", ">", ">=", "<=>", "!=")
  } yield s"($l $op $r)"

  val sample: Gen[NestedCase] = for {
    sql <- Gen.choose(1, 3).flatMap(bool)
    parts <- Gen.listOfN(SoundnessGen.PartsPerCase, part)
  } yield NestedCase(sql, parts)
}

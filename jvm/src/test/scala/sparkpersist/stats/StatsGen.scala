package sparkpersist.stats

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen

import sparkpersist.interpret.{SoundnessGen, ValueOrdering}
import sparkpersist.schema.ShardSchema

/**
 * Random part statistics, flat and nested, for the stats budget properties: long and multi-byte
 * strings (U+10FFFF included, whose upper bound cannot be bumped), binary, JSON documents with
 * mixed kinds, many keys and several levels. Counts are arbitrary: trimming never reads them.
 */
object StatsGen {

  /** Every kind of column the budget treats differently (ids 1..n in this order). */
  val schema: ShardSchema = ShardSchema.fromStruct(StructType(Seq(
    StructField("id", LongType),
    StructField("event_ts", TimestampType),
    StructField("name", StringType),
    StructField("created_at", StringType),
    StructField("blob", BinaryType),
    StructField("payload", StructType(Seq(StructField("a", StringType), StructField("b", IntegerType),
      StructField("c", StructType(Seq(StructField("d", StringType))))))),
    StructField("tags", ArrayType(StringType)),
    StructField("attrs", MapType(StringType, IntegerType)),
    StructField("doc", VariantType),
    StructField("raw", StringType),
    StructField("label", StringType("UTF8_LCASE")),
    StructField("amount", DecimalType(12, 2)),
    StructField("day", DateType))))

  private val codePoint: Gen[Int] = Gen.frequency(
    8 -> Gen.choose('a'.toInt, 'e'.toInt), 1 -> Gen.const(Character.MAX_CODE_POINT),
    1 -> Gen.choose(0x80, 0xd7ff), 1 -> Gen.choose(0x10000, 0x10ffff), 1 -> Gen.const(0xffff))

  val string: Gen[UTF8String] = for {
    n <- Gen.frequency(3 -> Gen.choose(0, 8), 2 -> Gen.choose(9, 80), 1 -> Gen.choose(81, 300))
    cps <- Gen.listOfN(n, codePoint)
  } yield UTF8String.fromString(new String(cps.toArray, 0, cps.size))

  val bytes: Gen[Array[Byte]] = for {
    n <- Gen.frequency(3 -> Gen.choose(0, 8), 2 -> Gen.choose(9, 120))
    bs <- Gen.listOfN(n, Gen.frequency(3 -> Gen.choose(0, 8), 1 -> Gen.const(255)).map(_.toByte))
  } yield bs.toArray

  /** A non-null internal value of `dt` (a flat type). */
  def value(dt: DataType): Gen[Any] = dt match {
    case _: StringType => string
    case BinaryType => bytes
    case _: DecimalType | IntegerType | ShortType | LongType | DoubleType | FloatType | DateType |
         TimestampType | BooleanType => SoundnessGen.value(dt).flatMap(identity)
  }

  private def ordered(dt: DataType): Gen[(Option[Any], Option[Any])] = {
    val ord = ValueOrdering.of(dt).get
    for {
      a <- value(dt)
      b <- value(dt)
      (lo, hi) = if (ord.lteq(a, b)) (a, b) else (b, a)
      keepLo <- Gen.frequency(9 -> true, 1 -> false)
      keepHi <- Gen.frequency(9 -> true, 1 -> false)
    } yield (Some(lo).filter(_ => keepLo), Some(hi).filter(_ => keepHi))
  }

  /** Stats of a column (or nested value) of type `dt`; `depth` bounds JSON levels. */
  def column(dt: DataType, depth: Int): Gen[ColumnStats] = for {
    nulls <- Gen.choose(0L, 50L)
    bounds <- dt match {
      case _ if ValueOrdering.isRanged(dt) => ordered(dt)
      case _: StringType => Gen.zip(string, string).map { case (a, b) => (Some(a), Some(b)) } // collated
      case _ => Gen.const((None, None))
    }
    nested <- Gen.frequency(1 -> Gen.const(None), 4 -> nested(dt, depth))
  } yield ColumnStats(nulls, bounds._1, bounds._2, nested)

  private def nested(dt: DataType, depth: Int): Gen[Option[NestedStats]] = dt match {
    case s: StructType =>
      Gen.sequence[List[Option[(String, ColumnStats)]], Option[(String, ColumnStats)]](
        s.fields.toList.map(f => Gen.option(column(f.dataType, depth).map(f.name -> _))))
        .map(fs => Some(StructStats(fs.flatten.toMap)))
    case a: ArrayType => for {
      min <- Gen.choose(0, 5); extra <- Gen.choose(0, 5); count <- Gen.choose(0L, 100L)
      elements <- Gen.option(column(a.elementType, depth))
    } yield Some(ArrayStats(min, min + extra, count, elements))
    case m: MapType => for {
      min <- Gen.choose(0, 5); extra <- Gen.choose(0, 5); count <- Gen.choose(0L, 100L)
      keys <- Gen.option(column(m.keyType, depth)); values <- Gen.option(column(m.valueType, depth))
    } yield Some(MapStats(min, min + extra, count, keys, values))
    // A UTF8_BINARY string column may hold JSON text: its nested stats are then JsonStats.
    case VariantType | StringType => json(depth).map(Some(_))
    case _ => Gen.const(None)
  }

  private val number: Gen[java.math.BigDecimal] =
    Gen.oneOf(Gen.choose(-1000L, 1000L).map(java.math.BigDecimal.valueOf),
      Gen.choose(-1e30, 1e30).map(d => new java.math.BigDecimal(d)))

  private def scalar[T](values: Gen[T], ord: (T, T) => Boolean): Gen[(Long, Option[T], Option[T])] = for {
    count <- Gen.choose(0L, 20L)
    a <- values; b <- values
    (lo, hi) = if (ord(a, b)) (a, b) else (b, a)
    bounded <- Gen.frequency(1 -> false, 4 -> true)
  } yield if (count == 0 || !bounded) (count, None, None) else (count, Some(lo), Some(hi))

  /** JSON stats of `depth` levels at most, mixing every kind. */
  def json(depth: Int): Gen[JsonStats] = for {
    count <- Gen.choose(0L, 100L)
    jsonNulls <- Gen.choose(0L, 5L)
    (bc, bl, bu) <- scalar[Boolean](Gen.oneOf(false, true), (a, b) => !a || b)
    (nc, nl, nu) <- scalar[java.math.BigDecimal](number, (a, b) => a.compareTo(b) <= 0)
    integral <- Gen.oneOf(false, true)
    (sc, sl, su) <- scalar[UTF8String](string, (a, b) => a.binaryCompare(b) <= 0)
    sm <- if (sc == 0) Gen.const(None) else Gen.frequency(2 -> Gen.const(None), 1 -> membership.map(Some(_)))
    keys <- if (depth <= 0) Gen.const(Nil) else Gen.choose(0, 4).flatMap(Gen.listOfN(_,
      Gen.zip(Gen.oneOf(Gen.identifier.map(_.take(12)), string.map(_.toString)), json(depth - 1))))
    objects <- Gen.choose(0L, 20L)
    elements <- if (depth <= 0) Gen.const(None) else Gen.option(json(depth - 1))
    arrays <- Gen.choose(0L, 20L)
    others <- Gen.choose(0L, 3L)
  } yield JsonStats(count, jsonNulls, JsonScalarStats(bc, bl, bu), JsonNumberStats(nc, nl, nu, integral),
    JsonScalarStats(sc, sl, su, sm), JsonObjectStats(objects, keys.toMap),
    JsonArrayStats(arrays, 0, 3, elements), others)

  /** Stats for a random subset of `schema`'s columns. */
  def part(schema: ShardSchema, depth: Int): Gen[PartStats] = for {
    rows <- Gen.choose(1L, 1000000L)
    columns <- Gen.sequence[List[Option[(Int, ColumnStats)]], Option[(Int, ColumnStats)]](
      schema.columns.toList.map(c => Gen.frequency(1 -> Gen.const(None),
        6 -> topLevel(c.dataType, depth).map(s => Some(c.id -> s)))))
  } yield PartStats(rows, rows * 40, columns.flatten.toMap)

  /** Stats of a top-level column: those of [[column]], with a membership filter where one fits. */
  private def topLevel(dt: DataType, depth: Int): Gen[ColumnStats] = for {
    c <- column(dt, depth)
    members <- if (MembershipFilter.supports(dt)) Gen.frequency(1 -> Gen.const(None), 1 -> membership.map(Some(_)))
      else Gen.const(None)
  } yield c.copy(members = members)

  /** An exact hash set (sorted distinct hashes) or a Bloom filter of random bits. */
  val membership: Gen[MembershipFilter] = Gen.oneOf(
    Gen.listOf(Gen.long).map(hs => MembershipFilter.Exact(hs.distinct.sorted.toArray)),
    for {
      probes <- Gen.choose(1, 10)
      words <- Gen.nonEmptyListOf(Gen.long)
    } yield MembershipFilter.Bloom(probes, words.toArray))
}

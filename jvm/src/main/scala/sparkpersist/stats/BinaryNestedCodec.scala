package sparkpersist.stats

import org.apache.avro.io.{BinaryDecoder, Encoder}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.stats.BinaryStatsCodec.{membersField, membersOf, readColumn, whole, writeColumn}
import sparkpersist.stats.StatsBinary._

/**
 * Binary encoding of [[NestedStats]], the `nested` field of a column's binary stats: one field
 * whose kind says what the stats describe (the legacy JSON's `struct`, `array`, `map`, `json`),
 * typed by the column's type:
 * {{{
 *   struct := array<{name: string, stats: bytes<column>}>
 *   array  := minSize: int, maxSize: int, elements: long, fields {1: element column}
 *   map    := minSize: int, maxSize: int, entries: long, fields {1: key column, 2: value column}
 *   json   := count: long, nulls: long, others: long, fields {1: booleans, 2: numbers, 3: strings,
 *             4: objects, 5: arrays, 6: casts of the strings (see [[BinaryCastCodec]])}
 *     booleans, strings := count: long, fields {1: lower, 2: upper, 3: membership filter
 *                          ([[MembershipCodec]] bytes; strings only)}
 *     numbers := count: long, integral: boolean, fields {1: lower, 2: upper (exact decimals),
 *                3: membership filter of the integers}
 *     objects := count: long, keys: array<{key: string, stats: bytes<json>}>
 *     arrays  := count: long, minSize: int, maxSize: int, fields {1: elements json}
 * }}}
 * Fields of unknown kinds are skipped, so stats written by a later version still read.
 * Reading widens on damage as the legacy JSON reader does: a damaged field, element, key or value loses
 * its own stats; nested stats of the wrong kind for the type, with unreadable counts or sizes,
 * or JSON stats whose kinds' counts do not add up, fail whole. A struct field name or JSON key
 * that UTF-8 cannot carry exactly (an unpaired surrogate) is left out, as are the keys and
 * elements past [[MaxJsonLevels]] levels, which only widens.
 */
private[stats] object BinaryNestedCodec {
  private val StructKind = 1
  private val ArrayKind = 2
  private val MapKind = 3
  private val JsonKind = 4

  /**
   * JSON levels stored: the keys and elements of deeper levels are left out (readers assume
   * anything there), so encoding and decoding stay within a thread's stack whatever the data.
   */
  val MaxJsonLevels = 64

  def write(dt: DataType, nested: NestedStats, what: String): Array[Byte] = encode { out =>
    (dt, nested) match {
      case (st: StructType, s: StructStats) =>
        val fields = s.fields.toSeq.sortBy(_._1).map { case (name, c) =>
          val field = st.fields.find(_.name == name).getOrElse(throw new IllegalArgumentException(
            s"Nested stats of $what name field '$name', which ${st.catalogString} does not have"))
          name -> writeColumn(field.dataType, c, s"$what.$name")
        }
        writeFields(out, StructKind -> Some(encode(named(_, fields))))
      case (at: ArrayType, a: ArrayStats) =>
        writeFields(out, ArrayKind -> Some(encode { o =>
          sizes(o, a.minSize, a.maxSize, a.elementCount)
          writeFields(o, 1 -> a.elements.map(writeColumn(at.elementType, _, s"$what[]")))
        }))
      case (mt: MapType, m: MapStats) =>
        writeFields(out, MapKind -> Some(encode { o =>
          sizes(o, m.minSize, m.maxSize, m.entryCount)
          writeFields(o, 1 -> m.keys.map(writeColumn(mt.keyType, _, s"keys of $what")),
            2 -> m.values.map(writeColumn(mt.valueType, _, s"values of $what")))
        }))
      case (VariantType | _: StringType, j: JsonStats) =>
        writeFields(out, JsonKind -> Some(json(j, 1)))
      case _ => throw new IllegalArgumentException(
        s"${nested.getClass.getSimpleName} cannot describe $what, of type ${dt.catalogString}")
    }
  }

  /** The nested stats `in` encodes for a value of type `dt`; fails if they are unusable. */
  def read(dt: DataType, in: BinaryDecoder): NestedStats = {
    var result: Option[NestedStats] = None
    readFields(in) { (kind, p) =>
      result = Some((dt, kind) match {
        case (st: StructType, StructKind) =>
          val types = st.fields.iterator.map(f => f.name -> f.dataType).toMap
          StructStats(readNamed(p)((name, c) => types.get(name).map(t => whole(c)(readColumn(Some(t), _)))))
        case (at: ArrayType, ArrayKind) =>
          val (min, max, count) = readSizes3(p)
          var element: Option[ColumnStats] = None
          readFields(p) { (k, e) => if (k == 1) element = attempt(whole(e)(readColumn(Some(at.elementType), _))) }
          ArrayStats(min, max, count, element)
        case (mt: MapType, MapKind) =>
          val (min, max, count) = readSizes3(p)
          var keys, values: Option[ColumnStats] = None
          readFields(p) { (k, e) =>
            if (k == 1) keys = attempt(whole(e)(readColumn(Some(mt.keyType), _)))
            else if (k == 2) values = attempt(whole(e)(readColumn(Some(mt.valueType), _)))
          }
          MapStats(min, max, count, keys, values)
        case (VariantType | _: StringType, JsonKind) => whole(p)(readJson)
        case _ => throw new IllegalArgumentException(s"nested stats of kind $kind cannot describe ${dt.catalogString}")
      })
    }
    result.getOrElse(throw new IllegalArgumentException("nested stats without a kind"))
  }

  /** JSON stats at nesting level `level`: past [[MaxJsonLevels]], keys and elements are left out. */
  private def json(j: JsonStats, level: Int): Array[Byte] = encode { out =>
    val deeper = level < MaxJsonLevels
    out.writeLong(j.count)
    out.writeLong(j.jsonNulls)
    out.writeLong(j.others)
    writeFields(out,
      1 -> scalar(j.booleans, BooleanType),
      2 -> Option.when(j.numbers.count > 0)(encode { o =>
        o.writeLong(j.numbers.count)
        o.writeBoolean(j.numbers.integral)
        writeFields(o, 1 -> j.numbers.lower.map(v => encode(writeDecimal(_, v))),
          2 -> j.numbers.upper.map(v => encode(writeDecimal(_, v))), 3 -> j.numbers.members.map(membersField))
      }),
      3 -> scalar(j.strings, StringType),
      4 -> Option.when(j.objects.count > 0)(encode { o =>
        o.writeLong(j.objects.count)
        named(o, if (deeper) j.objects.keys.toSeq.sortBy(_._1).map { case (k, v) => k -> json(v, level + 1) } else Nil)
      }),
      5 -> Option.when(j.arrays.count > 0)(encode { o =>
        sizes(o, j.arrays.minSize, j.arrays.maxSize, j.arrays.count)
        writeFields(o, 1 -> j.arrays.elements.filter(_ => deeper).map(json(_, level + 1)))
      }),
      6 -> j.casts.map(BinaryCastCodec.write))
  }

  private def readJson(in: BinaryDecoder): JsonStats = {
    val total = readCount(in, "count")
    val nulls = readCount(in, "nulls")
    val others = readCount(in, "others")
    var stats = JsonStats.empty.copy(count = total, jsonNulls = nulls, others = others)
    readFields(in) { (kind, p) =>
      stats = kind match {
        case 1 => stats.copy(booleans = whole(p)(readScalar(_, BooleanType)))
        case 2 => stats.copy(numbers = whole(p) { n =>
          val count = readCount(n, "count")
          val integral = n.readBoolean()
          var lower, upper: Option[java.math.BigDecimal] = None
          var members: Option[MembershipFilter] = None
          readFields(n) { (k, b) =>
            if (k == 1) lower = attempt(whole(b)(readDecimal))
            else if (k == 2) upper = attempt(whole(b)(readDecimal))
            else if (k == 3) members = attempt(whole(b)(membersOf)).flatten
          }
          JsonNumberStats(count, lower, upper, integral, members)
        })
        case 3 => stats.copy(strings = whole(p)(readScalar(_, StringType)))
        case 4 => stats.copy(objects = whole(p) { o =>
          val count = readCount(o, "count")
          JsonObjectStats(count, readNamed(o)((_, v) => attempt(whole(v)(readJson)).filter(_.count <= count)))
        })
        case 5 => stats.copy(arrays = whole(p) { a =>
          val (min, max, count) = readSizes3(a)
          var elements: Option[JsonStats] = None
          readFields(a)((k, e) => if (k == 1) elements = attempt(whole(e)(readJson)))
          JsonArrayStats(count, min, max, elements)
        })
        case 6 => stats.copy(casts = attempt(whole(p)(BinaryCastCodec.read)))
        case _ => stats
      }
    }
    val kinds = nulls + stats.booleans.count + stats.numbers.count + stats.strings.count +
      stats.objects.count + stats.arrays.count + others
    require(kinds == total, s"the kinds' counts add up to $kinds, not to $total")
    stats
  }

  private def scalar(s: JsonScalarStats, dt: DataType): Option[Array[Byte]] =
    Option.when(s.count > 0)(encode { o =>
      o.writeLong(s.count)
      writeFields(o, 1 -> s.lower.flatMap(BinaryStatsCodec.bound(s"JSON ${dt.typeName} bound", dt, _)),
        2 -> s.upper.flatMap(BinaryStatsCodec.bound(s"JSON ${dt.typeName} bound", dt, _)),
        3 -> s.members.map(membersField))
    })

  private def readScalar(in: BinaryDecoder, dt: DataType): JsonScalarStats = {
    val count = readCount(in, "count")
    var lower, upper: Option[Any] = None
    var members: Option[MembershipFilter] = None
    readFields(in) { (k, b) =>
      if (k == 1) lower = attempt(whole(b)(BinaryStatsCodec.readBound(dt, _)))
      else if (k == 2) upper = attempt(whole(b)(BinaryStatsCodec.readBound(dt, _)))
      else if (k == 3 && dt == StringType) members = attempt(whole(b)(membersOf)).flatten
    }
    JsonScalarStats(count, lower, upper, members)
  }

  private def sizes(out: Encoder, min: Int, max: Int, count: Long): Unit = {
    out.writeInt(min)
    out.writeInt(max)
    out.writeLong(count)
  }

  private def readSizes3(in: BinaryDecoder): (Int, Int, Long) = {
    val (min, max) = readSizes(in)
    (min, max, readCount(in, "count"))
  }

  /** Writes `(name, stats)` entries, leaving out names UTF-8 cannot carry exactly. */
  private def named(out: Encoder, entries: Seq[(String, Array[Byte])]): Unit =
    writeArray(out, entries.filter { case (name, _) => UTF8String.fromString(name).toString == name }) {
      case (name, stats) =>
        out.writeString(name)
        out.writeBytes(stats)
    }

  /** Reads `(name, stats)` entries, keeping those `entry` reads (None: unknown or damaged). */
  private def readNamed[T](in: BinaryDecoder)(entry: (String, BinaryDecoder) => Option[T]): Map[String, T] = {
    val out = Map.newBuilder[String, T]
    readArray(in) {
      val name = string(in)
      val stats = bytes(in)
      attempt(entry(name, decoder(stats))).flatten.foreach(out += name -> _)
    }
    out.result()
  }
}

package sparkpersist.roundtrip

import java.util.{ArrayList => JList, UUID}

import scala.util.Random

import org.apache.spark.types.variant.VariantBuilder
import org.apache.spark.unsafe.types.VariantVal

/**
 * Random VARIANT values, built with Spark's own [[VariantBuilder]] (what `parse_json` and
 * `to_variant_object` use): objects with unique keys (unicode and empty keys included), arrays,
 * and every scalar kind a variant holds — null, booleans, integers of every width, decimals up to
 * 38 digits, floats and doubles (NaN, infinities and -0.0 included), strings with non-BMP
 * characters, dates, timestamps with and without time zone, binary and UUIDs.
 */
object RandomVariants {

  def value(rand: Random): VariantVal = {
    val builder = new VariantBuilder(false)
    append(builder, rand, depth = rand.nextInt(4))
    val v = builder.result()
    new VariantVal(v.getValue, v.getMetadata)
  }

  private def append(b: VariantBuilder, rand: Random, depth: Int): Unit =
    if (depth > 0 && rand.nextInt(3) == 0) {
      val start = b.getWritePos
      val keys = RandomNames.level(rand, rand.nextInt(4), topLevel = false).distinct
      val fields = new JList[VariantBuilder.FieldEntry]()
      keys.foreach { k =>
        fields.add(new VariantBuilder.FieldEntry(k, b.addKey(k), b.getWritePos - start))
        append(b, rand, depth - 1)
      }
      b.finishWritingObject(start, fields)
    } else if (depth > 0 && rand.nextInt(2) == 0) {
      val start = b.getWritePos
      val offsets = new JList[Integer]()
      (0 until rand.nextInt(4)).foreach { _ =>
        offsets.add(b.getWritePos - start)
        append(b, rand, depth - 1)
      }
      b.finishWritingArray(start, offsets)
    } else scalar(b, rand)

  private def scalar(b: VariantBuilder, rand: Random): Unit = rand.nextInt(14) match {
    case 0 => b.appendNull()
    case 1 => b.appendBoolean(rand.nextBoolean())
    case 2 => b.appendLong(rand.nextInt(200) - 100)
    case 3 => b.appendLong(rand.nextLong())
    case 4 =>
      val precision = 1 + rand.nextInt(38)
      b.appendDecimal(RandomValues.decimal(rand, precision, rand.nextInt(precision + 1)).bigDecimal)
    case 5 => b.appendDouble(RandomValues.double(rand))
    case 6 => b.appendFloat(RandomValues.float(rand))
    case 7 | 8 => b.appendString(RandomValues.string(rand))
    case 9 => b.appendDate(RandomValues.days(rand))
    case 10 => b.appendTimestamp(RandomValues.micros(rand))
    case 11 => b.appendTimestampNtz(RandomValues.micros(rand))
    case 12 => b.appendBinary(RandomValues.binary(rand))
    case _ => b.appendUuid(new UUID(rand.nextLong(), rand.nextLong()))
  }
}

package sparkpersist.stats

import java.math.{BigDecimal => JBigDecimal}

import scala.util.control.NonFatal

import com.fasterxml.jackson.core.{JsonFactory, JsonFactoryBuilder, JsonParser, JsonToken}
import com.fasterxml.jackson.core.util.{BufferRecycler, RecyclerPool}
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.json.CreateJacksonParser
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * The stats of a string column declared to hold JSON text (see
 * [[sparkpersist.schema.JsonColumns]]): the usual string bounds (from the file when
 * `boundsFromFile`, [[FileBounded]]), plus [[JsonStats]] of the parsed
 * documents, as `get_json_object` sees them.
 *
 * A document of a plain subset (ASCII, integers, strings without escapes: [[PlainJson]]) is read
 * directly over its bytes. Any other value is parsed with a Jackson streaming parser (no tree per
 * row): over its UTF-8 bytes when they are valid, start with ASCII and hold no backslash-u escape,
 * which reads the same tokens as the character reader `get_json_object` wraps them in
 * (`CreateJacksonParser.utf8String`) without decoding them first; otherwise through that reader,
 * which replaces invalid bytes as `get_json_object` sees them. A value that is not exactly one
 * strict JSON document (a syntax error, trailing text, an object with a duplicate key, a string
 * with a lone surrogate, a Jackson read limit exceeded) makes the column's JSON stats absent for
 * the whole part: absent means "anything", never wrong.
 *
 * With a `castZone`, the string values of each place also get [[CastStats]] ([[JsonPlace]]).
 *
 * Numbers: an integer literal is recorded exactly; a literal with a fraction or an exponent is
 * recorded as the interval between the neighbours of its nearest double (which brackets both its
 * exact value and the double `get_json_object` prints), so `integral` is true only when every
 * number at a place was written as an integer literal.
 *
 * While the JSON stats stand, the values Spark's `parse_json` accepts are counted
 * ([[VariantParse]]), so that `parse_json(column)` can be read as a VARIANT with these stats and
 * proven not to raise. A value this walk read whole over its bytes ([[JsonTextCollector.Walk.proves]])
 * is one `parse_json` accepts, and is counted without parsing it again; any other valid value goes
 * through Spark's own parser.
 */
final class JsonTextCollector(boundChars: Int, limits: JsonLimits = JsonLimits.Default,
    castZone: Option[String] = None, val boundsFromFile: Boolean = false) extends StatsCollector with FileBounded {
  private val text = new StringCollector(boundChars, boundsFromFile = boundsFromFile)
  private var root = JsonPlace.root(limits, castZone)
  private var parsed = 0L
  private val walk = new JsonTextCollector.Walk

  override protected def updateNonNull(row: SpecializedGetters, ordinal: Int): Unit = {
    text.update(row, ordinal)
    if (root != null) {
      val json = row.getUTF8String(ordinal)
      if (!JsonTextCollector.add(json, root, walk)) root = null
      else if (walk.proves || (walk.valid && VariantParse.parsesValid(json))) parsed += 1
    }
  }

  override def useFileBounds(bounds: Option[FileBounds]): Unit = text.useFileBounds(bounds)

  override protected def lower: Option[Any] = text.result().lower
  override protected def upper: Option[Any] = text.result().upper
  override protected def nested: Option[NestedStats] = Option(root).map(_.result(boundChars))
  override protected def variantParse: Option[VariantParse] =
    Option(root).map(_ => VariantParse(parsed, VariantParse.Parser))
}

object JsonTextCollector {

  /**
   * What the walk of one value saw, beyond the stats: whether it read the value's UTF-8 bytes
   * themselves (valid, plain start), how many object keys it met, and whether it checked every
   * object of the document for duplicate keys (a subtree past the depth or key limits of the
   * stats is skipped unchecked).
   */
  final class Walk {
    private[JsonTextCollector] var valid = false
    private[JsonTextCollector] var overBytes = false
    private[stats] var keys = 0
    private[stats] var whole = true
    private[JsonTextCollector] var small = false
    /** Jackson's factory, its parsers reusing one set of buffers: a walk parses one value at a time. */
    private[JsonTextCollector] val factory: JsonFactory = new JsonFactoryBuilder().recyclerPool(new OneRecycler).build()
    /** The reader of documents of the plain subset, which need no parser. */
    private[JsonTextCollector] val plain = new PlainJson
    /** The keys of the objects being walked, outermost first (each object's after its `from`). */
    private var names = new Array[String](16)
    private var named = 0

    /** Reads `json`'s bytes once: whether they are valid UTF-8 and can be parsed as bytes (below). */
    private[JsonTextCollector] def start(json: UTF8String): Unit = {
      val n = json.numBytes()
      var ascii = true
      var plain = n > 0
      var i = 0
      while (i < n) {
        val b = json.getByte(i)
        if (b < 0) ascii = false
        if ((i < 4 && b <= 0) || (b == '\\' && i + 1 < n && json.getByte(i + 1) == 'u')) plain = false
        i += 1
      }
      valid = ascii || json.isValid
      overBytes = valid && plain
      reset(n)
    }

    /**
     * Starts a document of [[PlainJson]]'s subset, which needs no scan: it is ASCII without NUL or
     * backslash, so valid and read over its bytes.
     */
    private[JsonTextCollector] def startPlain(n: Int): Unit = {
      valid = true
      overBytes = true
      reset(n)
    }

    private def reset(n: Int): Unit = {
      keys = 0
      whole = true
      small = n <= MaxProvenBytes
      named = 0
    }

    /** Where the keys of an object starting now go. */
    private[stats] def objectStart: Int = named

    /**
     * Notes `name` as a key of the object whose keys start at `from`; false if that object
     * already has it. An object's first [[FewKeys]] keys are compared one by one (no set per
     * object); `seen` is the set of its keys past them, null until then.
     */
    private[stats] def newKey(from: Int, name: String, seen: java.util.HashSet[String]): Boolean =
      if (seen != null) seen.add(name)
      else {
        var i = from
        while (i < named && names(i) != name) i += 1
        i == named && {
          if (named == names.length) names = java.util.Arrays.copyOf(names, named * 2)
          names(named) = name
          named += 1
          true
        }
      }

    /** Whether the object whose keys start at `from` has too many for [[newKey]] to compare one by one. */
    private[stats] def manyKeys(from: Int): Boolean = named - from >= FewKeys

    /** The keys of the object starting at `from` as a set, which [[newKey]] then uses for it. */
    private[stats] def keySet(from: Int): java.util.HashSet[String] = {
      val set = new java.util.HashSet[String]()
      (from until named).foreach(i => set.add(names(i)))
      objectEnd(from)
      set
    }

    /** Ends the object whose keys start at `from`. */
    private[stats] def objectEnd(from: Int): Unit = {
      java.util.Arrays.fill(names.asInstanceOf[Array[AnyRef]], from, named, null)
      named = from
    }

    /**
     * Whether the last value walked, which was one strict JSON document, is one Spark's
     * `parse_json` accepts: its bytes were read as the same tokens `parse_json`'s character parser
     * reads, it has no duplicate key anywhere (checked), at most [[MaxProvenKeys]] keys (no
     * field-name table of a fresh parser can then overflow its collision limit, the one check the
     * two parsers make differently), and at most [[MaxProvenBytes]] bytes (a VARIANT takes at most
     * a few bytes per byte of JSON: far under its 16 MiB limit). `parse_json` rejects nothing else:
     * every number token becomes a long, a decimal or a double.
     */
    def proves: Boolean = overBytes && whole && small && keys <= MaxProvenKeys
  }

  /**
   * Holds the buffers of one parser between values. Jackson's default pool keeps them per thread,
   * at the cost of a thread-local lookup for every parser, that is every value.
   */
  private final class OneRecycler extends RecyclerPool[BufferRecycler] {
    private var held: BufferRecycler = _

    override def acquirePooled(): BufferRecycler = {
      val recycler = if (held == null) new BufferRecycler else held
      held = null
      recycler
    }

    override def releasePooled(recycler: BufferRecycler): Unit = held = recycler
  }

  /** Keys of one object checked for duplicates one by one, before a set takes over. */
  private val FewKeys: Int = 16

  /** Most keys a value may hold to be proven to parse without Spark's parser. */
  val MaxProvenKeys: Int = 100

  /** Most bytes a value may hold to be proven to parse without Spark's parser. */
  val MaxProvenBytes: Int = 1 << 20

  /**
   * Parses `json` and reports its document to `root`, noting in `walk` whether its bytes are
   * valid UTF-8 and what [[Walk.proves]] needs; false if it is not one valid document. A document
   * of [[PlainJson]]'s subset is read without a parser unless `plain` is false.
   */
  def add(json: UTF8String, root: JsonPlace, walk: Walk = new Walk, plain: Boolean = true): Boolean =
    try {
      if (plain && walk.plain.accepts(json)) {
        walk.startPlain(json.numBytes())
        walk.plain.report(root, walk)
      } else {
        walk.start(json)
        val factory = walk.factory
        val parser = if (!walk.overBytes) CreateJacksonParser.utf8String(factory, json) else json.getBaseObject match {
          case bytes: Array[Byte] =>
            factory.createParser(bytes, (json.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, json.numBytes())
          case _ => factory.createParser(json.getBytes)
        }
        try {
          val first = parser.nextToken()
          first != null && value(parser, first, root, walk) && parser.nextToken() == null
        } finally parser.close()
      }
    } catch {
      case NonFatal(_) => false
    }

  // A value is parsed over its bytes (Walk.overBytes) when Jackson reads them as the reader decoding
  // them would: they are valid UTF-8, their first bytes (up to four) are ASCII other than NUL
  // (Jackson guesses UTF-16 or UTF-32 from NULs among them, and skips a byte order mark, which the
  // reader keeps), and they hold no backslash-u escape (the byte parser refuses a lone surrogate
  // escaped in a key, which the reader takes).

  /** Reports the value starting at `token` to `place` (null: skip it); false if invalid. */
  private def value(p: JsonParser, token: JsonToken, place: JsonPlace, walk: Walk): Boolean =
    if (place == null) {
      if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) walk.whole = false
      p.skipChildren()
      true
    } else token match {
      case JsonToken.START_OBJECT => obj(p, place, walk)
      case JsonToken.START_ARRAY =>
        val elements = place.elementPlace()
        var size = 0
        var ok = true
        var t = p.nextToken()
        while (ok && t != JsonToken.END_ARRAY) {
          ok = value(p, t, elements, walk)
          size += 1
          t = p.nextToken()
        }
        place.addArray(size)
        ok
      case JsonToken.VALUE_STRING =>
        val s = p.getText
        if (hasLoneSurrogate(s)) false else { place.addString(UTF8String.fromString(s)); true }
      case JsonToken.VALUE_NUMBER_INT =>
        p.getNumberType match {
          case JsonParser.NumberType.INT | JsonParser.NumberType.LONG => place.addLong(p.getLongValue)
          case _ => place.addDecimal(new JBigDecimal(p.getBigIntegerValue))
        }
        true
      case JsonToken.VALUE_NUMBER_FLOAT =>
        val d = p.getDoubleValue
        place.addDoubleBetween(Math.nextDown(d), Math.nextUp(d))
        true
      case JsonToken.VALUE_TRUE => place.addBoolean(true); true
      case JsonToken.VALUE_FALSE => place.addBoolean(false); true
      case JsonToken.VALUE_NULL => place.addNull(); true
      case _ => false
    }

  private def obj(p: JsonParser, place: JsonPlace, walk: Walk): Boolean = {
    place.addObject()
    val from = walk.objectStart
    var seen: java.util.HashSet[String] = null
    var ok = true
    var t = p.nextToken()
    while (ok && t == JsonToken.FIELD_NAME) {
      val name = p.currentName()
      walk.keys += 1
      if (seen == null && walk.manyKeys(from)) seen = walk.keySet(from)
      ok = walk.newKey(from, name, seen) && value(p, p.nextToken(), place.key(name), walk)
      t = p.nextToken()
    }
    if (seen == null) walk.objectEnd(from)
    ok
  }

  private def hasLoneSurrogate(s: String): Boolean = {
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length || !Character.isLowSurrogate(s.charAt(i + 1))) return true
        i += 2
      } else if (Character.isLowSurrogate(c)) return true
      else i += 1
    }
    false
  }
}

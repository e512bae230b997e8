package sparkpersist.stats

import java.time.{DateTimeException, LocalDate}

import org.apache.spark.sql.catalyst.util.DateTimeConstants

/**
 * Reads the canonical text of a date or a local timestamp, `yyyy-MM-dd`, optionally followed by
 * `' '` or `'T'` and `HH:mm:ss` with up to six fraction digits, nothing before or after: the form
 * `CAST(ts AS STRING)` writes and most exports use. On such text, Spark's `CAST(s AS DATE)` is
 * the date's day number and `CAST(s AS TIMESTAMP)` that local date-time in the session zone
 * ([[LocalInstants]] turns it into an instant); [[CastStatsCollector]] reads them here in one
 * pass instead of through Spark's general parsers. Any other text (another length, a zone, a
 * 5-digit year, whitespace, an invalid month, day or time) is left to those parsers: [[read]]
 * answers false.
 */
private[stats] final class CanonicalTime {
  /** The day number (days since 1970-01-01) of the text last read. */
  var days: Int = 0
  /** Its local date-time, in microseconds since 1970-01-01T00:00 (the date's midnight for a date). */
  var localMicros: Long = 0L

  private var lastDate = -1L // yyyyMMdd of the last date computed, and its day number
  private var lastDays = 0

  /** Reads `s` into [[days]] and [[localMicros]]; false (fields unset) if it is not canonical. */
  def read(s: TextBytes): Boolean = {
    val n = s.numBytes
    if (n != 10 && n != 19 && !(n >= 21 && n <= 26)) return false
    val year = digits(s, 0, 4)
    val month = digits(s, 5, 2)
    val day = digits(s, 8, 2)
    if (year < 0 || month < 1 || month > 12 || day < 1 || s.getByte(4) != '-' || s.getByte(7) != '-') return false
    var micros = 0L
    if (n > 10) {
      val sep = s.getByte(10)
      val hour = digits(s, 11, 2)
      val minute = digits(s, 14, 2)
      val second = digits(s, 17, 2)
      if ((sep != ' ' && sep != 'T') || s.getByte(13) != ':' || s.getByte(16) != ':' ||
        hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false
      var fraction = 0
      if (n > 19) {
        if (s.getByte(19) != '.') return false
        fraction = digits(s, 20, n - 20)
        if (fraction < 0) return false
        var k = n - 20
        while (k < 6) { fraction *= 10; k += 1 }
      }
      micros = ((hour * 60L + minute) * 60L + second) * 1000000L + fraction
    }
    val date = year * 10000L + month * 100 + day
    if (date != lastDate) {
      try lastDays = LocalDate.of(year, month, day).toEpochDay.toInt
      catch { case _: DateTimeException => return false } // a day the month does not have
      lastDate = date
    }
    days = lastDays
    localMicros = lastDays * DateTimeConstants.MICROS_PER_DAY + micros
    true
  }

  /** The value of the `count` ASCII digits at `from`, or -1 if one of them is not a digit. */
  private def digits(s: TextBytes, from: Int, count: Int): Int = {
    var v = 0
    var i = from
    while (i < from + count) {
      val d = s.getByte(i) - '0'
      if (d < 0 || d > 9) return -1
      v = v * 10 + d
      i += 1
    }
    v
  }
}


package sparkpersist.stream

import java.util.Locale

import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import sparkpersist.errors.PersistErrors

/**
 * The read options of a streaming read of a shard (`spark.readStream.option(...)`):
 *
 *  - `startingAsOf`: `latest` (default), the shard's latest complete time (`upper - 1`) when
 *    the query first starts; or a time (epoch ms) with `since <= t < upper`. The first micro-batch
 *    is the snapshot as of that time. Ignored once the query resumes from a checkpoint.
 *  - `maxBatchesPerTrigger`: at most this many of the shard's batches per micro-batch after the
 *    snapshot (which is always one micro-batch). Unset: everything committed.
 */
final case class StreamReadOptions(startingAsOf: Option[Long], maxBatchesPerTrigger: Option[Int]) {
  def readLimit: ReadLimit = maxBatchesPerTrigger.fold(ReadLimit.allAvailable())(ReadMaxBatches(_))
}

object StreamReadOptions {
  val StartingAsOf = "startingAsOf"
  val MaxBatchesPerTrigger = "maxBatchesPerTrigger"

  def parse(shard: String, options: CaseInsensitiveStringMap): StreamReadOptions = {
    def invalid(key: String, value: String, expected: String) =
      PersistErrors.invalidOption(s"Invalid streaming read option $key = '$value' for shard '$shard'", s"expected $expected.")
    val startingAsOf = Option(options.get(StartingAsOf)).map(_.trim).flatMap {
      case v if v.toLowerCase(Locale.ROOT) == "latest" => None
      case v => Some(v.toLongOption.getOrElse(throw invalid(StartingAsOf, v, "'latest' or a time in epoch milliseconds")))
    }
    val maxBatches = Option(options.get(MaxBatchesPerTrigger)).map(_.trim).map { v =>
      v.toIntOption.filter(_ >= 1).getOrElse(throw invalid(MaxBatchesPerTrigger, v, "a positive integer"))
    }
    StreamReadOptions(startingAsOf, maxBatches)
  }
}

/** Admission control of a shard stream: at most `batches` of the shard's batches per micro-batch. */
final case class ReadMaxBatches(batches: Int) extends ReadLimit {
  require(batches >= 1, "at least one batch per micro-batch")
}

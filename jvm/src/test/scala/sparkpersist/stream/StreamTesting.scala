package sparkpersist.stream

import java.io.File
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.streaming.Trigger

import sparkpersist.PersistSparkSession
import sparkpersist.scan.{ScanReport, ScanReports}

/** One micro-batch as a `foreachBatch` sink saw it: its id, its rows (sorted) and its persist scans. */
final case class MicroBatch(id: Long, rows: Seq[String], scans: Seq[ScanReport])

/** Runs streaming reads of shards to completion and collects what each micro-batch held. */
trait StreamTesting extends PersistSparkSession {

  /** A fresh checkpoint location. */
  protected def newCheckpoint(): File = Files.createTempDirectory(root.toPath, "checkpoint").toFile

  /**
   * Runs `stream` with `Trigger.AvailableNow` from `checkpoint` until it has read everything
   * committed when it started; returns its micro-batches in order. Throws what the query threw.
   */
  protected def runAvailableNow(stream: DataFrame, checkpoint: File): Seq[MicroBatch] = {
    val batches = ArrayBuffer.empty[MicroBatch]
    val collect: (DataFrame, Long) => Unit = (df, id) => {
      val rows = df.collect().map(rowString).toSeq.sorted
      batches.synchronized(batches += MicroBatch(id, rows, ScanReports.last(df.sparkSession)))
    }
    val query = stream.writeStream
      .option("checkpointLocation", checkpoint.getCanonicalPath)
      .trigger(Trigger.AvailableNow())
      .foreachBatch(collect)
      .start()
    try query.awaitTermination()
    finally query.stop()
    batches.synchronized(batches.toList)
  }

  protected def rowString(row: Row): String = row.toString

  /** `e` or its first cause of type `T`. */
  protected def causeOf[T <: Throwable](e: Throwable)(implicit tag: scala.reflect.ClassTag[T]): Option[T] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case t: T => t }
}

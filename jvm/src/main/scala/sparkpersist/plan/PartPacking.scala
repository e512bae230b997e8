package sparkpersist.plan

import org.apache.spark.sql.internal.SQLConf

import sparkpersist.read.PartFile
import sparkpersist.util.NextFit

/**
 * How parts read straight (no consolidation) become tasks: exactly as Spark's own file scans
 * split and pack files (`FilePartition.maxSplitBytes`, `PartitionedFileUtil.splitFiles`,
 * `FilePartition.getFilePartitions`), so a scan of the same files gets the same parallelism.
 * A part larger than the split size is read by several tasks, each taking the row groups whose
 * middle lies in its byte range; small parts are packed together, each costing its size plus
 * `spark.sql.files.openCostInBytes`, largest first, up to the split size per task.
 */
object PartPacking {

  /** The groups of (splits of) `files`, one group per task. */
  def tasks(files: Seq[PartFile], conf: SQLConf, parallelism: Int): Seq[IndexedSeq[PartFile]] = {
    val openCost = conf.filesOpenCostInBytes
    val minPartitions = conf.filesMinPartitionNum.getOrElse(parallelism)
    val bytesPerCore = files.map(_.bytes + openCost).sum / math.max(1, minPartitions)
    val maxSplit = math.min(conf.filesMaxPartitionBytes, math.max(openCost, bytesPerCore))
    val splits = files.flatMap { f =>
      if (f.bytes <= maxSplit) Seq(f)
      else (0L until f.bytes by maxSplit).map(start => f.copy(start = start, length = math.min(maxSplit, f.bytes - start)))
    }.sortBy(-_.splitBytes)
    NextFit.groups(splits, maxSplit, openCost)(_.splitBytes)
  }
}

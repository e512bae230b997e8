package sparkpersist.plan

import org.apache.spark.sql.internal.SQLConf
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.read.PartFile

/** Parts read straight are split and packed into tasks as Spark's file scans do it. */
class PartPackingSuite extends AnyFunSuite {

  private val conf = new SQLConf // maxPartitionBytes 128 MB, openCostInBytes 4 MB

  private def file(i: Int, bytes: Long) = PartFile(s"file:/p$i.parquet", bytes, 0L, key = s"p$i")

  test("small parts are packed with Spark's open cost: 200 parts of 100 KB make 7 tasks on 2 cores, as Spark's scan") {
    val tasks = PartPacking.tasks((0 until 200).map(file(_, 100000)), conf, parallelism = 2)
    assert(tasks.map(_.size) === Seq(32, 32, 32, 32, 32, 32, 8))
    assert(tasks.flatten.map(_.key).sorted === (0 until 200).map(i => s"p$i").sorted)
  }

  test("a part larger than the split size is read by several tasks, each a byte range of it") {
    val mb = 1L << 20
    val tasks = PartPacking.tasks(Seq(file(0, 300 * mb)), conf, parallelism = 2)
    assert(tasks.map(_.map(f => (f.start, f.splitBytes))) ===
      Seq(Seq((0L, 128 * mb)), Seq((128 * mb, 128 * mb)), Seq((256 * mb, 44 * mb))))
    assert(PartPacking.tasks(Seq(file(0, 300 * mb)), conf, parallelism = 8).flatten.size === 8)
  }
}

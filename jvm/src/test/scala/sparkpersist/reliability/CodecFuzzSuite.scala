package sparkpersist.reliability

import java.io.ByteArrayOutputStream

import org.apache.avro.io.EncoderFactory
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.stats.{BinaryStatsCodec, StatsGen}

/**
 * The codec fuzzing of [[CodecFuzz]] at a size for `make test`; `ReliabilitySoak` runs it at
 * 100k cases and more. A failure prints the damaged input that broke the codec.
 */
class CodecFuzzSuite extends AnyFunSuite {

  test("damaged stats records decode consistently or fail with the documented error") {
    val t = CodecFuzz.stats(cases = 4000, seed = 1)
    assert(t.failures === 0, t.summary)
    info(t.summary)
  }

  test("damaged binary stats decode consistently or fail with the documented error") {
    val t = CodecFuzz.binaryStats(cases = 4000, seed = 1)
    assert(t.failures === 0, t.summary)
    info(t.summary)
  }

  test("damaged state files decode consistently or fail with the documented error") {
    val t = CodecFuzz.state(cases = 3000, seed = 1)
    assert(t.failures === 0, t.summary)
    info(t.summary)
  }

  test("a damaged length prefix in binary stats is refused before anything that long is allocated") {
    // A checksummed record whose one column claims 1 GB of stats bytes followed by 3.
    val buffer = new ByteArrayOutputStream()
    val out = EncoderFactory.get().directBinaryEncoder(buffer, null)
    out.writeInt(BinaryStatsCodec.Version)
    out.writeFixed(new Array[Byte](4))
    Seq(10L, 100L, 0L, 1L, 1L).foreach(out.writeLong) // rows, bytes, no trimmed columns, 1 column: id 1
    out.writeFixed(new Array[Byte](8))
    out.writeLong(1L << 30)
    out.writeFixed(Array[Byte](0, 0, 0))
    out.flush()
    val damaged = CodecFuzz.resealed(buffer.toByteArray)
    val threads = java.lang.management.ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
    val before = threads.getCurrentThreadAllocatedBytes
    val e = intercept[IllegalArgumentException](BinaryStatsCodec(StatsGen.schema).decode(damaged))
    assert(threads.getCurrentThreadAllocatedBytes - before < CodecFuzz.allocationLimit(damaged.length))
    assert(e.getMessage === s"requirement failed: a length of ${1L << 30} bytes with 3 bytes left")
  }
}

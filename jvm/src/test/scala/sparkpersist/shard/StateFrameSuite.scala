package sparkpersist.shard

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

/** The checksum frame of state files, and shards whose files were written before it. */
class StateFrameSuite extends AnyFunSuite {

  private val body = """{"formatVersion":2,"seqNo":1,"kind":"since","since":5}""".getBytes(UTF_8)

  private def refused(bytes: Array[Byte]): String = intercept[IllegalArgumentException](StateFrame.open(bytes)).getMessage

  test("a framed body reads back; a body written before the frame reads as it is") {
    val framed = StateFrame.seal(body)
    assert(new String(framed, UTF_8) === s"\n${new String(body, UTF_8)}\ncrc32c:${f"${crc(body)}%08x"}\n")
    assert(StateFrame.open(framed) === body)
    assert(StateFrame.open(body) === body)
  }

  test("a changed byte of the body, the checksum or the frame is refused, saying what is wrong") {
    val framed = StateFrame.seal(body)
    val digit = framed.indexOf('5'.toByte)
    assert(refused(framed.updated(digit, '6'.toByte)).startsWith("its content does not match its checksum (crc32c "))
    assert(refused(framed.updated(framed.length - 2, 'g'.toByte)).startsWith("its checksum line 'crc32c:"))
    assert(refused(framed.updated(framed.length - 2, 'A'.toByte)).endsWith("is damaged"))
    val frame = "its checksum frame (a newline before the body, a checksum line after it) is cut short or damaged"
    assert(refused(framed.updated(0, ' '.toByte)) === frame)
    assert(refused(framed.take(framed.length - 1)) === frame)
    assert(refused(framed.take(body.length + 2)) === frame)
    assert(refused("\n\n".getBytes(UTF_8)) === frame)
  }

  test("readers from before the frame read framed files: their decoder stops at the end of the JSON") {
    // Columnar rollups came with the frame: no reader before it meets one.
    StateFiles.encodings(new Random(1)).filterNot(f => f.isRollup && ColumnarRollup.is(StateFrame.open(f.bytes))).foreach { f =>
      val (framed, body) = (f.bytes, StateFrame.open(f.bytes))
      assert(framed.head == '\n' && !body.contains('\n'.toByte), f.name)
      if (f.isRollup) assert(StateCodec.decodeRollup(f.name, framed, f.seqNo) === StateCodec.decodeRollup(f.name, body, f.seqNo))
      else assert(StateCodec.decodeDiff(f.name, framed, f.seqNo, f.schema) === StateCodec.decodeDiff(f.name, body, f.seqNo, f.schema))
    }
  }

  test("a shard whose state files were written before the frame opens, and is written on with frames") {
    ShardFixtures.withTempDir { dir =>
      val store = new ShardStore(dir.toURI.toString, new Configuration(), rollupEvery = 2)
      val log = store.create("s", ShardFixtures.eventSchema).log
      val states = (0 until 3).map(i => log.compareAndAppend(i * 10L,
        ShardFixtures.eventBatch(s"b$i", i * 10L, i * 10L + 10, 2, new Random(i))))
      val written = log.current()
      val stateDir = new File(dir, "s/state")
      val files = stateDir.listFiles().filter(_.getName.endsWith(".json"))
      assert(files.map(_.getName).sorted.toSeq === (0L to 3L).map(FsStateLog.versionName) :+ "rollup-00000000000000000002.json")
      // As the release before the frame wrote them: unframed, and the rollup in JSON.
      files.foreach { f =>
        Files.write(f.toPath, if (f.getName.startsWith("rollup")) StateCodec.encodeJsonRollup(states(1))
          else StateFrame.open(Files.readAllBytes(f.toPath)))
      }
      assert(files.forall(f => Files.readAllBytes(f.toPath).head == '{'))
      val reopened = new ShardStore(dir.toURI.toString, new Configuration(), rollupEvery = 2).open("s").log
      assert(reopened.current() === written)
      val next = reopened.compareAndAppend(30L, ShardFixtures.eventBatch("b3", 30L, 40L, 1, new Random(3)))
      assert(Files.readAllBytes(new File(stateDir, FsStateLog.versionName(4)).toPath).head == '\n')
      assert(new ShardStore(dir.toURI.toString, new Configuration()).open("s").state === next)
    }
  }

  private def crc(bytes: Array[Byte]): Long = {
    val c = new java.util.zip.CRC32C()
    c.update(bytes)
    c.getValue
  }
}

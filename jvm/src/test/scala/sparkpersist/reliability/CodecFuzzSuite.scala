package sparkpersist.reliability

import org.scalatest.funsuite.AnyFunSuite

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
}

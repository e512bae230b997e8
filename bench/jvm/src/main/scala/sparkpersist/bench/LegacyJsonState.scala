package sparkpersist.bench

import java.io.File

import com.fasterxml.jackson.core.{JsonEncoding, JsonToken}

import sparkpersist.codec.Json
import sparkpersist.shard.StateFrame
import sparkpersist.stats.StatsCodec

/**
 * Rewrites a shard's state files as the release before binary stats wrote them: each part's
 * `binStats` becomes the JSON `stats` object of [[StatsCodec]], everything else is copied token
 * by token (so a rollup of a million parts is never one tree). Benchmarks open both forms of the
 * same shard in one run.
 */
object LegacyJsonState {

  def rewrite(stateDir: File, codec: StatsCodec): Unit =
    stateDir.listFiles().filter(_.getName.endsWith(".json")).foreach { file =>
      val tmp = new File(stateDir, s".${file.getName}.rewrite")
      // The release before binary stats did not frame state files with a checksum either.
      val in = Json.mapper.createParser(StateFrame.open(java.nio.file.Files.readAllBytes(file.toPath)))
      val out = Json.mapper.createGenerator(tmp, JsonEncoding.UTF8)
      try {
        var token = in.nextToken()
        while (token != null) {
          if (token == JsonToken.FIELD_NAME && in.currentName() == "binStats") {
            in.nextToken()
            out.writeFieldName("stats")
            Json.mapper.writeTree(out, codec.toJson(codec.binary.decode(in.getBinaryValue)))
          } else out.copyCurrentEvent(in)
          token = in.nextToken()
        }
      } finally {
        in.close()
        out.close()
      }
      // The local file system's checksum of the old content would fail the read.
      new File(stateDir, s".${file.getName}.crc").delete()
      require(tmp.renameTo(file), s"cannot replace $file")
    }
}

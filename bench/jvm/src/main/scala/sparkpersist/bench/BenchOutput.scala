package sparkpersist.bench

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}

import com.fasterxml.jackson.databind.JsonNode

import sparkpersist.shard.Json

/** Where benchmarks write their JSON: `bench/out/` of the repository. */
object BenchOutput {

  /** sbt forks benchmark runs in bench/jvm: the repository root is the folder with versions.properties. */
  lazy val dir: Path = {
    val cwd = Paths.get("").toAbsolutePath
    Iterator.iterate(cwd)(_.getParent).takeWhile(_ != null)
      .find(d => Files.exists(d.resolve("versions.properties"))).getOrElse(cwd).resolve("bench/out")
  }

  def write(fileName: String, json: JsonNode): Path =
    write(fileName, Json.mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(json))

  def write(fileName: String, json: String): Path = write(fileName, json.getBytes(StandardCharsets.UTF_8))

  private def write(fileName: String, bytes: Array[Byte]): Path = {
    val file = dir.resolve(fileName)
    Files.createDirectories(dir)
    Files.write(file, bytes)
    println(s"wrote $file")
    file
  }
}

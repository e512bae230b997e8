package sparkpersist.bench

import java.nio.file.{Files, Path, Paths}

import sparkpersist.codec.Json

/** Where benchmarks write their JSON: `bench/out/` of the repository. */
object BenchOutput {

  /** sbt forks benchmark runs in bench/jvm: the repository root is the folder with versions.properties. */
  lazy val dir: Path = {
    val cwd = Paths.get("").toAbsolutePath
    Iterator.iterate(cwd)(_.getParent).takeWhile(_ != null)
      .find(d => Files.exists(d.resolve("versions.properties"))).getOrElse(cwd).resolve("bench/out")
  }

  /**
   * Writes `{"benchmark": name, "params": {...}, "tables": [...]}` (see [[Table.toJson]]), the
   * shape `bench/plot.py` reads, and returns the file.
   */
  def write(fileName: String, benchmark: String, params: Seq[(String, Any)], tables: Table*): Path = {
    val out = Json.obj().put("benchmark", benchmark)
    val ps = out.putObject("params")
    params.foreach { case (k, v) => Table.put(ps, k, v) }
    val ts = out.putArray("tables")
    tables.foreach(t => ts.add(t.toJson))
    val file = dir.resolve(fileName)
    Files.createDirectories(dir)
    Files.write(file, Json.mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(out))
    println(s"wrote $file")
    file
  }
}

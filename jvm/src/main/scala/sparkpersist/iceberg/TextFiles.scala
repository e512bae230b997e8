package sparkpersist.iceberg

import java.nio.charset.StandardCharsets

import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * The small UTF-8 text files the metadata keeps beside itself: why a version has no snapshot
 * ([[IcebergHistory]]'s notes, [[ValueDeletes]]' `.why`). Advisory text, overwritten whole.
 */
private[iceberg] object TextFiles {

  def write(fs: FileSystem, file: Path, text: String): Unit = {
    val out = fs.create(file, true)
    try out.write(text.getBytes(StandardCharsets.UTF_8)) finally out.close()
  }

  def read(fs: FileSystem, file: Path): String = {
    val in = fs.open(file)
    try new String(in.readAllBytes(), StandardCharsets.UTF_8) finally in.close()
  }
}

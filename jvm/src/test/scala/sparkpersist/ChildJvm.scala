package sparkpersist

import java.io.{BufferedReader, File, InputStreamReader}
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

/**
 * Another OS process running a `main` of this classpath, in a JVM like this one (the options
 * Spark needs on Java 17), whose output lines are collected as they come: for writers that
 * race, crash or are killed beside the test's own session.
 */
final class ChildJvm private (val process: Process, stderr: File) {
  private val collected = ArrayBuffer.empty[String]
  private var ended = false
  private val reader = new Thread(() => {
    val in = new BufferedReader(new InputStreamReader(process.getInputStream))
    Iterator.continually(in.readLine()).takeWhile(_ != null).foreach { l =>
      collected.synchronized { collected += l; collected.notifyAll() }
    }
    collected.synchronized { ended = true; collected.notifyAll() }
  })
  reader.setDaemon(true)
  reader.start()

  /** The lines printed so far. */
  def lines: Seq[String] = collected.synchronized(collected.toList)

  /** The numbers `i` of the lines `<prefix> <i> ...` printed so far. */
  def numbered(prefix: String): Seq[Int] = lines.filter(_.startsWith(prefix + " ")).map(_.split(' ')(1).toInt)

  /** Waits until the process printed `line` (true) or closed its output without printing it (false). */
  def awaitLine(line: String): Boolean = collected.synchronized {
    while (!collected.contains(line) && !ended) collected.wait()
    collected.contains(line)
  }

  /** Writes `line` to the process's standard input. */
  def send(line: String): Unit = {
    process.getOutputStream.write((line + "\n").getBytes(StandardCharsets.UTF_8))
    process.getOutputStream.flush()
  }

  /** Waits for the process to end (killed or not) and for its output; its exit value. */
  def await(): Int = {
    val code = process.waitFor()
    reader.join()
    code
  }

  def isAlive: Boolean = process.isAlive

  /** Kills the process as `kill -9` does. */
  def kill(): Unit = process.destroyForcibly()

  /** The end of what the process wrote to stderr, for failure messages. */
  def errorTail: String = {
    val src = scala.io.Source.fromFile(stderr)
    try src.getLines().toSeq.takeRight(30).mkString("\n") finally src.close()
  }
}

object ChildJvm {
  /** Starts `main` (an object of this classpath) with `args`, and `-Dname=value` for each of `props`. */
  def start(main: AnyRef, args: Seq[String], props: Map[String, String] = Map.empty): ChildJvm = {
    val options = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala
      .filter(a => a.startsWith("--add-opens") || a.startsWith("-XX:+IgnoreUnrecognizedVMOptions") || a.startsWith("-D"))
    val java = new File(System.getProperty("java.home"), "bin/java").getPath
    val stderr = File.createTempFile("child-jvm", ".log")
    stderr.deleteOnExit()
    val command = Seq(java, "-Xmx512m", "-cp", System.getProperty("java.class.path")) ++ options ++
      props.map { case (k, v) => s"-D$k=$v" } ++ Seq(main.getClass.getName.stripSuffix("$")) ++ args
    new ChildJvm(new ProcessBuilder(command.asJava).redirectError(stderr).start(), stderr)
  }
}

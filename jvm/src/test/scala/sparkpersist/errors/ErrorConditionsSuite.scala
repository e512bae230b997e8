package sparkpersist.errors

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.SparkThrowable
import org.scalatest.funsuite.AnyFunSuite

/**
 * The error conditions file against the code: every condition the main sources name is declared,
 * every declared condition is raised somewhere, every template formats with its parameters, and
 * every SQLSTATE has the standard's shape. The file is read here with Jackson, not through
 * [[ErrorConditions]], so a mistake in the reader's use shows as a mismatch.
 */
class ErrorConditionsSuite extends AnyFunSuite {

  private val sourceRoot: Path = Paths.get(sys.props("user.dir")).resolve("src/main/scala")

  private lazy val json: JsonNode = {
    val in = getClass.getClassLoader.getResourceAsStream(ErrorConditions.Resource)
    try new ObjectMapper().readTree(in) finally in.close()
  }

  /** Every condition of the file: `MAIN` for one without sub-conditions, else each `MAIN.SUB`. */
  private lazy val declared: Seq[String] = json.fieldNames().asScala.toSeq.flatMap { main =>
    Option(json.get(main).get("subClass")).fold(Seq(main))(_.fieldNames().asScala.toSeq.map(sub => s"$main.$sub"))
  }

  /** The `"PERSIST_..."` literals of the main sources, with the file naming each. */
  private lazy val named: Map[String, Seq[String]] = {
    val literal = "\"(PERSIST_[A-Z0-9_.]+)\"".r
    Files.walk(sourceRoot).iterator().asScala.filter(_.toString.endsWith(".scala")).toSeq.flatMap { file =>
      val text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
      literal.findAllMatchIn(text).map(m => m.group(1) -> sourceRoot.relativize(file).toString)
    }.groupMap(_._1)(_._2)
  }

  test("the file declares conditions, each named PERSIST_ in capitals, main and sub") {
    assert(declared.size >= 20)
    declared.foreach(c => assert(c.matches("PERSIST_[A-Z0-9_]+(\\.[A-Z0-9_]+)?"), c))
  }

  test("every condition the main sources name is declared") {
    val undeclared = named.keySet -- declared
    assert(undeclared.isEmpty, s"named in ${undeclared.map(c => s"$c (${named(c).mkString(", ")})")} but not declared")
  }

  test("every declared condition is raised by the main sources") {
    // A sub-condition may be named whole, or chosen among its main condition's by an expression there.
    val unraised = declared.filterNot(c => named.contains(c))
    assert(unraised.isEmpty, s"declared but raised nowhere: ${unraised.mkString(", ")}")
  }

  test("every PersistError(\"PERSIST_...\", ...) of the main sources passes exactly its template's parameters") {
    // Spark's reader fails on a missing parameter only when the message is built, at the user's error.
    val call = "PersistError\\(\\s*\"(PERSIST_[A-Z0-9_.]+)\"".r
    val named = "\"(\\w+)\"\\s*->".r
    val sites = Files.walk(sourceRoot).iterator().asScala.filter(_.toString.endsWith(".scala")).toSeq.flatMap { file =>
      val text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
      call.findAllMatchIn(text).map { m =>
        var end = m.end
        var depth = 1
        while (depth > 0) {
          if (text(end) == '(') depth += 1 else if (text(end) == ')') depth -= 1
          end += 1
        }
        (sourceRoot.relativize(file), m.group(1), named.findAllMatchIn(text.substring(m.start, end)).map(_.group(1)).toSet)
      }
    }
    assert(sites.size >= 15)
    sites.foreach { case (file, condition, given) =>
      assert(given === ErrorConditions.parameters(condition).toSet, s"$file raises $condition")
    }
  }

  test("every SQLSTATE is five characters of the standard's shape, on every main condition") {
    json.fieldNames().asScala.foreach { main =>
      val state = Option(json.get(main).get("sqlState")).map(_.asText)
      assert(state.exists(_.matches("[0-9A-Z]{2}[0-9A-Z]{3}")), s"$main has SQLSTATE $state")
      assert(ErrorConditions.sqlState(main) == state.get)
    }
  }

  test("every template formats with all its parameters as [CONDITION] message SQLSTATE: x") {
    declared.foreach { c =>
      val params = ErrorConditions.parameters(c)
      val values = params.map(p => p -> s"{$p value}").toMap
      val message = PersistError(c, values).message
      val state = ErrorConditions.sqlState(c)
      assert(message.startsWith(s"[$c] ") && message.endsWith(s" SQLSTATE: $state"), message)
      params.foreach(p => assert(message.contains(s"{$p value}"), s"$c: $message lacks <$p>"))
      assert(!message.matches(".*<[A-Za-z]+>.*"), s"$c: $message keeps a parameter unfilled")
    }
  }

  test("a missing parameter fails formatting (an unused one too, under Spark's tests); the exception still reports") {
    intercept[Exception](PersistError("PERSIST_SHARD_EXISTS", "shard" -> "events").message)
    // Spark formats it in an executor's task failure too, where a throwing getMessage would lose the error.
    val e = PersistError("PERSIST_SHARD_EXISTS", "shard" -> "events").illegalState
    assert(e.getMessage.startsWith("[PERSIST_SHARD_EXISTS] shard=events (its message cannot be formatted: "), e.getMessage)
  }

  test("an exception carries its condition, SQLSTATE and parameters to Spark's error framework") {
    val e: Throwable = PersistError("PERSIST_INVALID_OPTION", "context" -> "drop_batch", "reason" -> "needs the batch")
      .invalidInput()
    assert(e.isInstanceOf[IllegalArgumentException])
    val t = e.asInstanceOf[SparkThrowable]
    assert(t.getCondition == "PERSIST_INVALID_OPTION")
    assert(t.getSqlState == "42K06")
    assert(t.getMessageParameters.asScala == Map("context" -> "drop_batch", "reason" -> "needs the batch"))
    assert(e.getMessage == "[PERSIST_INVALID_OPTION] drop_batch: needs the batch SQLSTATE: 42K06")
    assert(!t.isInternalError)
  }

  test("a sub-condition joins its main condition's message and keeps its SQLSTATE") {
    val e = PersistError("PERSIST_INVALID_AS_OF.VERSION", "shard" -> "events", "version" -> 7, "reason" -> "gone")
    assert(e.message == "[PERSIST_INVALID_AS_OF.VERSION] Cannot read shard 'events' as of version 7: gone SQLSTATE: 22023")
  }
}

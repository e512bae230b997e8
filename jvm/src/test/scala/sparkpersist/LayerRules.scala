package sparkpersist

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

/**
 * The layer rules as the sources state them, for [[LayeringSuite]]. They live in one place, the
 * `package.scala` of each package, in two kinds of sentence:
 *
 *  - `Layer rule: `stats` imports `codec`, `schema`.` (or `... imports nothing of sparkpersist.`):
 *    exactly the units the package's classes reference, in the `package.scala` of that package;
 *  - `Layers, bottom first: `codec`, `schema` <- `stats` <- ...`: the order they must point down
 *    in, in the root `package.scala` (and copied, word for word, into docs/development.md).
 *
 * A unit is a package under `sparkpersist` named by its path below it (`stats`, `stats.legacy`),
 * the Spark bridge by its full name ([[Bridge]]), and the root package twice: its session extension
 * (`PersistExtensions`) on top, everything else in it (`PersistConf`) low.
 */
object LayerRules {
  val Configuration = "PersistConf"
  val Extension = "PersistExtensions"
  /** Classes placed in Spark's own package to reach what Spark keeps package-private. */
  val Bridge = "org.apache.spark.sql.sparkpersist"

  private val RuleMarker = "Layer rule:"
  private val LayersMarker = "Layers, bottom first:"
  private val Name = "`([^`]+)`".r

  /** The unit of a class name, or None for classes that are not ours. */
  def unitOf(className: String): Option[String] = {
    val pkg = className.substring(0, math.max(className.lastIndexOf('.'), 0))
    val simple = className.substring(className.lastIndexOf('.') + 1)
    if (pkg == "sparkpersist") Some(if (simple.startsWith(Extension)) Extension else Configuration)
    else if (pkg.startsWith("sparkpersist.")) Some(pkg.stripPrefix("sparkpersist."))
    else if (pkg == Bridge) Some(Bridge)
    else None
  }

  /** The package whose `package.scala` states the rule of `unit`. */
  def packageOf(unit: String): String =
    if (unit == Configuration || unit == Extension) "sparkpersist"
    else if (unit == Bridge) Bridge
    else s"sparkpersist.$unit"

  /** One `Layer rule:` sentence: `unit` imports `imports`, stated in `file`. */
  final case class Rule(unit: String, imports: Set[String], file: Path)

  /** Every `Layer rule:` sentence in the `package.scala` files under `sourceRoot` (`src/main/scala`). */
  def rules(sourceRoot: Path): Seq[Rule] = {
    val files = Files.walk(sourceRoot).iterator().asScala.filter(_.getFileName.toString == "package.scala").toList
    files.flatMap { file =>
      val pkg = sourceRoot.relativize(file.getParent).iterator().asScala.mkString(".")
      sentences(read(file), RuleMarker).map { sentence =>
        val rule = parseRule(sentence, file)
        require(packageOf(rule.unit) == pkg,
          s"$file states the layer rule of `${rule.unit}`, which belongs in the package.scala of ${packageOf(rule.unit)}")
        rule
      }
    }
  }

  /** The layers stated in `file` (the root `package.scala` or docs/development.md), bottom first. */
  def layers(file: Path): Seq[Seq[String]] = sentences(read(file), LayersMarker) match {
    case Seq(sentence) => sentence.split("<-|←").toSeq.map { layer =>
      val names = Name.findAllMatchIn(layer).map(_.group(1)).toSeq
      require(names.nonEmpty && Name.replaceAllIn(layer, "").replace(",", "").trim.isEmpty,
        s"$file: a layer of '$LayersMarker' must be backquoted names separated by commas, got '${layer.trim}'")
      names
    }
    case found => throw new IllegalArgumentException(
      s"$file must state the layers once, in one sentence starting '$LayersMarker'; found ${found.size}")
  }

  private def parseRule(sentence: String, file: Path): Rule = {
    val rule = """\s*`([^`]+)` imports (.*)""".r
    sentence match {
      case rule(unit, "nothing of sparkpersist") => Rule(unit, Set.empty, file)
      case rule(unit, list) if list.split(",").forall(_.trim.matches("`[^`]+`")) =>
        Rule(unit, Name.findAllMatchIn(list).map(_.group(1)).toSet, file)
      case _ => throw new IllegalArgumentException(s"$file: cannot read '$RuleMarker$sentence'; write " +
        s"'$RuleMarker `unit` imports `a`, `b`.' or '$RuleMarker `unit` imports nothing of sparkpersist.'")
    }
  }

  /**
   * The sentences of `text` that start with `marker` (at the start of a line, after any scaladoc
   * `*`), without it and the closing period: a sentence runs on over the following lines up to the
   * first that ends with a period.
   */
  private def sentences(text: String, marker: String): Seq[String] = {
    val lines = text.linesIterator.map(_.trim.stripPrefix("*").trim).toIndexedSeq
    lines.indices.filter(i => lines(i).startsWith(marker)).map { start =>
      val end = (start until lines.size).find(i => lines(i).endsWith(".")).getOrElse(
        throw new IllegalArgumentException(s"'${lines(start)}' does not end with a period"))
      lines.slice(start, end + 1).mkString(" ").stripPrefix(marker).stripSuffix(".")
    }
  }

  private def read(file: Path): String = new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
}

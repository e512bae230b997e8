package sparkpersist

import java.io.{PrintWriter, StringWriter}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}
import java.util.spi.ToolProvider

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.LayerRules.{Rule, unitOf}

/**
 * The packages form layers, storage at the bottom, and a package imports only from layers below
 * its own. The rules are read from the sources ([[LayerRules]]): each package's `package.scala`
 * says which units it imports, the root `package.scala` orders the layers, and docs/development.md
 * repeats that order. This suite holds each statement to the compiled classes, read with the JDK's
 * `jdeps`, so every reference counts: imports, fully qualified names, inherited members, inlined
 * constants.
 */
class LayeringSuite extends AnyFunSuite {

  private val jvmDir: Path = Paths.get(sys.props("user.dir"))
  private val sourceRoot: Path = jvmDir.resolve("src/main/scala")
  private val rootPackage: Path = sourceRoot.resolve("sparkpersist/package.scala")
  private val developmentDoc: Path = jvmDir.getParent.resolve("docs/development.md")

  private lazy val mainClasses: Path =
    Paths.get(PersistConf.getClass.getProtectionDomain.getCodeSource.getLocation.toURI)

  /** Every reference between our classes, as (from, to) class names. */
  private lazy val references: Seq[(String, String)] = {
    val jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() =>
      new IllegalStateException("jdeps is missing: run the tests on a JDK, not a JRE"))
    val out = new StringWriter
    val err = new StringWriter
    val status = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:class", "-filter:none", mainClasses.toString)
    assert(status == 0, s"jdeps failed: $err")
    val edge = """\s+(\S+)\s+->\s+(\S+)\s+.*""".r
    out.toString.linesIterator.collect { case edge(from, to) => from -> to }.toSeq
  }

  /** The units of the main classes. */
  private lazy val units: Set[String] = references.flatMap { case (from, _) => unitOf(from) }.toSet

  /** The units each unit references, each with one reference as an example. */
  private lazy val imports: Map[String, Map[String, (String, String)]] =
    references.flatMap { case (from, to) =>
      for (f <- unitOf(from); t <- unitOf(to) if f != t) yield (f, t, (from, to))
    }.groupBy(_._1).map { case (f, edges) => f -> edges.map { case (_, t, e) => t -> e }.toMap }

  private lazy val rules: Map[String, Rule] = {
    val all = LayerRules.rules(sourceRoot)
    val twice = all.groupBy(_.unit).collect { case (u, rs) if rs.size > 1 => s"`$u` in ${rs.map(_.file).mkString(", ")}" }
    assert(twice.isEmpty, s"a unit's layer rule is stated more than once: ${twice.mkString("; ")}")
    all.map(r => r.unit -> r).toMap
  }

  private lazy val layers: Seq[Seq[String]] = LayerRules.layers(rootPackage)
  private lazy val layerOf: Map[String, Int] =
    layers.zipWithIndex.flatMap { case (names, i) => names.map(_ -> i) }.toMap

  test("every package of the main classes states its layer rule in its package.scala") {
    assert(units.contains("scan") && units.contains("stats"), s"jdeps saw only $units")
    val unstated = (units -- rules.keySet).toSeq.sorted.map(u =>
      s"`$u`: add 'Layer rule: `$u` imports ...' to the package.scala of ${LayerRules.packageOf(u)}")
    val classless = (rules.keySet -- units).toSeq.sorted.map(u => s"`$u` (${rules(u).file}) has no classes")
    assert(unstated.isEmpty && classless.isEmpty, (unstated ++ classless).mkString("\n"))
  }

  test("each package imports exactly the units its package.scala says") {
    val disagreements = rules.values.toSeq.sortBy(_.unit).flatMap { rule =>
      val actual = imports.getOrElse(rule.unit, Map.empty)
      val unsaid = (actual.keySet -- rule.imports).toSeq.sorted.map { t =>
        val (from, to) = actual(t)
        s"`${rule.unit}` imports `$t` (e.g. $from -> $to), which ${rule.file} does not say"
      }
      val unused = (rule.imports -- actual.keySet).toSeq.sorted.map(t =>
        s"${rule.file} says `${rule.unit}` imports `$t`, which none of its classes references")
      unsaid ++ unused
    }
    assert(disagreements.isEmpty, disagreements.mkString("package descriptions that disagree with the classes:\n", "\n", ""))
  }

  test("the layers of the root package.scala hold every unit once, and every import points down") {
    val named = layers.flatten
    val twice = named.diff(named.distinct).distinct
    val unplaced = rules.keySet -- named
    val unknown = named.toSet -- rules.keySet
    assert(twice.isEmpty && unplaced.isEmpty && unknown.isEmpty,
      s"$rootPackage: placed twice: ${twice.mkString(", ")}; without a layer: ${unplaced.toSeq.sorted.mkString(", ")}; " +
        s"no such unit: ${unknown.toSeq.sorted.mkString(", ")}")
    val upward = for {
      rule <- rules.values.toSeq
      t <- rule.imports.toSeq if layerOf.get(t).forall(_ >= layerOf(rule.unit))
    } yield s"`${rule.unit}` (layer ${layerOf(rule.unit)}) imports `$t` (layer ${layerOf.getOrElse(t, "none")})"
    assert(upward.isEmpty, upward.sorted.mkString("imports that do not point down:\n", "\n", ""))
  }

  test("docs/development.md states the same layers, and its layout table has a row for each package") {
    assert(LayerRules.layers(developmentDoc) === layers, s"$developmentDoc and $rootPackage list different layers")
    val doc = new String(Files.readAllBytes(developmentDoc), StandardCharsets.UTF_8)
    val rowless = rules.keySet.filter(u => LayerRules.packageOf(u).startsWith("sparkpersist."))
      .filterNot(u => doc.contains(s"| `…/${u.replace('.', '/')}` |")).toSeq.sorted
    assert(rowless.isEmpty, s"$developmentDoc's layout table lacks a row `…/<package>` for ${rowless.mkString(", ")}")
  }

  test("a ServiceLoader seam is used only where every implementation sits in a layer above its interface") {
    val services = mainClasses.resolve("META-INF/services")
    val seams = Files.list(services).iterator().asScala.toSeq.map { file =>
      file.getFileName.toString -> Files.readAllLines(file).asScala.map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#")).toSeq
    }
    assert(seams.nonEmpty, s"no service files under $services")
    // A service of Spark's own (a data source's DataSourceRegister) registers with Spark: no seam of ours.
    val direct = for {
      (interface, implementations) <- seams if unitOf(interface).isDefined
      impl <- implementations
      (i, c) = (unitOf(interface).get, unitOf(impl).get) if layerOf(c) <= layerOf(i)
    } yield s"$impl (`$c`) implements $interface (`$i`) from no higher layer: `$i` can call it directly"
    assert(direct.isEmpty, direct.mkString("\n"))
    seams.foreach { case (interface, implementations) =>
      implementations.foreach(impl => assert(Class.forName(interface).isAssignableFrom(Class.forName(impl)), impl))
    }
  }
}

package sparkpersist

import java.io.{PrintWriter, StringWriter}
import java.nio.file.Paths
import java.util.spi.ToolProvider

import org.scalatest.funsuite.AnyFunSuite

/**
 * The packages form layers, storage at the bottom, and a package imports only from layers below
 * its own (the package docs say which). Checked on the compiled classes with the JDK's `jdeps`,
 * so every reference counts: imports, fully qualified names, inherited members, inlined
 * constants. The root package counts twice: its configuration sits low, its session extension
 * on top.
 */
class LayeringSuite extends AnyFunSuite {

  private val ConfUnit = "(configuration)"
  private val ExtensionUnit = "(extension)"
  private val BridgeUnit = "(spark bridge)"

  /** Bottom first. A unit is a package under `sparkpersist` (or one of the named units). */
  private val layers: Seq[Set[String]] = Seq(
    Set("codec", "schema", "util", BridgeUnit),
    Set("stats"),
    Set(ConfUnit),
    Set("interpret", "index", "shard"),
    Set("write", "positional"),
    Set("read"),
    Set("consolidate", "plan", "cluster"),
    Set("scan"),
    Set("dml"),
    Set("catalog"),
    Set("compact", "stream", "aggregate"),
    Set("catalyst", "api"),
    Set(ExtensionUnit, "source"))

  private lazy val layerOf: Map[String, Int] =
    layers.zipWithIndex.flatMap { case (units, i) => units.map(_ -> i) }.toMap

  /** The unit of a class name, or None for classes that are not ours. */
  private def unitOf(className: String): Option[String] = className.split('.').toSeq match {
    case Seq("sparkpersist", cls) => Some(if (cls.startsWith("PersistExtensions")) ExtensionUnit else ConfUnit)
    case "sparkpersist" +: pkg +: _ => Some(pkg)
    case "org" +: "apache" +: "spark" +: "sql" +: "sparkpersist" +: _ => Some(BridgeUnit)
    case _ => None
  }

  /** Every reference between our classes in `classes`, as (from, to) class names. */
  private def references(classes: String): Seq[(String, String)] = {
    val jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() =>
      new IllegalStateException("jdeps is missing: run the tests on a JDK, not a JRE"))
    val out = new StringWriter
    val err = new StringWriter
    val status = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:class", "-filter:none", classes)
    assert(status == 0, s"jdeps failed: $err")
    val edge = """\s+(\S+)\s+->\s+(\S+)\s+.*""".r
    out.toString.linesIterator.collect { case edge(from, to) => from -> to }.toSeq
  }

  /** The references that leave their unit, as (from unit, to unit) -> an example. */
  private def crossings(classes: String): Map[(String, String), (String, String)] =
    references(classes).flatMap { case (from, to) =>
      for (f <- unitOf(from); t <- unitOf(to) if f != t) yield (f, t) -> (from, to)
    }.toMap

  private lazy val mainClasses: String =
    Paths.get(PersistConf.getClass.getProtectionDomain.getCodeSource.getLocation.toURI).toString

  test("every package of the main classes has a layer") {
    val units = references(mainClasses).flatMap { case (f, t) => unitOf(f) ++ unitOf(t) }.toSet
    assert(units.contains("scan") && units.contains("stats"), s"jdeps saw only $units")
    val unplaced = units -- layerOf.keySet
    assert(unplaced.isEmpty, s"packages without a layer in LayeringSuite: ${unplaced.mkString(", ")}")
  }

  test("a package imports only from layers below its own") {
    val upward = crossings(mainClasses).collect {
      case ((f, t), (fromClass, toClass)) if layerOf.contains(f) && layerOf.contains(t) && layerOf(t) >= layerOf(f) =>
        s"$f -> $t (layer ${layerOf(f)} -> ${layerOf(t)}), e.g. $fromClass -> $toClass"
    }.toSeq.sorted
    assert(upward.isEmpty, upward.mkString("references that do not point down:\n", "\n", ""))
  }
}

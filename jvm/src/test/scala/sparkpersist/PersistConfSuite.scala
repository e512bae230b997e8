package sparkpersist

import org.apache.spark.sql.test.SharedSparkSession

class PersistConfSuite extends SharedSparkSession {

  test("session SET overrides a default, and a bad value names the key and what it takes") {
    assert(PersistConf.PushdownMode.get(spark.sessionState.conf) == "on")
    spark.sql(s"SET ${PersistConf.PushdownMode.key}=soft")
    try assert(PersistConf.PushdownMode.get(spark.sessionState.conf) == "soft")
    finally spark.conf.unset(PersistConf.PushdownMode.key)
    val e = intercept[IllegalArgumentException](PersistConf.PushdownMode.parseChecked("sometimes"))
    assert(e.getMessage.contains(PersistConf.PushdownMode.key))
    assert(e.getMessage.contains("on, soft, off"))
  }

  test("every entry is documented and keyed under the project prefix") {
    assert(PersistConf.entries.nonEmpty)
    PersistConf.entries.foreach { e =>
      assert(e.key.startsWith(PersistConf.Prefix), e.key)
      assert(e.doc.length > 20, e.key)
    }
  }

  test("docs/configuration.md documents every configuration with its default") {
    val reference = new String(java.nio.file.Files.readAllBytes(
      java.nio.file.Paths.get(sys.props("user.dir")).getParent.resolve("docs").resolve("configuration.md")), "UTF-8")
    PersistConf.entries.foreach { e =>
      val default = e.default match {
        case None => "(unset)"
        case Some(v) => v.toString
        case v => v.toString
      }
      assert(reference.contains(s"| `${e.key}` | `$default` |"), s"docs/configuration.md lacks a row for ${e.key}")
    }
  }
}

package sparkpersist.interpret

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/**
 * One plain local Spark session per suite (no sparkpersist extension): what the interpreter
 * suites use to analyze SQL predicates and to evaluate them with Spark's own evaluator.
 */
trait LocalSpark extends BeforeAndAfterAll { self: Suite =>

  protected var spark: SparkSession = _

  override def beforeAll(): Unit = {
    super.beforeAll()
    spark = SparkSession.builder().master("local[1]").appName(suiteName)
      .config("spark.ui.enabled", "false").getOrCreate()
  }

  override def afterAll(): Unit = try spark.stop() finally super.afterAll()
}

"""A small Spark application for spark-submit: runs the interface scenario, prints its results.

It takes every setting from spark-submit (jar, extensions, catalog and root) and prints one line
``RESULT <json>`` on stdout for the test to parse.
"""
from __future__ import annotations

import json

from pyspark.sql import SparkSession

import scenario
import sparkpersist


def rows(spark: SparkSession, sql: str) -> list[list]:
    return [list(row) for row in spark.sql(sql).collect()]


def main() -> None:
    spark = SparkSession.builder.appName("sparkpersist pruning app").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    for statement in scenario.SETUP:
        spark.sql(statement)
    window = rows(spark, scenario.WINDOW_QUERY)
    scans = sparkpersist.last_scans(spark)
    plan = spark.sql("EXPLAIN " + scenario.WINDOW_QUERY).first()[0]
    result = {
        "master": spark.sparkContext.master,
        # The driver counts itself among the block managers; the rest are executor JVMs.
        "executor_jvms": spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1,
        "window": window,
        "scans": scans,
        "scan_summaries": scenario.SCAN_SUMMARY.findall(plan),
        "as_of": rows(spark, scenario.AS_OF_QUERY),
        "batches": rows(spark, scenario.BATCHES_QUERY),
        "in_executor_jvm": rows(spark, scenario.JVM_QUERY),
    }
    print("RESULT " + json.dumps(result), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()

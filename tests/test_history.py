"""The shard's history and RESTORE in a classic session (the same scenario runs over Spark Connect in test_connect.py)."""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession
from pyspark.errors import PySparkException

from apps import history_scenario


def test_history_and_restore_in_a_classic_session(spark: SparkSession, shard_name: str) -> None:
    history_scenario.check(history_scenario.run(spark, f"persist.{shard_name}"))


def test_a_malformed_restore_says_its_form(spark: SparkSession, shard_name: str) -> None:
    with pytest.raises(Exception, match=r"its form is RESTORE \[TABLE\] <table> \[TO\] VERSION AS OF <version> \| "
                                        r"TIMESTAMP AS OF <timestamp>"):
        spark.sql(f"RESTORE TABLE persist.{shard_name} TO LATEST")


def test_restore_below_since_is_refused_as_a_read_is(spark: SparkSession, shard_name: str) -> None:
    table = f"persist.{shard_name}"
    spark.sql(f"CREATE TABLE {table} (k INT)")
    spark.sql(f"INSERT INTO {table} VALUES (1)")
    spark.sql(f"INSERT INTO {table} VALUES (2)")
    spark.sql(f"CALL persist.system.compact('{shard_name}', retention_ms => 0)").collect()
    since = spark.sql(f"SELECT since FROM (SELECT max(upper) - 1 AS since FROM {table}.batches)").collect()[0][0]
    with pytest.raises(PySparkException, match=f"history before since = {since} has been compacted"):
        spark.sql(f"RESTORE TABLE {table} TO VERSION AS OF 1").collect()

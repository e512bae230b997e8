"""Reads a shard's Iceberg metadata with Spark's own Iceberg source, in a Spark without sparkpersist.

    iceberg_spark_reader.py <iceberg-spark-runtime.jar> <table location> <out dir> <snapshot id>...

For each snapshot id: ``spark.read.format("iceberg").option("versionAsOf", id).load(location)`` (a
Hadoop table: ``metadata/`` under the location, ``version-hint.text``), its rows written to
``<out dir>/<snapshot id>.parquet`` by pyarrow. Runs in its own process so that the runtime's own (unshaded)
Iceberg classes never meet the ones inside sparkpersist's jar.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pyarrow.parquet as pq
from pyspark.sql import SparkSession


def main(runtime_jar: str, location: str, out: Path, snapshot_ids: list[str]) -> None:
    spark = (SparkSession.builder.master("local[2]").appName("iceberg-spark-reader")
             .config("spark.jars", runtime_jar)
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    assert not any("sparkpersist" in j for j in spark.conf.get("spark.jars").split(",")), "a reader without sparkpersist"
    for snapshot_id in snapshot_ids:
        df = spark.read.format("iceberg").option("versionAsOf", snapshot_id).load(location)
        pq.write_table(df.toArrow(), out / f"{snapshot_id}.parquet")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4:])

"""Persist tables in the metastore, from PySpark: ``python session_catalog_client.py classic STATE_DIR`` or
``python session_catalog_client.py connect sc://host:port``.

Reads ``sales.orders`` as the Thrift server left it, writes to it (SQL and DataFrameWriterV2), creates,
replaces and drops tables, and compares each persist table with a Parquet table of the same rows read
by plain Spark. Prints one JSON object; ``tests/test_session_catalog.py`` checks it. The classic mode
opens the server's metastore (embedded Derby: the server must be stopped); the Connect mode talks to a
Connect server that has it open.
"""
from __future__ import annotations

import json
import os
import sys

from pyspark.sql import DataFrame, SparkSession

import sparkpersist
from sparkpersist.thriftserver import metastore_conf


def rows(df: DataFrame) -> list[list]:
    return sorted([list(r) for r in df.collect()], key=repr)


def parquet_rows(spark: SparkSession, query: str) -> list[list]:
    """The rows of a query over Parquet tables through Spark's own reader, without Parquet filter pushdown."""
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        return rows(spark.sql(query))
    finally:
        spark.conf.unset("spark.sql.parquet.filterPushdown")


def session(mode: str, target: str) -> SparkSession:
    if mode == "connect":
        return SparkSession.builder.remote(target).getOrCreate()
    builder = sparkpersist.configure(SparkSession.builder.master("local[2]"), session_catalog=True)
    for key, value in {**metastore_conf(target), "spark.ui.enabled": "false",
                       "spark.sql.shuffle.partitions": "2"}.items():
        builder = builder.config(key, value)
    return builder.enableHiveSupport().getOrCreate()


def main(mode: str, target: str) -> None:
    spark = session(mode, target)
    out: dict = {"session": type(spark).__module__}
    out["orders_as_left"] = rows(spark.table("sales.orders"))
    out["tables"] = sorted(r.tableName for r in spark.sql("SHOW TABLES IN sales").collect())
    db = f"{mode}_db"
    spark.sql(f"CREATE DATABASE {db}")
    # A persist table and a Parquet table written with the same statements and rows.
    for table, provider in (("events", "persist"), ("events_parquet", "parquet")):
        spark.sql(f"CREATE TABLE {db}.{table} (id BIGINT, kind STRING) USING {provider}")
        spark.sql(f"INSERT INTO {db}.{table} VALUES (1, 'a'), (2, 'b'), (3, 'a')")
        more = spark.createDataFrame([(4, "c")], "id long, kind string")
        if provider == "persist":
            more.writeTo(f"{db}.{table}").append()  # DataFrameWriterV2: a DataSource V2 table
        else:
            more.write.insertInto(f"{db}.{table}")  # Spark writes its V1 tables under a session catalog extension so
    out["events"] = rows(spark.table(f"{db}.events"))
    out["events_oracle"] = parquet_rows(spark, f"SELECT * FROM {db}.events_parquet")
    spark.sql(f"DELETE FROM {db}.events WHERE kind = 'a'")
    out["after_delete"] = rows(spark.table(f"{db}.events"))
    out["after_delete_oracle"] = parquet_rows(spark, f"SELECT * FROM {db}.events_parquet WHERE NOT kind = 'a'")
    spark.createDataFrame([(10, "x"), (11, "y")], "id long, kind string") \
        .writeTo(f"{db}.created").using("persist").tableProperty("order_by", "id").create()
    out["created"] = rows(spark.table(f"{db}.created"))
    out["created_order_by"] = spark.sql(f"SHOW TBLPROPERTIES {db}.created ('order_by')").collect()[0].value
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE EXTENDED {db}.created").collect()}
    out["created_provider"] = described["Provider"]
    location = described["Location"]
    spark.sql(f"DROP TABLE {db}.created")
    out["dropped_location_exists"] = os.path.exists(location.removeprefix("file:")) if mode == "classic" else None
    out["tables_after_drop"] = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {db}").collect())
    print(json.dumps(out))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""The SQL scenario every interface test runs (Thrift server, spark-submit, local-cluster).

A shard ``events`` is created with SQL and written in two batches of one part each: two events
of January 2020, then two events stamped with the current time. A 30-day window relative to
``mz_now()`` (the query's as-of: the time of the second batch) keeps the recent part and
prunes the old one.
"""
from __future__ import annotations

import re

SHARD = "events"

SETUP = (
    f"CREATE TABLE persist.{SHARD} (id BIGINT, event_ts TIMESTAMP, kind STRING) "
    "TBLPROPERTIES ('order_by' = 'event_ts')",
    # REPARTITION(1): one write task, hence exactly one part per batch.
    f"INSERT INTO persist.{SHARD} SELECT /*+ REPARTITION(1) */ id, event_ts, kind FROM VALUES "
    "(1, TIMESTAMP'2020-01-01 00:00:00Z', 'old'), (2, TIMESTAMP'2020-01-02 00:00:00Z', 'old') AS v(id, event_ts, kind)",
    f"INSERT INTO persist.{SHARD} SELECT /*+ REPARTITION(1) */ id, current_timestamp(), 'new' "
    "FROM VALUES (3), (4) AS v(id)",
)

WINDOW_QUERY = (f"SELECT id, kind, timestampdiff(DAY, event_ts, mz_now()) AS age_days FROM persist.{SHARD} "
                "WHERE mz_now() <= event_ts + INTERVAL 30 DAYS ORDER BY id")
"""The recent events: ``age_days`` is 0 because ``mz_now()`` is the second batch's time."""

WINDOW_ROWS = [(3, "new", 0), (4, "new", 0)]

SCAN_SUMMARY = re.compile(r"parts: \d+/\d+ bytes: \d+/\d+")
"""What EXPLAIN says of a persist scan: parts and bytes kept out of the total."""


def window_scan_summary(old_part_bytes: int, new_part_bytes: int, mode: str) -> str:
    """The :data:`SCAN_SUMMARY` of :data:`WINDOW_QUERY` under pushdown ``mode``.

    ``on`` reads the recent part only; ``soft`` decides the same but reads (and verifies) both.
    """
    total = old_part_bytes + new_part_bytes
    return f"parts: 1/2 bytes: {new_part_bytes}/{total}" if mode == "on" else f"parts: 2/2 bytes: {total}/{total}"


AS_OF_QUERY = f"SELECT DISTINCT unix_millis(mz_now()) AS as_of FROM persist.{SHARD}"

BATCHES_QUERY = (f"SELECT batch_lower, batch_upper, row_count, bytes FROM persist.{SHARD}.parts "
                 "ORDER BY batch_lower")
"""One row per part (hence per batch here): the batch's ``[lower, upper)``, its rows and bytes."""

JVM_QUERY = (f"SELECT DISTINCT reflect('java.lang.System', 'getProperty', 'sun.java.command') "
             f"LIKE 'org.apache.spark.executor.%' AS in_executor_jvm FROM persist.{SHARD} "
             "WHERE mz_now() <= event_ts + INTERVAL 30 DAYS")
"""Whether the rows of the window were read in executor JVMs (local-cluster) or in the driver."""

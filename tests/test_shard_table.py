"""``sparkpersist.ShardTable``: every method against plain Spark over a Parquet copy of the same rows,
in a classic session and over a real Spark Connect server; its ``help()``."""
from __future__ import annotations

import inspect
import json
import pydoc
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

import sparkpersist
from sparkpersist import ShardTable

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import shard_table_scenario  # noqa: E402
from test_connect import APPS, connect_url  # noqa: E402,F401  (the Connect server fixture)

DML_STEPS = ["delete", "update", "update_all_rows", "merge", "merge_update_all", "merge_column"]
COLUMN_STEPS = ["delete_column", "update_column"]


@pytest.fixture(scope="module")
def classic(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    previous = spark.conf.get("spark.sql.parquet.filterPushdown")
    try:
        return shard_table_scenario.run(spark, "shard_table_classic", str(tmp_path_factory.mktemp("oracle")))
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", previous)


@pytest.fixture(scope="module")
def connect(connect_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:  # noqa: F811
    done = subprocess.run([sys.executable, str(APPS / "shard_table_scenario.py"), connect_url,
                           str(tmp_path_factory.mktemp("connect_oracle"))], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_dml(out: dict[str, Any], steps: list[str]) -> None:
    for name in steps:
        step = out["steps"][name]
        assert "error" not in step, f"{name}: {step.get('error')}\n{step.get('trace')}"
        assert step["shard"] == step["oracle"], name
    assert out["toDF"]["shard"] == out["toDF"]["oracle"]
    assert out["alias"] == [["b"], ["b"]]
    assert out["is_shard"] == [True, True, False]


def check_views_and_lifecycle(out: dict[str, Any]) -> None:
    assert out["parts"][0] == out["parts"][1] > 0
    assert out["batches"]["shard"] == out["batches"]["sql"]
    assert out["detail"]["columns"] == ["format", "name", "numFiles", "sizeInBytes", "numBatches", "lastModified"]
    batches = out["batches"]["sql"]  # batch_id, lower, upper, appends, runs, parts, row_count, bytes, ...
    assert out["detail"]["row"][:5] == ["persist", out["detail"]["row"][1], str(sum(b[5] for b in batches)),
                                        str(sum(b[7] for b in batches)), str(len(batches))]
    assert out["detail"]["row"][1].endswith("`") and out["detail"]["row"][1].startswith("`persist`.`shard_table")
    assert out["updates"]["shard"] == out["updates"]["sql"] and out["updates"]["shard"]
    assert out["updates"]["all"][0] == out["updates"]["all"][1]
    assert out["compact"]["batches_after"] < out["compact"]["batches_before"]
    assert out["compact"]["rows_after"] == out["compact"]["rows_before"] == out["after_gc"]
    assert out["gc"]["parts_deleted"] > 0 and out["vacuum"]["parts_deleted"] == 0


def check_history_and_restore(out: dict[str, Any]) -> None:
    history = out["history"]
    assert "error" not in history, history
    versions = history["versions"]
    assert versions == sorted(versions, reverse=True) and history["limited"] == versions[:2]
    expected = ["DELETE", "UPDATE", "UPDATE", "MERGE", "MERGE"] + (["DELETE", "UPDATE"] if out["classic"] else []) + ["MERGE"]
    statements = [op for op in history["operations"] if op in ("DELETE", "UPDATE", "MERGE")]
    assert statements == list(reversed(expected))
    restore = out["restore"]
    assert "error" not in restore, restore
    assert restore["restored"] == restore["version_as_of"] == restore["first"]
    assert restore["deleted"] == []
    assert restore["restored_to_timestamp"] == restore["timestamp_as_of"] == restore["first"]


def check_for_path(out: dict[str, Any]) -> None:
    at_path = out["for_path"]
    assert "error" not in at_path, at_path
    assert at_path["is_shard"] and at_path["rows"] == at_path["sql"] == [[2, "B"], [2, "B"]]


def test_dml_in_a_classic_session_equals_plain_spark(classic: dict[str, Any]) -> None:
    assert classic["classic"]
    check_dml(classic, DML_STEPS + COLUMN_STEPS)


def test_views_and_lifecycle_in_a_classic_session(classic: dict[str, Any]) -> None:
    check_views_and_lifecycle(classic)


def test_history_and_restore_in_a_classic_session(classic: dict[str, Any]) -> None:
    check_history_and_restore(classic)


def test_dml_over_spark_connect_equals_plain_spark(connect: dict[str, Any]) -> None:
    assert not connect["classic"]
    check_dml(connect, DML_STEPS)
    assert connect["connect_column"].startswith("ShardTable over Spark Connect takes the condition as a SQL string")
    assert connect["connect_column_alias"].startswith("A MERGE with Columns runs over Spark Connect as DataFrame.mergeInto")


def test_views_and_lifecycle_over_spark_connect(connect: dict[str, Any]) -> None:
    check_views_and_lifecycle(connect)


def test_history_and_restore_over_spark_connect(connect: dict[str, Any]) -> None:
    check_history_and_restore(connect)


def test_bad_input_is_refused_saying_what_to_do(spark: SparkSession, shard_name: str) -> None:
    with pytest.raises(sparkpersist.ShardNotFoundError, match=shard_name):
        ShardTable.forName(spark, shard_name)
    with pytest.raises(sparkpersist.InvalidInputError, match="is not a persist table name"):
        ShardTable.forName(spark, f"spark_catalog.default.{shard_name}")
    spark.sql(f"CREATE TABLE persist.{shard_name} (id INT)")
    table = ShardTable.forName(spark, f"persist.{shard_name}")
    with pytest.raises(sparkpersist.InvalidInputError, match="update\\(\\) needs set"):
        table.update("id = 1", {})
    with pytest.raises(sparkpersist.InvalidInputError, match="MERGE needs at least one clause"):
        table.merge(spark.range(1), "true").execute()
    with pytest.raises(sparkpersist.InvalidInputError, match="version must be a state version number"):
        table.restoreToVersion(-1)
    assert repr(table.alias("t")) == f"ShardTable(`persist`.`{shard_name}` AS t)"


PUBLIC_CLASSES = [sparkpersist.ShardTable, sparkpersist.ShardMergeBuilder, sparkpersist.ShardMergeMatchedActionBuilder,
                  sparkpersist.ShardMergeNotMatchedActionBuilder, sparkpersist.ShardMergeNotMatchedBySourceActionBuilder]

DELTA_NAMES = ["forName", "forPath", "isShardTable", "alias", "toDF", "delete", "update", "merge", "history", "detail",
               "restoreToVersion", "restoreToTimestamp", "compact", "gc", "vacuum", "parts", "batches", "updates"]


def test_help_shows_every_method_with_a_one_line_summary() -> None:
    shown = pydoc.render_doc(ShardTable, renderer=pydoc.plaintext)
    for name in DELTA_NAMES:
        assert f" {name}(" in shown, name
    for cls in PUBLIC_CLASSES:
        assert cls.__doc__ and cls.__doc__.strip().splitlines()[0].endswith("."), cls
        for name, member in inspect.getmembers(cls, inspect.isroutine):
            if name.startswith("_"):
                continue
            doc = inspect.getdoc(member)
            assert doc, f"{cls.__name__}.{name} has no docstring"
            summary = doc.splitlines()[0]
            assert summary and (summary.endswith(".") or summary.endswith("``.")), f"{cls.__name__}.{name}: {summary}"
            assert inspect.signature(member).return_annotation is not inspect.Signature.empty, f"{cls.__name__}.{name}"



def test_for_path_in_a_classic_session(classic: dict[str, Any]) -> None:
    check_for_path(classic)


def test_for_path_over_spark_connect(connect: dict[str, Any]) -> None:
    check_for_path(connect)

"""One Spark session for the whole pytest run, with a fresh shard root."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest
from pyspark.sql import SparkSession

import sparkpersist


@pytest.fixture(scope="session")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shards")


@pytest.fixture(scope="session")
def spark(root: Path) -> Iterator[SparkSession]:
    extra = {}
    # `make test` runs the suite a second time with soft pushdown (see Makefile); any extra
    # session configs come in through SPARKPERSIST_TEST_CONF="k=v,k=v".
    for pair in filter(None, os.environ.get("SPARKPERSIST_TEST_CONF", "").split(",")):
        key, _, value = pair.partition("=")
        extra[key.strip()] = value.strip()
    session = sparkpersist.session(
        str(root), master="local[2]", app_name="sparkpersist-tests",
        **{"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
           "spark.sql.session.timeZone": "UTC"}, **extra)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def shard_name(request: pytest.FixtureRequest) -> str:
    """A shard name unique to the test."""
    return "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[:100]

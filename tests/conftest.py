"""One Spark session for the whole pytest run, with a fresh shard root."""
from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest
from pyspark.sql import SparkSession

import sparkpersist


@pytest.fixture(scope="session")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shards")


@pytest.fixture(scope="session")
def spark(root: Path) -> Iterator[SparkSession]:
    # Python workers run this interpreter (with pyarrow: Spark 4.2 runs Python UDFs through Arrow).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
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


@pytest.fixture
def session_conf(spark: SparkSession) -> Callable[[str, str], AbstractContextManager[None]]:
    """``with session_conf(key, value):`` runs the block with a session config set, then restores
    the value the session had before (the soft-mode pass of ``make test`` sets configs for the
    whole run, which a test must not unset)."""
    @contextmanager
    def setting(key: str, value: str) -> Iterator[None]:
        previous = spark.conf.get(key, None)
        spark.conf.set(key, value)
        try:
            yield
        finally:
            if previous is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, previous)
    return setting

"""The installed package: its jar, its session builder and its input checks."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import sparkpersist
from sparkpersist._jvm import is_connect


def test_bundled_jar_is_the_built_one() -> None:
    jar = Path(sparkpersist.jar_path())
    assert jar.is_file()
    assert jar.name.startswith("sparkpersist_2.13-") and jar.suffix == ".jar"
    with zipfile.ZipFile(jar) as z:
        assert "sparkpersist/api/PythonApi.class" in z.namelist()
        assert "sparkpersist/catalog/PersistCatalog.class" in z.namelist()


def test_session_registers_catalog_and_root(spark, root) -> None:
    assert spark.conf.get("spark.sql.catalog.persist") == "sparkpersist.catalog.PersistCatalog"
    assert spark.conf.get("spark.sparkpersist.root") == str(root)
    assert sparkpersist.jar_path() in spark.sparkContext.getConf().get("spark.jars")


def test_classic_session_is_not_connect(spark) -> None:
    assert not is_connect(spark)
    assert not is_connect(spark.range(1))


def test_bad_max_rows_per_part_is_rejected_before_any_work(spark) -> None:
    with pytest.raises(sparkpersist.InvalidInputError, match="max_rows_per_part must be a positive integer"):
        sparkpersist.write(spark.range(3), "never_written", max_rows_per_part=0)
    assert "never_written" not in sparkpersist.shards(spark)

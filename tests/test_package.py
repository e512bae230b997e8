"""The installed package: its jar, its session builder and its input checks."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import sparkpersist
from sparkpersist._jvm import is_connect


def test_bundled_jar_is_the_built_one_for_the_installed_spark_line() -> None:
    import pyspark
    line = ".".join(pyspark.__version__.split(".")[:2])
    jar = Path(sparkpersist.jar_path())
    assert jar.is_file()
    assert jar.name.startswith(f"sparkpersist-spark-{line}_2.13-") and jar.suffix == ".jar"
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


def test_lines_come_from_the_repository_declaration() -> None:
    props = dict(line.split("=", 1) for line in (Path(__file__).parents[1] / "versions.properties")
                 .read_text().splitlines() if "=" in line and not line.startswith("#"))
    lines = sparkpersist.spark_lines()
    assert list(lines.pyspark) == props["spark_lines"].split()
    assert lines.default == props["spark_default_line"]
    assert all(lines.pyspark[line] == props[f"line.{line}.spark"] for line in lines.pyspark)


@pytest.mark.parametrize("version", ["3.5.6", "4.0.1", "5.0.0"])
def test_unsupported_pyspark_is_refused_naming_it_and_the_lines(version, monkeypatch, tmp_path) -> None:
    import sparkpersist._jar as jar
    monkeypatch.setattr(jar, "installed_pyspark", lambda: version)
    supported = sparkpersist.spark_lines().describe()
    for call in (lambda: sparkpersist.configure(SparkSession.builder),
                 lambda: sparkpersist.session(str(tmp_path / "never"))):
        with pytest.raises(sparkpersist.UnsupportedSparkError) as refused:
            call()
        assert f"does not support pyspark {version}" in str(refused.value)
        assert supported in str(refused.value)
    assert not (tmp_path / "never").exists(), "refused before creating the root"


def test_jar_command_prints_the_line_jar_or_refuses() -> None:
    import subprocess
    import sys
    ok = subprocess.run([sys.executable, "-m", "sparkpersist", "jar"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.strip() == sparkpersist.jar_path()
    refused = subprocess.run([sys.executable, "-m", "sparkpersist", "jar", "--spark", "3.5.6"],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "does not support pyspark 3.5.6" in refused.stderr


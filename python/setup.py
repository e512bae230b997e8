"""Reads the version and the supported Spark lines from the repository's versions.properties."""
from pathlib import Path

from setuptools import setup


def _versions() -> dict:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "versions.properties", here / "versions.properties"):
        if candidate.exists():
            pairs = (line.split("=", 1) for line in candidate.read_text().splitlines()
                     if "=" in line and not line.lstrip().startswith("#"))
            return {k.strip(): v.strip() for k, v in pairs}
    raise SystemExit("versions.properties not found: build the package from the sparkpersist repository")


_v = _versions()
_jars = list((Path(__file__).resolve().parent / "sparkpersist" / "jars").glob("sparkpersist-spark-*.jar"))
if not _jars:
    raise SystemExit("No jar in python/sparkpersist/jars: run `make jar` (or `make install`, `make dist`) first.")


def _pyspark_range(lines: list) -> str:
    """``pyspark>=4.1,<4.4`` for the lines 4.1 4.2 4.3: any release of a line the package has a jar for."""
    first, last = (tuple(int(n) for n in line.split(".")) for line in (lines[0], lines[-1]))
    return f"pyspark>={first[0]}.{first[1]},<{last[0]}.{last[1] + 1}"


setup(
    version=_v["package_version"],
    install_requires=[_pyspark_range(_v["spark_lines"].split())],
)

"""Reads the version and the pyspark pin from the repository's versions.properties."""
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
_jars = list((Path(__file__).resolve().parent / "sparkpersist" / "jars").glob("sparkpersist_*.jar"))
if not _jars:
    raise SystemExit("No jar in python/sparkpersist/jars: run `make jar` (or `make install`) first.")

setup(
    version=_v["package_version"],
    install_requires=[f"pyspark=={_v['spark_version']}"],
)

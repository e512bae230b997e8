"""Locates the JVM jar bundled inside this package for the installed pyspark's Spark line.

The package carries one jar per supported Spark line (``sparkpersist-spark-<major.minor>_2.13-<version>.jar``)
and the repository's ``versions.properties``, which declares the lines; the jar of the line of the
installed pyspark is the one Spark loads.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Dict, List, Optional

from .errors import UnsupportedSparkError


@dataclass(frozen=True)
class SparkLines:
    """The Spark lines this package was built for: each ``major.minor`` and its pinned pyspark."""

    pyspark: Dict[str, str]
    default: str

    def describe(self) -> str:
        """``4.1 (pyspark 4.1.3), 4.2 (pyspark 4.2.1), ...`` for messages."""
        return ", ".join(f"{line} (pyspark {version})" for line, version in self.pyspark.items())


def _jars_dir() -> Path:
    return Path(str(resources.files("sparkpersist").joinpath("jars")))


def spark_lines() -> SparkLines:
    """The Spark lines declared by the ``versions.properties`` bundled with the jars."""
    declared = _jars_dir() / "versions.properties"
    if not declared.exists():
        raise FileNotFoundError(
            "sparkpersist's jars are missing from the installed package. From the repository run "
            "`make jar` and then `pip install ./python` (or install the wheel `make dist` builds).")
    props = dict(line.split("=", 1) for line in declared.read_text().splitlines()
                 if "=" in line and not line.lstrip().startswith("#"))
    props = {k.strip(): v.strip() for k, v in props.items()}
    lines = props["spark_lines"].split()
    return SparkLines({line: props[f"line.{line}.spark"] for line in lines}, props["spark_default_line"])


def spark_line(version: str) -> str:
    """The ``major.minor`` line of a Spark or pyspark version string (``4.2.1`` -> ``4.2``)."""
    parts = version.split(".")
    return ".".join(parts[:2])


def installed_pyspark() -> str:
    """The version of the pyspark this interpreter imports."""
    import pyspark
    return pyspark.__version__


def jar_path(pyspark_version: Optional[str] = None) -> str:
    """Returns the absolute path of the bundled jar for a pyspark version (default: the installed one).

    Raises:
        UnsupportedSparkError: no supported line matches that pyspark (the message names the
            installed version and the supported lines).
        FileNotFoundError: the line is supported, but this install was built without its jar
            (a development install: ``make jar SPARK=<line>`` then ``pip install ./python``).
    """
    version = pyspark_version or installed_pyspark()
    line = spark_line(version)
    lines = spark_lines()
    if line not in lines.pyspark:
        raise UnsupportedSparkError(
            f"sparkpersist does not support pyspark {version}: it has jars for the Spark lines "
            f"{lines.describe()}. Install a pyspark of one of these lines, e.g. "
            f"`pip install 'pyspark=={lines.pyspark[lines.default]}'`.")
    jars: List[Path] = sorted(_jars_dir().glob(f"sparkpersist-spark-{line}_*.jar"))
    if not jars:
        raise FileNotFoundError(
            f"This install of sparkpersist holds no jar for Spark {line} (pyspark {version}): it was "
            f"built for {', '.join(sorted(p.name for p in _jars_dir().glob('*.jar'))) or 'no line'}. "
            f"From the repository run `make jar SPARK={line}` and `pip install ./python`, or `make dist`.")
    if len(jars) > 1:
        raise RuntimeError(f"Several sparkpersist jars for Spark {line} are bundled ({[j.name for j in jars]}); "
                           "reinstall the package.")
    return str(jars[0].resolve())

"""Access to the JVM facade (``sparkpersist.api.PythonApi``) over py4j."""
from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, SparkSession

from .errors import ConnectNotSupportedError


def is_connect(obj: Any) -> bool:
    """True for Spark Connect sessions and DataFrames (they have no py4j gateway)."""
    return type(obj).__module__.startswith("pyspark.sql.connect")


def facade(spark: SparkSession, what: str) -> Any:
    """Returns the JVM facade of ``spark``'s driver, or explains why there is none."""
    if is_connect(spark):
        raise ConnectNotSupportedError(
            f"sparkpersist.{what}() needs the driver's JVM (py4j), which a Spark Connect session does not "
            "have: it registers objects in the driver, beyond what SQL can express. Run it with a classic "
            "session (sparkpersist.session(...)); the other functions of the package work over Spark Connect.")
    try:
        api = spark._jvm.sparkpersist.api.PythonApi
        api.version()  # fails fast when the jar is not on the driver classpath
    except Exception as e:  # py4j raises a plain Py4JError for an unknown class
        raise ConnectNotSupportedError(
            "The sparkpersist jar is not on this session's driver classpath. Create the session "
            "with sparkpersist.session(root) or sparkpersist.configure(SparkSession.builder, root).") from e
    return api


def wrap_dataframe(jdf: Any, spark: SparkSession) -> DataFrame:
    """Wraps a JVM Dataset<Row> as a PySpark DataFrame."""
    return DataFrame(jdf, spark)

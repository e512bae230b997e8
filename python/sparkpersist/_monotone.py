"""Declaring user functions monotone, so that part pruning maps ranges through them."""
from __future__ import annotations

from typing import Any, Optional

from pyspark.sql import SparkSession

from ._jvm import facade
from .errors import InvalidInputError, translated_errors


def register_monotone(spark: SparkSession, name: str, fn: Optional[str], direction: str,
                      return_type: Optional[Any] = None) -> None:
    """Registers a JVM user function and declares it monotone for part pruning.

    A declared function must be deterministic, non-decreasing (``"up"``) or non-increasing
    (``"down"``) in every argument, and raise only beyond some bound. The planner evaluates it
    at the ends of each part's ranges, on the driver JVM, so it must be a Java/Scala UDF:
    ``fn`` names a class implementing ``org.apache.spark.sql.api.java.UDF1`` (``UDF2``...),
    registered here with ``spark.udf.registerJavaFunction``; ``fn=None`` declares a function
    already registered on the JVM. A wrong declaration skips parts that hold matching rows:
    run queries with ``spark.sparkpersist.pushdown.mode=soft`` first, which reads every part and
    reports any part that pruning would have skipped wrongly. Undeclared functions keep every
    part. The declaration is the session setting ``spark.sparkpersist.udf.monotone``.

    Args:
        spark: the session.
        name: the SQL name of the function.
        fn: the JVM class implementing it, or None if it is registered already.
        direction: ``"up"`` or ``"down"``.
        return_type: the function's return type (a DataType or DDL string) when ``fn`` is given.
    """
    if callable(fn):
        raise InvalidInputError(
            f"register_monotone('{name}') got a Python function: part pruning evaluates declared "
            "functions on the driver JVM, which cannot run Python. Implement it as a Java/Scala UDF "
            "class and pass its name as fn (Python UDFs keep every part).")
    if direction not in ("up", "down"):
        raise InvalidInputError(f"direction must be 'up' or 'down', got {direction!r}")
    if fn is not None:
        spark.udf.registerJavaFunction(name, fn, return_type)
    api = facade(spark, "register_monotone")
    with translated_errors():
        api.declareMonotone(spark._jsparkSession, name, direction)

"""Declaring user functions monotone, so that part pruning maps ranges through them."""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
from pyspark.sql.types import DataType

from ._jvm import facade
from .errors import InvalidInputError, translated_errors

# PythonEvalType.SQL_BATCHED_UDF and SQL_ARROW_BATCHED_UDF: a row-at-a-time udf(), run with or without
# Arrow (Spark 4.2 makes plain udf() objects Arrow-batched by default).
_ROW_AT_A_TIME_UDFS = (100, 101)


def register_monotone(spark: SparkSession, name: str, fn: Union[None, str, Callable[..., Any]],
                      direction: str, return_type: Optional[Union[DataType, str]] = None) -> Any:
    """Registers a user function and declares it monotone for part pruning.

    A declared function must be deterministic, non-decreasing (``"up"``) or non-increasing
    (``"down"``) in every argument, and raise only beyond some bound. Pruning evaluates it at the
    ends of each part's ranges:

    - ``fn`` a Python function (or a plain ``pyspark.sql.functions.udf``): registered as SQL
      function ``name``; the returned UDF calls it in the DataFrame API. Before a scan decides
      its parts, one Spark job evaluates it at the range endpoints the parts need (at most
      ``spark.sparkpersist.udf.python.probePoints`` points; beyond, parts keep). An endpoint
      where it raises keeps the parts that reach it; so does a part whose argument may be null.
      The values come from a probe registered beside it: re-register ``name`` only through
      ``register_monotone``.
    - ``fn`` a string: a JVM class implementing ``org.apache.spark.sql.api.java.UDF1``
      (``UDF2``...), registered with ``spark.udf.registerJavaFunction`` and evaluated on the
      driver; ``fn=None`` declares a function already registered on the JVM.

    A wrong declaration skips parts that hold matching rows: run queries with
    ``spark.sparkpersist.pushdown.mode=soft`` first, which reads every part and reports any part
    that pruning would have skipped wrongly (soft mode checks rows where Python cannot run, so it
    leaves Python functions out: check those by comparing rows with pushdown ``on`` and ``off``).
    Undeclared functions keep every part. The
    declaration is the session setting ``spark.sparkpersist.udf.monotone``.

    Args:
        spark: the session.
        name: the SQL name of the function.
        fn: a Python function, a JVM class name, or None if the function is registered already.
        direction: ``"up"`` or ``"down"``.
        return_type: the function's return type (a DataType or DDL string); required for a plain
            Python function, taken from the UDF for a ``udf`` object.

    Returns:
        The registered UDF for a Python function, else None.
    """
    if direction not in ("up", "down"):
        raise InvalidInputError(f"direction must be 'up' or 'down', got {direction!r}")
    registered = None
    if callable(fn):
        registered = _register_python(spark, name, fn, return_type)
    elif fn is not None:
        spark.udf.registerJavaFunction(name, fn, return_type)
    api = facade(spark, "register_monotone")
    with translated_errors():
        api.declareMonotone(spark._jsparkSession, name, direction)
    return registered


def _register_python(spark: SparkSession, name: str, fn: Callable[..., Any],
                     return_type: Optional[Union[DataType, str]]) -> Any:
    """Registers ``fn`` as ``name`` and its probe (the values pruning reads, errors caught)."""
    if hasattr(fn, "evalType"):  # a udf object
        if fn.evalType not in _ROW_AT_A_TIME_UDFS:
            raise InvalidInputError(
                f"register_monotone('{name}') supports plain Python functions and udf() objects, not "
                "pandas or arrow UDFs: pass the row-at-a-time function instead")
        if return_type is not None:
            raise InvalidInputError(f"register_monotone('{name}') got a udf and a return_type: the "
                                    "udf's own return type is used, drop return_type")
        func, return_type, user_udf = fn.func, fn.returnType, fn  # keeps asNondeterministic()
    elif return_type is None:
        raise InvalidInputError(f"register_monotone('{name}') needs return_type for a Python function, "
                                "e.g. return_type='bigint'")
    else:
        func, user_udf = fn, udf(fn, return_type)
    ddl = return_type if isinstance(return_type, str) else return_type.simpleString()

    # No type hints: pyspark would read them as a request for an Arrow-typed UDF.
    def probe(*args):  # type: ignore[no-untyped-def]
        try:
            return True, func(*args)
        except Exception:  # an endpoint where fn raises keeps the parts that reach it
            return False, None

    spark.udf.register(_probe_name(name), udf(probe, f"struct<ok:boolean,value:{ddl}>"))
    return spark.udf.register(name, user_udf)


def _probe_name(name: str) -> str:
    """The SQL name of the probe of ``name`` (see UdfProbes.probeName on the JVM)."""
    return "__sparkpersist_probe_" + name.lower()

"""Building Spark sessions that know about persist shards."""
from __future__ import annotations

import os
from typing import Any, Optional

from pyspark.sql import SparkSession

from ._jar import jar_path

CATALOG = "persist"
"""The catalog name under which shards appear in SQL: ``persist.<shard>``."""

ROOT_KEY = "spark.sparkpersist.root"

EXTENSIONS = "sparkpersist.PersistExtensions"
"""The ``spark.sql.extensions`` entry point."""

CATALOG_CLASS = "sparkpersist.catalog.PersistCatalog"
"""The catalog plugin registered as ``spark.sql.catalog.persist``."""

SESSION_CATALOG_KEY = "spark.sql.catalog.spark_catalog"

SESSION_CATALOG_CLASS = "sparkpersist.metastore.PersistSessionCatalog"
"""The session catalog (``spark_catalog``) that keeps ``USING persist`` tables in the metastore."""


def configure(builder: SparkSession.Builder, root: Optional[str] = None, *,
              session_catalog: bool = False) -> SparkSession.Builder:
    """Adds sparkpersist to a session builder: the bundled jar, the extension and the ``persist`` catalog.

    The jar is the one built for the installed pyspark's Spark line; on a line the package has no
    jar for this raises :class:`~sparkpersist.UnsupportedSparkError` naming the supported lines.

    The extension (``sparkpersist.PersistExtensions``) registers ``mz_now()`` and the optimizer
    rule that skips parts; the catalog shows shards to SQL as ``persist.<shard>``.

    Args:
        builder: a ``SparkSession.builder`` (not yet created).
        root: directory (any Hadoop FileSystem URI) under which shards live. A local path is
            made absolute. If omitted, set ``spark.sparkpersist.root`` yourself.
        session_catalog: also make Spark's session catalog keep ``USING persist`` tables
            (``CREATE TABLE db.t (...) USING persist``) in its metastore, each shard at its table's
            location (docs/session-catalog.md); combine with ``enableHiveSupport()`` for a Hive metastore.

    Returns:
        The same builder, for chaining.
    """
    builder = (builder
               .config("spark.jars", jar_path())
               .config("spark.sql.extensions", EXTENSIONS)
               .config(f"spark.sql.catalog.{CATALOG}", CATALOG_CLASS))
    if session_catalog:
        builder = builder.config(SESSION_CATALOG_KEY, SESSION_CATALOG_CLASS)
    if root is not None:
        builder = builder.config(ROOT_KEY, _absolute(root))
    return builder


def session(root: str, master: str = "local[*]", app_name: str = "sparkpersist", **conf: Any) -> SparkSession:
    """Gets or creates a local (or ``master``) Spark session with sparkpersist configured.

    Args:
        root: directory under which shards live (created if missing for local paths).
        master: Spark master URL.
        app_name: Spark application name.
        **conf: further Spark configs; write dotted keys with underscores or pass a dict,
            e.g. ``session(root, **{"spark.sql.shuffle.partitions": "4"})``.
    """
    builder = configure(SparkSession.builder.master(master).appName(app_name), root)
    if "://" not in root:
        os.makedirs(root, exist_ok=True)
    for key, value in conf.items():
        builder = builder.config(key, value if isinstance(value, str) else str(value))
    return builder.getOrCreate()


def _absolute(root: str) -> str:
    return root if "://" in root or root.startswith("file:") else os.path.abspath(root)

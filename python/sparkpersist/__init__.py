"""sparkpersist: persist shards for Apache Spark, with part pruning by abstract interpretation.

Typical use::

    import sparkpersist
    spark = sparkpersist.session("/data/shards")
    sparkpersist.write(events_df, "events", time_col="event_ms")
    spark.sql("SELECT count(*) FROM persist.events").show()
    sparkpersist.compact(spark, "events", retention_ms=30 * 86_400_000)   # and sparkpersist.gc(spark, "events")
"""
from ._api import (Batch, compact, drop_batch, gc, last_scans, parts, set_cluster_by, set_index_columns, shards,
                   write)
from ._jar import jar_path, spark_lines
from ._monotone import register_monotone
from ._session import CATALOG, configure, session
from .errors import (AsOfError, ConcurrentShardUpdateError, ConnectNotSupportedError, CorruptStateError,
                     InconsistentUpdatesError, InvalidInputError, NotFoundError, ShardConflictError, ShardExistsError,
                     ShardNotFoundError, SoftPushdownViolationError, SparkPersistError, StreamError,
                     UnreadablePartError, UnsupportedFormatError, UnsupportedOperationError, UnsupportedSparkError,
                     UpperMismatchError, translated_errors)

__all__ = [
    "AsOfError", "Batch", "CATALOG", "ConcurrentShardUpdateError", "ConnectNotSupportedError", "CorruptStateError", "InconsistentUpdatesError", "InvalidInputError", "NotFoundError",
    "ShardConflictError", "ShardExistsError",
    "ShardNotFoundError", "SoftPushdownViolationError", "SparkPersistError", "StreamError", "UnreadablePartError",
    "UnsupportedFormatError", "UnsupportedOperationError", "UnsupportedSparkError",
    "UpperMismatchError", "compact", "configure", "drop_batch", "gc", "jar_path", "last_scans", "parts", "register_monotone",
    "session", "set_cluster_by", "spark_lines", "set_index_columns", "shards", "translated_errors", "write",
]

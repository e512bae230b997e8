"""sparkpersist: persist shards for Apache Spark, with part pruning by abstract interpretation.

Typical use::

    import sparkpersist
    spark = sparkpersist.session("/data/shards")
    sparkpersist.write(events_df, "events", time_col="event_ms")
    spark.sql("SELECT count(*) FROM persist.events").show()
    sparkpersist.compact(spark, "events", retention_ms=30 * 86_400_000)   # and sparkpersist.gc(spark, "events")
    events = sparkpersist.ShardTable.forName(spark, "events")          # delta-spark's DeltaTable names
    events.delete("country = 'XX'")
"""
from ._api import (Batch, compact, drop_batch, gc, last_scans, parts, set_cluster_by, set_index_columns, shards,
                   write)
from ._jar import jar_path, spark_lines
from ._monotone import register_monotone
from ._session import CATALOG, configure, session
from ._merge import (ShardMergeBuilder, ShardMergeMatchedActionBuilder, ShardMergeNotMatchedActionBuilder,
                     ShardMergeNotMatchedBySourceActionBuilder)
from ._table import ShardTable
from .errors import (AsOfError, ConcurrentShardUpdateError, ConnectNotSupportedError, CorruptStateError,
                     InconsistentUpdatesError, InvalidInputError, NotFoundError, ShardConflictError, ShardExistsError,
                     ShardNotFoundError, SoftPushdownViolationError, SparkPersistError, StreamError,
                     UnreadablePartError, UnsupportedFormatError, UnsupportedOperationError, UnsupportedSparkError,
                     UpperMismatchError, translated_errors)

__all__ = [
    "AsOfError", "Batch", "CATALOG", "compact", "ConcurrentShardUpdateError", "configure", "ConnectNotSupportedError",
    "CorruptStateError", "drop_batch", "gc", "InconsistentUpdatesError", "InvalidInputError", "jar_path",
    "last_scans", "NotFoundError", "parts", "register_monotone", "session", "set_cluster_by", "set_index_columns",
    "ShardConflictError", "ShardExistsError", "ShardMergeBuilder", "ShardMergeMatchedActionBuilder",
    "ShardMergeNotMatchedActionBuilder", "ShardMergeNotMatchedBySourceActionBuilder", "ShardNotFoundError", "shards",
    "ShardTable", "SoftPushdownViolationError", "spark_lines", "SparkPersistError", "StreamError",
    "translated_errors", "UnreadablePartError", "UnsupportedFormatError", "UnsupportedOperationError",
    "UnsupportedSparkError", "UpperMismatchError", "write",
]

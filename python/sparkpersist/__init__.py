"""sparkpersist: persist shards for Apache Spark, with part pruning by abstract interpretation.

Typical use::

    import sparkpersist
    spark = sparkpersist.session("/data/shards")
    sparkpersist.write(events_df, "events", time_col="event_ms")
    spark.sql("SELECT count(*) FROM persist.events").show()
"""
from ._api import Batch, last_scans, parts, shards, write
from ._jar import jar_path
from ._session import CATALOG, configure, session
from .errors import (ConnectNotSupportedError, InvalidInputError, ShardExistsError, ShardNotFoundError,
                     SparkPersistError, UpperMismatchError)

__all__ = [
    "Batch", "CATALOG", "ConnectNotSupportedError", "InvalidInputError", "ShardExistsError",
    "ShardNotFoundError", "SparkPersistError", "UpperMismatchError", "configure", "jar_path",
    "last_scans", "parts", "session", "shards", "write",
]

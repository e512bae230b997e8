"""The demo's data: months of events, one batch per day of ingest, written once and then reused.

Each day's events are one batch whose update ``time`` is the end of the ingest day. The
events' own ``event_ts`` lags it: most by up to a day, a few arrive up to three days late.
Each event carries its payload twice, as the client sent it (``payload_json``, JSON text) and
parsed (``payload``, VARIANT): ``ts`` (the client clock, epoch ms, a few ms to seconds before
``event_ts``; missing in ~2 % of events), ``kind``, ``qty`` (a number, sometimes a numeric
string), ``coupon`` (an explicit JSON ``null`` or a code, often missing), a nested ``device``
object whose ``version`` is sometimes missing, and an ``items`` array. ``amount`` is null
for events without money.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from .._session import CATALOG

DAY_MS = 86_400_000
#: String columns holding JSON text, declared so that they get JSON statistics.
JSON_COLUMNS = ["payload_json"]
_COUNTRIES = ("US", "DE", "FR", "JP", "BR", "IN")
_KINDS = ("page_view", "page_view", "page_view", "page_view", "page_view", "page_view",
          "add_to_cart", "add_to_cart", "purchase", "refund")
_OS = ("ios", "android", "web")


@dataclass(frozen=True)
class DemoConfig:
    """The shape of the demo shard. The defaults give 90 days x 10,000 events in 360 parts."""

    shard: str = "demo_events"
    days: int = 90
    events_per_day: int = 10_000
    tasks_per_day: int = 2
    rows_per_part: int = 2_500
    start_ms: int = 1_767_225_600_000  # 2026-01-01T00:00:00Z

    @property
    def table(self) -> str:
        """The shard's name in SQL."""
        return f"{CATALOG}.{self.shard}"

    def ingest_ms(self, day: int) -> int:
        """The update time of day ``day``'s batch: the last millisecond of that day."""
        return self.start_ms + (day + 1) * DAY_MS - 1


def _pick(values: tuple[str, ...], seed: Column) -> Column:
    """One of ``values``, chosen by a hash of ``seed``."""
    return F.element_at(F.array(*[F.lit(v) for v in values]), (F.abs(F.hash(seed)) % len(values) + 1).cast("int"))


def _uniform(day: int, salt: int) -> Column:
    """A uniform draw in [0, 1) per event of ``day``, independent for each ``salt`` (and repeatable)."""
    return (F.abs(F.xxhash64(F.col("id"), F.lit(day), F.lit(salt))) % 1_000_000) / 1_000_000


def day_events(spark: SparkSession, config: DemoConfig, day: int) -> DataFrame:
    """The events ingested on ``day`` (with an ``ingest_ms`` column: the batch's update time)."""
    ingest_ms = config.ingest_ms(day)
    lag_ms = F.when(_uniform(day, 0) >= 0.97, _uniform(day, 1) * 3 * DAY_MS).otherwise(_uniform(day, 1) * DAY_MS)
    event_ms = F.lit(ingest_ms) - lag_ms.cast("bigint")
    n = F.col("id") % 5 + 1
    payload_json = F.to_json(F.struct(  # null fields are left out: they become missing keys
        F.when(_uniform(day, 2) >= 0.02, event_ms - (_uniform(day, 3) * 2_000).cast("bigint")).alias("ts"),
        F.col("kind"),
        F.when(_uniform(day, 4) < 0.1, F.parse_json(F.format_string('"%d"', n)))
         .otherwise(F.parse_json(n.cast("string"))).alias("qty"),
        F.when(_uniform(day, 5) < 0.3, F.parse_json(F.lit("null")))
         .when(_uniform(day, 5) >= 0.9, F.parse_json(F.format_string('"C%02d"', F.col("id") % 97))).alias("coupon"),
        F.struct(_pick(_OS, F.col("id") + 7).alias("os"),
                 F.when(_uniform(day, 6) >= 0.15, F.format_string("%d.%d", n + 13, F.col("id") % 4)).alias("version"))
         .alias("device"),
        F.array(F.struct(F.format_string("sku-%04d", F.col("id") % 1000).alias("sku"),
                         F.round(_uniform(day, 7) * 80 + 1, 2).alias("price"))).alias("items")))
    return (spark.range(config.events_per_day, numPartitions=config.tasks_per_day)
            .withColumn("kind", _pick(_KINDS, F.concat_ws("/", F.col("id").cast("string"), F.lit(day))))
            .select(F.timestamp_millis(event_ms).alias("event_ts"),
                    (F.abs(F.hash("id", F.lit(day))) % 50_000).cast("int").alias("user_id"),
                    _pick(_COUNTRIES, F.col("id")).alias("country"),
                    F.when(F.col("kind").isin("purchase", "refund"), F.round(_uniform(day, 8) * 200, 2))
                     .alias("amount"),
                    payload_json.alias("payload_json"),
                    F.lit(ingest_ms).alias("ingest_ms"))
            .withColumn("payload", F.parse_json("payload_json")))


def _days_written(spark: SparkSession, config: DemoConfig) -> Optional[int]:
    """How many days of ``config`` the existing shard holds, or None if it holds something else.

    The shard matches when its columns are the demo's and its batches are the first days of
    ``config``, each with ``events_per_day`` rows.
    """
    import sparkpersist

    expected = [(f.name, f.dataType) for f in day_events(spark, config, 0).drop("ingest_ms").schema]
    schema = spark.table(config.table).schema
    if [(f.name, f.dataType) for f in schema] != expected:
        return None
    if not all(schema[c].metadata.get("sparkpersist.json") is True for c in JSON_COLUMNS):
        return None  # written before its JSON text columns were declared: no JSON statistics
    batches = (sparkpersist.parts(spark, config.shard).groupBy("batch_upper")
               .agg(F.sum("row_count").alias("rows")).orderBy("batch_upper").collect())
    days = [config.ingest_ms(d) + 1 for d in range(len(batches))]
    if len(batches) > config.days or [(b.batch_upper, b.rows) for b in batches] != \
            [(upper, config.events_per_day) for upper in days]:
        return None
    return len(batches)


def ensure_shard(spark: SparkSession, config: DemoConfig, *, progress: bool = True) -> None:
    """Writes the days of ``config`` not yet in its shard, one batch per day.

    A shard of the same name holding other data (an older demo, other settings) is dropped and
    written again, with a message saying so.
    """
    import sparkpersist
    from tqdm import tqdm

    done = 0
    if config.shard in sparkpersist.shards(spark):
        written = _days_written(spark, config)
        if written is None:
            print(f"Shard {config.shard!r} holds data of another demo layout (an older version or other "
                  "settings): dropping it and writing it again.")
            spark.sql(f"DROP TABLE {config.table}")
        else:
            done = written
    if done == config.days:
        print(f"Reusing shard {config.table}: its {config.days} days are written.")
        return
    for day in tqdm(range(done, config.days), desc=f"writing {config.shard}", unit="day", initial=done,
                    total=config.days, disable=not progress):
        sparkpersist.write(day_events(spark, config, day), config.shard, time_col="ingest_ms",
                           max_rows_per_part=config.rows_per_part, order_by=["event_ts"],
                           json_columns=JSON_COLUMNS)

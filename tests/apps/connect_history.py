"""A Spark Connect client runs the history scenario (history_scenario.py) and prints one JSON line of what it saw."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pyspark.sql import SparkSession

sys.path.insert(0, str(Path(__file__).resolve().parent))
from history_scenario import run  # noqa: E402

if __name__ == "__main__":
    print(json.dumps(run(SparkSession.builder.remote(sys.argv[1]).getOrCreate(), "persist.hist")))

"""The spark-submit scenario on ``local-cluster[2,1,1024]``: two executors in JVMs of their own.

Pruning is decided on the driver while parts are read by executors that share no memory with
it, so anything kept in driver-only state (the as-of, the selected parts, the jar) would show.
"""
from __future__ import annotations

from pathlib import Path

from test_spark_submit import check_scenario, submit_app

MASTER = "local-cluster[2,1,1024]"


def test_scenario_on_separate_executor_jvms(tmp_path: Path) -> None:
    # Start the first job only once both executors have registered, so both can run tasks.
    result = submit_app(MASTER, tmp_path, conf={"spark.scheduler.minRegisteredResourcesRatio": "1.0",
                                                "spark.scheduler.maxRegisteredResourcesWaitingTime": "120s"})
    assert (result["master"], result["executor_jvms"], result["in_executor_jvm"]) == (MASTER, 2, [[True]])
    check_scenario(result)

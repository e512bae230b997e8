"""The clauses of a ``ShardTable`` MERGE, recorded in order and replayed on a merge builder."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Union

from pyspark.sql import Column

ColumnOrStr = Union[Column, str]
"""A condition or value: a :class:`~pyspark.sql.Column`, or a SQL expression as a string."""


@dataclass(frozen=True)
class MergeClause:
    """One clause of a MERGE: its kind, condition, action and the values it sets or inserts."""

    kind: str  # "matched", "not_matched" or "not_matched_by_source"
    condition: Optional[ColumnOrStr]
    action: str  # "update", "update_all", "delete", "insert" or "insert_all"
    values: Optional[Dict[str, ColumnOrStr]] = None


_WHEN = {"matched": "whenMatched", "not_matched": "whenNotMatched", "not_matched_by_source": "whenNotMatchedBySource"}
_ACTION = {"update": "update", "insert": "insert", "update_all": "updateAll", "insert_all": "insertAll",
           "delete": "delete"}


def replay(builder: Any, clauses: List[MergeClause], column: Callable[[ColumnOrStr], Any],
           columns: Callable[[Dict[str, ColumnOrStr]], Any]) -> Any:
    """``clauses`` added to ``builder`` (the JVM's ``ShardMergeBuilder`` or pyspark's ``MergeIntoWriter``,
    which share these names), conditions and values converted by ``column`` and ``columns``."""
    for clause in clauses:
        when = getattr(builder, _WHEN[clause.kind])
        actions = when() if clause.condition is None else when(column(clause.condition))
        act = getattr(actions, _ACTION[clause.action])
        builder = act(columns(clause.values or {})) if clause.action in ("update", "insert") else act()
    return builder

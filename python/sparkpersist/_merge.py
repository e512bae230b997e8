"""A ``ShardTable`` MERGE, clause by clause: the builders, and the clauses they record, replayed on a
merge builder of the JVM (classic) or on pyspark's ``DataFrame.mergeInto`` (Spark Connect)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Union

from pyspark.sql import Column, DataFrame

from .errors import InvalidInputError, translated_errors

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


class ShardMergeBuilder:
    """A MERGE of a source into a :class:`ShardTable`, clause by clause, as delta-spark's ``DeltaMergeBuilder``.

    Clauses of one kind apply in the order given (the first whose condition holds wins).
    """

    def __init__(self, backend: Any, source: DataFrame, condition: ColumnOrStr, clauses: List[MergeClause]) -> None:
        """Use :meth:`ShardTable.merge`."""
        self._backend = backend
        self._source = source
        self._condition = condition
        self._clauses = clauses

    def _adding(self, clause: MergeClause) -> "ShardMergeBuilder":
        return ShardMergeBuilder(self._backend, self._source, self._condition, self._clauses + [clause])

    def whenMatched(self, condition: Optional[ColumnOrStr] = None) -> "ShardMergeMatchedActionBuilder":
        """A clause for target rows with a matching source row (on which ``condition`` holds)."""
        return ShardMergeMatchedActionBuilder(self, "matched", condition)

    def whenMatchedUpdate(self, condition: Optional[ColumnOrStr] = None,
                          set: Optional[Dict[str, ColumnOrStr]] = None) -> "ShardMergeBuilder":
        """``whenMatched(condition).update(set)``."""
        return self.whenMatched(condition).update(set)

    def whenMatchedUpdateAll(self, condition: Optional[ColumnOrStr] = None) -> "ShardMergeBuilder":
        """``whenMatched(condition).updateAll()``."""
        return self.whenMatched(condition).updateAll()

    def whenMatchedDelete(self, condition: Optional[ColumnOrStr] = None) -> "ShardMergeBuilder":
        """``whenMatched(condition).delete()``."""
        return self.whenMatched(condition).delete()

    def whenNotMatched(self, condition: Optional[ColumnOrStr] = None) -> "ShardMergeNotMatchedActionBuilder":
        """A clause for source rows with no matching target row (on which ``condition`` holds)."""
        return ShardMergeNotMatchedActionBuilder(self, condition)

    def whenNotMatchedInsert(self, condition: Optional[ColumnOrStr] = None,
                             values: Optional[Dict[str, ColumnOrStr]] = None) -> "ShardMergeBuilder":
        """``whenNotMatched(condition).insert(values)``."""
        return self.whenNotMatched(condition).insert(values)

    def whenNotMatchedInsertAll(self, condition: Optional[ColumnOrStr] = None) -> "ShardMergeBuilder":
        """``whenNotMatched(condition).insertAll()``."""
        return self.whenNotMatched(condition).insertAll()

    def whenNotMatchedBySource(self, condition: Optional[ColumnOrStr] = None
                               ) -> "ShardMergeNotMatchedBySourceActionBuilder":
        """A clause for target rows with no matching source row (on which ``condition`` holds)."""
        return ShardMergeNotMatchedBySourceActionBuilder(self, "not_matched_by_source", condition)

    def whenNotMatchedBySourceUpdate(self, condition: Optional[ColumnOrStr] = None,
                                     set: Optional[Dict[str, ColumnOrStr]] = None) -> "ShardMergeBuilder":
        """``whenNotMatchedBySource(condition).update(set)``."""
        return self.whenNotMatchedBySource(condition).update(set)

    def whenNotMatchedBySourceDelete(self, condition: Optional[ColumnOrStr] = None) -> "ShardMergeBuilder":
        """``whenNotMatchedBySource(condition).delete()``."""
        return self.whenNotMatchedBySource(condition).delete()

    def execute(self) -> None:
        """Runs the MERGE: one commit of every clause's retractions and insertions, as ``MERGE INTO``."""
        if not self._clauses:
            raise InvalidInputError("A MERGE needs at least one clause: add whenMatched(), whenNotMatched() or "
                                    "whenNotMatchedBySource() before execute().")
        with translated_errors():
            self._backend.merge(self._source, self._condition, self._clauses)


class _UpdateOrDelete:
    """The actions of a clause that updates or deletes target rows."""

    def __init__(self, merge: ShardMergeBuilder, kind: str, condition: Optional[ColumnOrStr]) -> None:
        """Use :meth:`ShardMergeBuilder.whenMatched` or :meth:`ShardMergeBuilder.whenNotMatchedBySource`."""
        self._merge = merge
        self._kind = kind
        self._condition = condition

    def update(self, set: Optional[Dict[str, ColumnOrStr]]) -> ShardMergeBuilder:
        """Sets the target's columns of ``set`` to their values (Columns or SQL expressions)."""
        if not set:
            raise InvalidInputError("update() needs set: a dict of column name to its new value.")
        return self._merge._adding(MergeClause(self._kind, self._condition, "update", dict(set)))

    def delete(self) -> ShardMergeBuilder:
        """Deletes the target row."""
        return self._merge._adding(MergeClause(self._kind, self._condition, "delete"))


class ShardMergeMatchedActionBuilder(_UpdateOrDelete):
    """The actions of a ``whenMatched`` clause: update some or all columns, or delete the target row."""

    def updateAll(self) -> ShardMergeBuilder:
        """Sets every column of the target row to the source's column of the same name (``UPDATE SET *``)."""
        return self._merge._adding(MergeClause(self._kind, self._condition, "update_all"))


class ShardMergeNotMatchedBySourceActionBuilder(_UpdateOrDelete):
    """The actions of a ``whenNotMatchedBySource`` clause: update or delete the target row."""


class ShardMergeNotMatchedActionBuilder:
    """The actions of a ``whenNotMatched`` clause: insert the source row, or a row of given values."""

    def __init__(self, merge: ShardMergeBuilder, condition: Optional[ColumnOrStr]) -> None:
        """Use :meth:`ShardMergeBuilder.whenNotMatched`."""
        self._merge = merge
        self._condition = condition

    def insert(self, values: Optional[Dict[str, ColumnOrStr]]) -> ShardMergeBuilder:
        """Inserts a row of ``values`` (column name to a Column or SQL expression; other columns null)."""
        if not values:
            raise InvalidInputError("insert() needs values: a dict of column name to its value.")
        return self._merge._adding(MergeClause("not_matched", self._condition, "insert", dict(values)))

    def insertAll(self) -> ShardMergeBuilder:
        """Inserts the source row as it is, column by column of the same names (``INSERT *``)."""
        return self._merge._adding(MergeClause("not_matched", self._condition, "insert_all"))

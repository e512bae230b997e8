"""Python exceptions for sparkpersist, translated from the JVM's by their error condition.

Every error the JVM side raises to a user carries an error condition (``PERSIST_...``, declared in
the jar's ``error/sparkpersist-error-conditions.json``) and a SQLSTATE, and its message reads
``[PERSIST_...] message SQLSTATE: xxxxx``, as Spark's own errors do. :func:`translated_errors` picks
the Python class by that condition, the same way in classic and Spark Connect sessions.
"""
from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional


class SparkPersistError(Exception):
    """Base class of every sparkpersist error raised in Python.

    ``condition`` is the JVM error's condition (``PERSIST_INVALID_AS_OF.TIME``, or Spark's own such as
    ``TABLE_OR_VIEW_NOT_FOUND``) and ``sql_state`` its SQLSTATE; both are ``None`` for errors raised in
    Python. The message is the JVM's, ``[CONDITION] ... SQLSTATE: xxxxx``.
    """

    def __init__(self, message: str, condition: Optional[str] = None, sql_state: Optional[str] = None) -> None:
        super().__init__(message)
        self.condition = condition
        self.sql_state = sql_state

    def getCondition(self) -> Optional[str]:  # noqa: N802 - pyspark's exceptions name it so
        """The error condition, as pyspark's ``PySparkException.getCondition()``."""
        return self.condition

    def getSqlState(self) -> Optional[str]:  # noqa: N802 - pyspark's exceptions name it so
        """The SQLSTATE, as pyspark's ``PySparkException.getSqlState()``."""
        return self.sql_state


class InvalidInputError(SparkPersistError, ValueError):
    """Bad input: a shard or column name, a schema or type mismatch, an option, a setting, a store
    that cannot commit atomically (the message names the setting that makes it safe)."""


class AsOfError(InvalidInputError):
    """A read as of a time or state version the shard cannot answer: outside ``[since, upper)``,
    or a version the state log no longer holds. The message says which times can be read."""


class NotFoundError(SparkPersistError, LookupError):
    """Something the call names does not exist: a batch, a procedure, a shard."""


class ShardNotFoundError(NotFoundError):
    """The named shard does not exist under the configured root."""


class ShardExistsError(SparkPersistError):
    """A shard of that name already exists."""


class ShardConflictError(SparkPersistError):
    """Another commit changed the shard while this one ran; nothing was written. The message says
    whether running it again applies it to the shard as it is now."""


class UpperMismatchError(ShardConflictError):
    """Another writer committed first and the write, whose rows carry their own times below the
    new upper, cannot follow it; nothing was written. Retry the write with later times."""


class ConcurrentShardUpdateError(ShardConflictError):
    """A ``DELETE``, ``UPDATE``, ``MERGE`` or overwrite conflicted with a commit that landed after
    it read the shard (the message names it); nothing was written. Run the statement again."""


class UnsupportedOperationError(SparkPersistError):
    """An operation persist tables do not offer (rename, partitioning, writing to a metadata view,
    ...); the message says what to do instead."""


class CorruptStateError(SparkPersistError):
    """A state file (or a statement's positions file) of the shard, named in the message, was
    damaged after it was written: restore it from a backup of the shard."""


class UnreadablePartError(SparkPersistError, OSError):
    """A part file the shard's state lists (named in the message) is missing, cut short or
    damaged. Parts never change once written: restore it from a backup of the shard directory.
    Every query that reads the part fails until then; none answers without its rows."""


class UnsupportedFormatError(SparkPersistError):
    """A part, state or positions file (named in the message) was written by a newer sparkpersist
    (upgrade to read the shard), or records a format version that is no version (a damaged file:
    restore it from a backup)."""


class InconsistentUpdatesError(SparkPersistError):
    """The shard's updates retract a row more often than they insert it; the message says how to
    find the retractions without a matching insertion."""


class StreamError(SparkPersistError):
    """A streaming query over a shard cannot continue (its checkpoint is of another shard or behind
    the shard's ``since``, or the shard's schema changed under it); the message says how to restart it."""


class SoftPushdownViolationError(SparkPersistError):
    """Soft pushdown mode found a row in a part pruning would have skipped: a bug to report (or a
    function declared monotone that is not). The message names the part and how to read without pruning."""


class UnsupportedSparkError(SparkPersistError, RuntimeError):
    """The installed pyspark is of a Spark line this package has no jar for (the message names
    the installed version and the supported lines)."""


class ConnectNotSupportedError(SparkPersistError):
    """A py4j-based helper was called on a Spark Connect session."""


# Error condition -> Python class. A sub-condition (MAIN.SUB) not listed takes its main condition's.
_BY_CONDITION: dict[str, type[SparkPersistError]] = {
    "PERSIST_BATCH_NOT_FOUND": NotFoundError,
    "PERSIST_BATCH_REPLACED": ConcurrentShardUpdateError,
    "PERSIST_CONCURRENT_SHARD_UPDATE": ConcurrentShardUpdateError,
    "PERSIST_CORRUPT_STATE": CorruptStateError,
    "PERSIST_DAMAGED_POSITIONS_FILE": CorruptStateError,
    "PERSIST_INCONSISTENT_UPDATES": InconsistentUpdatesError,
    "PERSIST_INVALID_AS_OF": AsOfError,
    "PERSIST_INVALID_CONF": InvalidInputError,
    "PERSIST_INVALID_NAME": InvalidInputError,
    "PERSIST_INVALID_OPTION": InvalidInputError,
    "PERSIST_INVALID_SCHEMA": InvalidInputError,
    "PERSIST_INVALID_STATEMENT": InvalidInputError,
    "PERSIST_INVALID_WRITE": InvalidInputError,
    "PERSIST_LOCATION_NOT_EMPTY": InvalidInputError,
    "PERSIST_NAME_TAKEN": InvalidInputError,
    "PERSIST_NAMESPACE_EXISTS": InvalidInputError,
    "PERSIST_NAMESPACE_NOT_EMPTY": InvalidInputError,
    "PERSIST_NAMESPACE_NOT_FOUND": NotFoundError,
    "PERSIST_NO_ATOMIC_COMMIT": InvalidInputError,
    "PERSIST_PATH_EXISTS": ShardExistsError,
    "PERSIST_PROCEDURE_NOT_FOUND": NotFoundError,
    "PERSIST_SCHEMA_CHANGED_DURING_WRITE": ShardConflictError,
    "PERSIST_SHARD_EXISTS": ShardExistsError,
    "PERSIST_SHARD_NOT_FOUND": ShardNotFoundError,
    "PERSIST_SHARD_NOT_FOUND_AT": ShardNotFoundError,
    "PERSIST_SOFT_PUSHDOWN_VIOLATION": SoftPushdownViolationError,
    "PERSIST_STREAM_CHECKPOINT_OF_OTHER_SHARD": StreamError,
    "PERSIST_STREAM_OFFSET_BELOW_SINCE": StreamError,
    "PERSIST_STREAM_SCHEMA_CHANGED": StreamError,
    "PERSIST_UNREADABLE_PART": UnreadablePartError,
    "PERSIST_UNSUPPORTED_FORMAT": UnsupportedFormatError,
    "PERSIST_UNSUPPORTED_OPERATION": UnsupportedOperationError,
    "PERSIST_UPPER_MISMATCH": UpperMismatchError,
    # Spark's own conditions for the tables and namespaces of the persist catalog.
    "TABLE_OR_VIEW_NOT_FOUND": ShardNotFoundError,
    "SCHEMA_ALREADY_EXISTS": InvalidInputError,
    "SCHEMA_NOT_EMPTY": InvalidInputError,
    "SCHEMA_NOT_FOUND": NotFoundError,
    "TABLE_OR_VIEW_ALREADY_EXISTS": ShardExistsError,
}

# Spark's errors of SQLSTATE class 42 (syntax error or access rule violation: analysis errors) are bad input.
_BY_SQLSTATE_CLASS: dict[str, type[SparkPersistError]] = {"42": InvalidInputError}

_PERSIST_MESSAGE = re.compile(r"\[(PERSIST_[A-Z0-9_]+(?:\.[A-Z0-9_]+)?)\] .*? SQLSTATE: ([0-9A-Z]{5})", re.DOTALL)


@dataclass(frozen=True)
class _Reported:
    """One error of a JVM cause chain as a client sees it."""
    condition: Optional[str]
    sql_state: Optional[str]
    message: str


def class_of(condition: str) -> Optional[type[SparkPersistError]]:
    """The Python class of errors of ``condition`` (``MAIN`` or ``MAIN.SUB``), ``None`` if there is none."""
    return _BY_CONDITION.get(condition) or _BY_CONDITION.get(condition.split(".", 1)[0])


def _translate(chain: Iterable[_Reported]) -> Optional[SparkPersistError]:
    """The Python error of a JVM cause chain (outermost first), or ``None`` if no error of it is known.

    The outermost error with a sparkpersist condition decides (Spark may wrap one, e.g. a task
    failure around an unreadable part); else the outermost with a condition listed above; else the
    outermost whose SQLSTATE class is listed.
    """
    chain = list(chain)
    decisive = (next((r for r in chain if r.condition and r.condition.startswith("PERSIST_")), None)
                or next((r for r in chain if r.condition and class_of(r.condition)), None))
    if decisive is not None:
        return class_of(decisive.condition)(decisive.message, decisive.condition, decisive.sql_state)
    for reported in chain:
        cls = _BY_SQLSTATE_CLASS.get((reported.sql_state or "")[:2])
        if cls is not None:
            return cls(reported.message, reported.condition, reported.sql_state)
    return None


def _in_text(text: str) -> Optional[_Reported]:
    """A sparkpersist error quoted in ``text`` (``[PERSIST_...] ... SQLSTATE: xxxxx``), e.g. inside the
    message of a Spark error that wraps it."""
    found = _PERSIST_MESSAGE.search(text)
    return _Reported(found.group(1), found.group(2), found.group(0)) if found else None


def _jvm_chain(java_exception) -> Iterator[_Reported]:
    """The errors of a py4j JVM exception and its causes, outermost first."""
    from py4j.protocol import Py4JError

    seen = 0
    while java_exception is not None and seen < 20:
        message = str(java_exception.getMessage())
        try:  # a SparkThrowable
            condition, sql_state = java_exception.getCondition(), java_exception.getSqlState()
        except Py4JError:
            condition = sql_state = None
        if condition is None and (quoted := _in_text(message)) is not None:
            yield quoted
        else:
            yield _Reported(None if condition is None else str(condition),
                            None if sql_state is None else str(sql_state), message)
        java_exception = java_exception.getCause()
        seen += 1


_CONNECT_TRACE = "\n\nJVM stacktrace:\n"


def _connect_chain(error: Exception) -> Iterator[_Reported]:
    """The errors of a Spark Connect error, outermost first.

    A Connect client holds no JVM objects, only what the server sent: the error's condition and
    SQLSTATE (pyspark's ``getCondition()``, ``getSqlState()``), its message, and the server's stack
    trace, whose ``Caused by: <class>: <message>`` lines quote its causes.
    """
    message = str(error.getMessage()).split(_CONNECT_TRACE, 1)[0]
    yield _in_text(message) or _Reported(error.getCondition(), error.getSqlState(), message)
    for line in str(error.getStackTrace() or "").splitlines():
        if line.startswith("Caused by: ") and (quoted := _in_text(line)) is not None:
            yield quoted


def _is_connect_error(error: Exception) -> bool:
    # The module is loaded by any Spark Connect session (it needs grpc, which classic users may lack).
    connect = sys.modules.get("pyspark.errors.exceptions.connect")
    return connect is not None and isinstance(error, connect.SparkConnectGrpcException)


@contextlib.contextmanager
def translated_errors() -> Iterator[None]:
    """Turns a JVM error of sparkpersist into a :class:`SparkPersistError` of its error condition.

    The module's functions use it; wrap a query's action in it to get the same errors from reads
    (``with sparkpersist.translated_errors(): df.collect()``): a damaged part then raises
    :class:`UnreadablePartError` instead of pyspark's generic error. Classic sessions raise py4j
    errors (any of them becomes a :class:`SparkPersistError`); Spark Connect sessions raise
    pyspark's Connect errors, translated when the server reported a known condition and raised as
    they are otherwise.
    """
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        yield
    except Py4JJavaError as e:
        raise _translate(_jvm_chain(e.java_exception)) or SparkPersistError(str(e.java_exception.toString())) from e
    except CapturedException as e:
        # pyspark's own py4j hook converts some JVM errors first; it keeps the original.
        origin = getattr(e, "_origin", None)
        if origin is None:
            raise
        raise _translate(_jvm_chain(origin)) or SparkPersistError(str(origin.toString())) from e
    except Exception as e:
        if not _is_connect_error(e):
            raise
        translated = _translate(_connect_chain(e))
        if translated is None:
            raise
        raise translated from e

"""Python exceptions for sparkpersist, translated from the JVM's."""
from __future__ import annotations

import contextlib
import re
import sys
from typing import Iterator, Optional


class SparkPersistError(Exception):
    """Base class of every sparkpersist error raised in Python."""


class ShardNotFoundError(SparkPersistError, LookupError):
    """The named shard does not exist under the configured root."""


class ShardExistsError(SparkPersistError):
    """A shard of that name already exists."""


class UpperMismatchError(SparkPersistError):
    """Another writer committed first and the write, whose rows carry their own times below the
    new upper, cannot follow it; nothing was written. Retry the write with later times."""


class InvalidInputError(SparkPersistError, ValueError):
    """Bad input: a shard name, a schema or type mismatch, an as-of time, an option, a store
    that cannot commit atomically (the message names the setting that makes it safe)."""


class CorruptStateError(SparkPersistError):
    """A state file of the shard (named in the message) was damaged after it was written.
    State files are written atomically: restore the named file from a backup of the shard."""


class UnreadablePartError(SparkPersistError, OSError):
    """A part file the shard's state lists (named in the message) is missing, cut short or
    damaged. Parts never change once written: restore it from a backup of the shard directory.
    Every query that reads the part fails until then; none answers without its rows."""


class UnsupportedFormatError(SparkPersistError):
    """A part or state file (named in the message) was written by a newer sparkpersist (upgrade
    to read the shard), or records a format version that is no version (a damaged file:
    restore it from a backup)."""


class UnsupportedSparkError(SparkPersistError, RuntimeError):
    """The installed pyspark is of a Spark line this package has no jar for (the message names
    the installed version and the supported lines)."""


class ConnectNotSupportedError(SparkPersistError):
    """A py4j-based helper was called on a Spark Connect session."""


# JVM exception class (simple name) -> Python class.
_BY_JVM_CLASS = {
    "NoSuchShard": ShardNotFoundError,
    "NoSuchTableException": ShardNotFoundError,
    "ShardAlreadyExists": ShardExistsError,
    "UpperMismatch": UpperMismatchError,
    "IllegalArgumentException": InvalidInputError,
    "NoAtomicCommit": InvalidInputError,
    "AnalysisException": InvalidInputError,
    "CorruptState": CorruptStateError,
    "UnreadablePart": UnreadablePartError,
    "UnsupportedPartFormat": UnsupportedFormatError,
    "UnsupportedStateFormat": UnsupportedFormatError,
}


def _jvm_cause_chain(java_exception) -> Iterator[tuple[str, str]]:
    """(simple class name, message) of a py4j JVM exception and of its causes, outermost first."""
    seen = 0
    while java_exception is not None and seen < 20:
        yield str(java_exception.getClass().getSimpleName()), str(java_exception.getMessage())
        java_exception = java_exception.getCause()
        seen += 1


_CONNECT_REASON = re.compile(r"\((\S+)\) ")
_CONNECT_TRACE = "\n\nJVM stacktrace:\n"


def _connect_cause_chain(error: Exception) -> Iterator[tuple[str, str]]:
    """(simple class name, message) of a Spark Connect error and of its causes, outermost first.

    A Connect client holds no JVM objects, only what the server sent as text: pyspark keeps the
    server's stack trace (``getStackTrace()``), whose first line names the error's class and whose
    ``Caused by: <class>: <message>`` lines name its causes; an error pyspark has no class of its
    own for has its message prefixed with ``(<class>) ``.
    """
    message = str(error.getMessage()).split(_CONNECT_TRACE, 1)[0]
    reason = _CONNECT_REASON.match(message)
    if reason:
        message = message[reason.end():]
    trace = [line for line in str(error.getStackTrace() or "").splitlines() if line and not line[0].isspace()]
    outermost = trace[0] if trace else (reason.group(1) if reason else "")
    yield outermost.rsplit(".", 1)[-1], message
    for line in trace[1:]:
        if line.startswith("Caused by: "):
            name, _, cause_message = line[len("Caused by: "):].partition(": ")
            yield name.rsplit(".", 1)[-1], cause_message


def _is_connect_error(error: Exception) -> bool:
    # The module is loaded by any Spark Connect session (it needs grpc, which classic users may lack).
    connect = sys.modules.get("pyspark.errors.exceptions.connect")
    return connect is not None and isinstance(error, connect.SparkConnectGrpcException)


@contextlib.contextmanager
def translated_errors() -> Iterator[None]:
    """Turns a JVM error of sparkpersist into a :class:`SparkPersistError`.

    The outermost known exception in the JVM cause chain decides the Python class; its
    message (which names the file or setting and says what to do) becomes the Python message.
    The module's functions use it; wrap a query's action in it to get the same errors from
    reads (``with sparkpersist.translated_errors(): df.collect()``): a damaged part then
    raises :class:`UnreadablePartError` instead of pyspark's generic error. Classic sessions raise
    py4j errors (any of them becomes a :class:`SparkPersistError`); Spark Connect sessions raise
    pyspark's Connect errors, translated when a known JVM exception is in the chain the server
    reported and raised as they are otherwise.
    """
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        yield
    except Py4JJavaError as e:
        raise _known(_jvm_cause_chain(e.java_exception)) or SparkPersistError(str(e.java_exception.toString())) from e
    except CapturedException as e:
        # pyspark's own py4j hook converts some JVM errors first; it keeps the original.
        origin = getattr(e, "_origin", None)
        if origin is None:
            raise
        raise _known(_jvm_cause_chain(origin)) or SparkPersistError(str(origin.toString())) from e
    except Exception as e:
        if not _is_connect_error(e):
            raise
        translated = _known(_connect_cause_chain(e))
        if translated is None:
            raise
        raise translated from e


def _known(chain: Iterator[tuple[str, str]]) -> Optional[SparkPersistError]:
    """The error of the first exception in ``chain`` of a class this module knows, if there is one."""
    for name, message in chain:
        if name in _BY_JVM_CLASS:
            return _BY_JVM_CLASS[name](message)
    return None

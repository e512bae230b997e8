"""Python exceptions for sparkpersist, translated from the JVM's."""
from __future__ import annotations

import contextlib
from typing import Iterator


class SparkPersistError(Exception):
    """Base class of every sparkpersist error raised in Python."""


class ShardNotFoundError(SparkPersistError, LookupError):
    """The named shard does not exist under the configured root."""


class ShardExistsError(SparkPersistError):
    """A shard of that name already exists."""


class UpperMismatchError(SparkPersistError):
    """Another writer committed first; nothing was written. Retry the write."""


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


def _jvm_cause_chain(java_exception) -> Iterator:
    seen = 0
    while java_exception is not None and seen < 20:
        yield java_exception
        java_exception = java_exception.getCause()
        seen += 1


@contextlib.contextmanager
def translated_errors() -> Iterator[None]:
    """Turns a py4j error from the sparkpersist JVM facade into a :class:`SparkPersistError`.

    The outermost known exception in the JVM cause chain decides the Python class; its
    message (which names the file or setting and says what to do) becomes the Python message.
    The module's functions use it; wrap a query's action in it to get the same errors from
    reads (``with sparkpersist.translated_errors(): df.collect()``): a damaged part then
    raises :class:`UnreadablePartError` instead of pyspark's generic error.
    """
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        yield
    except Py4JJavaError as e:
        raise _translate(e.java_exception) from e
    except CapturedException as e:
        # pyspark's own py4j hook converts some JVM errors first; it keeps the original.
        origin = getattr(e, "_origin", None)
        if origin is None:
            raise
        raise _translate(origin) from e


def _translate(java_exception) -> SparkPersistError:
    for cause in _jvm_cause_chain(java_exception):
        name = cause.getClass().getSimpleName()
        if name in _BY_JVM_CLASS:
            return _BY_JVM_CLASS[name](str(cause.getMessage()))
    return SparkPersistError(str(java_exception.toString()))

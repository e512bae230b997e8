"""A Spark Thrift (JDBC/ODBC) server over persist shards: ``python -m sparkpersist thriftserver``.

The server is Spark's own ``HiveThriftServer2``, started with ``spark-submit`` from the
installed pyspark, the bundled jar, the ``persist`` catalog and the pruning extensions. Any JDBC
client (beeline, DBeaver, ...) then reads shards as ``persist.<shard>`` with ``mz_now()`` and
part pruning. The Hive metastore (embedded Derby) and the warehouse live in a state directory,
never in the current directory. With ``session_catalog`` (``--session-catalog``) the session
catalog keeps ``USING persist`` tables in that metastore too (``sales.orders``), as BI tools and
dbt expect.
"""
from __future__ import annotations

import errno
import getpass
import ipaddress
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Mapping, Optional, Sequence, Union

from ._jar import jar_path
from ._session import (CATALOG, CATALOG_CLASS, EXTENSIONS, ROOT_KEY, SESSION_CATALOG_CLASS, SESSION_CATALOG_KEY,
                       _absolute)

SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 10000
STATE_DIR_NAME = ".thriftserver"
AUTH_KEYS = ("hive.server2.authentication", "spark.hadoop.hive.server2.authentication")


class ThriftServerError(RuntimeError):
    """The Thrift server cannot be started, or stopped before it accepted connections."""


def spark_home() -> Path:
    """The Spark distribution inside the installed pyspark package (its ``bin/`` and ``jars/``)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def spark_script(name: str) -> str:
    """Absolute path of one of pyspark's launcher scripts, e.g. ``spark-submit`` or ``beeline``."""
    script = spark_home() / "bin" / name
    if not script.is_file():
        raise ThriftServerError(f"{script} is missing: reinstall pyspark (pip install --force-reinstall pyspark).")
    return str(script)


def spark_env(base: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with ``SPARK_HOME`` set to pyspark's Spark.

    pyspark's scripts honour an inherited ``SPARK_HOME``; pinning it keeps a different Spark
    installation from being mixed in, and lets workers of ``local-cluster`` masters find
    ``bin/`` and ``jars/`` to launch executors.
    """
    env = dict(os.environ if base is None else base)
    env["SPARK_HOME"] = str(spark_home())
    return env


def default_state_dir(root: str) -> str:
    """``<root>/.thriftserver`` for a local root (a name no shard can have)."""
    local = _local_path(root)
    if local is None:
        raise ThriftServerError(
            f"The shard root {root} is not a local directory, so the server's metastore and warehouse "
            "cannot live under it: pass --state-dir with a local directory.")
    return str(Path(local) / STATE_DIR_NAME)


def metastore_conf(state_dir: str) -> dict[str, str]:
    """The Spark configs of the server's Hive metastore: embedded Derby and the warehouse under ``state_dir``.

    Another Spark application (``enableHiveSupport()``) with these configs sees the server's databases
    and tables, once the server is stopped: embedded Derby admits one process at a time.
    """
    return {
        "spark.sql.warehouse.dir": str(Path(state_dir) / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL":
            f"jdbc:derby:;databaseName={Path(state_dir) / 'metastore_db'};create=true",
    }


def thriftserver_command(root: str, state_dir: str, *, port: int = DEFAULT_PORT, host: str = DEFAULT_HOST,
                         master: str = "local[*]", conf: Optional[Mapping[str, str]] = None,
                         session_catalog: bool = False) -> list[str]:
    """The ``spark-submit`` command line that runs the Thrift server (nothing is checked or started).

    Args:
        root: the shard root (an absolute local path or any Hadoop FileSystem URI).
        state_dir: local directory for the Derby metastore, the warehouse and ``derby.log``.
        port: TCP port of the Thrift (binary) protocol.
        host: address the server binds to.
        master: Spark master URL.
        conf: further Spark configs, applied last (so they may override the ones set here).
        session_catalog: make ``spark_catalog`` keep ``USING persist`` tables in the metastore.
    """
    confs = {
        "spark.sql.extensions": EXTENSIONS,
        f"spark.sql.catalog.{CATALOG}": CATALOG_CLASS,
        **({SESSION_CATALOG_KEY: SESSION_CATALOG_CLASS} if session_catalog else {}),
        ROOT_KEY: root,
        **metastore_conf(state_dir),
        **(conf or {}),
    }
    command = [spark_script("spark-submit"), "--class", SERVER_CLASS, "--name", "sparkpersist Thrift server",
               "--master", master, "--jars", jar_path(),
               # Also on the driver's class path: the server opens a client's session (and so loads the
               # session catalog, --session-catalog) in a thread whose class loader does not see --jars.
               "--driver-class-path", jar_path(),
               "--driver-java-options", f"-Dderby.system.home={state_dir}"]
    for key, value in confs.items():
        command += ["--conf", f"{key}={value}"]
    return command + ["--hiveconf", f"hive.server2.thrift.port={port}",
                      "--hiveconf", f"hive.server2.thrift.bind.host={host}"]


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (``""``, ``0.0.0.0``, ``::`` are every interface)."""
    if host in ("", "0.0.0.0", "::"):
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def check_bind(host: str, allow_remote: bool, conf: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """Refuses a bind beyond the loopback interface unless ``allow_remote``; then returns the warning to show.

    The server runs every query as the user who started it, and without authentication
    (``hive.server2.authentication=NONE``, HiveServer2's default) anyone who reaches the port can
    read every shard under the root.

    Raises:
        ThriftServerError: ``host`` is not a loopback address and ``allow_remote`` is False.
    """
    if is_loopback(host):
        return None
    if not allow_remote:
        raise ThriftServerError(
            f"Refusing to listen on {host or 'every interface'}: it is reachable from other machines, and the "
            "server has no authentication unless you configure it (hive.server2.authentication). Pass "
            "--allow-remote (allow_remote=True) to listen there anyway, or keep the default host 127.0.0.1.")
    auth = next((conf[k] for k in AUTH_KEYS if conf and k in conf), "NONE")
    if auth.strip().upper() != "NONE":
        return None
    return (f"warning: the Thrift server listens on {host or 'every interface'} WITHOUT authentication: anyone who "
            "reaches this port can read every shard under the root. Configure hive.server2.authentication "
            "(e.g. --conf spark.hadoop.hive.server2.authentication=LDAP), or bind to 127.0.0.1.")


def start_thriftserver(root: str, *, port: int = DEFAULT_PORT, host: str = DEFAULT_HOST,
                       state_dir: Optional[str] = None, master: str = "local[*]",
                       conf: Optional[Mapping[str, str]] = None,
                       log: Union[None, int, IO[bytes]] = None, allow_remote: bool = False,
                       session_catalog: bool = False) -> subprocess.Popen:
    """Checks the root and the port, then starts the Thrift server in a child process.

    The child is the server's JVM itself (pyspark's scripts ``exec`` it), so ``terminate()``
    stops the server cleanly. Use :func:`wait_until_ready` before connecting.

    Args:
        root: existing directory holding the shards (or a Hadoop FileSystem URI).
        port: TCP port to listen on.
        host: address to bind to; the loopback interface by default.
        state_dir: local directory for the metastore and warehouse; default ``<root>/.thriftserver``.
        master: Spark master URL.
        conf: further Spark configs.
        log: where the server's stdout and stderr go (a file, ``subprocess.DEVNULL``); default: inherited.
        allow_remote: allow a ``host`` beyond the loopback interface (see :func:`check_bind`).
        session_catalog: make ``spark_catalog`` keep ``USING persist`` tables in the metastore.

    Raises:
        ThriftServerError: the root does not exist, the port is taken, the state directory is unusable,
            or ``host`` is not loopback and ``allow_remote`` is False.
    """
    check_bind(host, allow_remote, conf)
    local_root = _local_path(root)
    if local_root is not None and not os.path.isdir(local_root):
        raise ThriftServerError(
            f"The shard root {local_root} does not exist or is not a directory. Create it "
            f"(mkdir -p {local_root}) or pass the directory that holds your shards.")
    root = _absolute(root)
    ensure_port_free(host, port)
    state = os.path.abspath(state_dir) if state_dir is not None else default_state_dir(root)
    os.makedirs(state, exist_ok=True)
    command = thriftserver_command(root, state, port=port, host=host, master=master, conf=conf,
                                   session_catalog=session_catalog)
    # The working directory is the state directory: stray files (derby.log, spark-warehouse)
    # of any component end up there rather than wherever the server was started from.
    return subprocess.Popen(command, cwd=state, env=spark_env(), stdout=log, stderr=log)


def ensure_port_free(host: str, port: int) -> None:
    """Raises :class:`ThriftServerError` when ``host:port`` cannot be bound (e.g. already in use)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As the server's own socket does: a closed connection in TIME_WAIT does not block it.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise ThriftServerError(
                    f"Port {port} on {host} is already in use (another Thrift server or HiveServer2?). "
                    "Stop it or pass another --port.") from e
            raise ThriftServerError(f"Cannot listen on {host}:{port}: {e.strerror}. Check --host and --port.") from e


def wait_until_ready(server: subprocess.Popen, host: str, port: int, timeout_s: float = 120.0) -> None:
    """Blocks until the server accepts TCP connections on ``host:port``.

    Raises:
        ThriftServerError: the server exited first, or ``timeout_s`` passed.
    """
    target = "127.0.0.1" if host in ("0.0.0.0", "") else host
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        code = server.poll()
        if code is not None:
            raise ThriftServerError(f"The Thrift server exited with code {code} before accepting connections; "
                                    "see its log above.")
        try:
            with socket.create_connection((target, port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.5)
    raise ThriftServerError(f"The Thrift server did not accept connections on {target}:{port} "
                            f"within {timeout_s:.0f} s.")


def stop(server: subprocess.Popen, timeout_s: float = 30.0) -> int:
    """Stops the server: SIGTERM (Spark's shutdown hooks run), then SIGKILL after ``timeout_s``.

    Returns:
        The server's exit code.
    """
    if server.poll() is None:
        server.terminate()
        try:
            return server.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            server.kill()
    return server.wait()


def beeline_command(host: str, port: int, user: str = "") -> list[str]:
    """The beeline command line (shipped with pyspark) that connects to the server."""
    target = "127.0.0.1" if host in ("0.0.0.0", "") else host
    command = [spark_script("beeline"), "-u", f"jdbc:hive2://{target}:{port}"]
    return command + (["-n", user] if user else [])


def _local_path(root: str) -> Optional[str]:
    """The local path of ``root`` (plain path or ``file:`` URI), or None for other file systems."""
    if root.startswith("file://"):
        return root[len("file://"):]
    if root.startswith("file:"):
        return root[len("file:"):]
    return None if "://" in root else os.path.abspath(root)


def main_loop(server: subprocess.Popen, host: str, port: int, user: str, out: Optional[IO[str]] = None) -> int:
    """Runs the server in the foreground: announces how to connect, returns when it exits.

    Ctrl-C (SIGINT, delivered to the whole foreground process group) and SIGTERM sent to this
    process both stop the server cleanly.
    """
    out = out or sys.stdout
    previous = signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    try:
        try:
            wait_until_ready(server, host, port)
        except ThriftServerError as e:
            print(f"error: {e}", file=sys.stderr)
            stop(server)
            return 1
        print(f"\nsparkpersist Thrift server listening on {host}:{port}. Connect with:\n"
              f"  {shlex.join(beeline_command(host, port, user))}\n"
              "Shards are tables persist.<shard>. Stop the server with Ctrl-C.\n", file=out, flush=True)
        return server.wait()
    except KeyboardInterrupt:
        return stop(server)
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(root: str, *, port: int = DEFAULT_PORT, host: str = DEFAULT_HOST, state_dir: Optional[str] = None,
        master: str = "local[*]", conf: Sequence[str] = (), allow_remote: bool = False,
        session_catalog: bool = False) -> int:
    """Entry point of ``python -m sparkpersist thriftserver``: starts the server and waits for it."""
    settings = {}
    for pair in conf:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            print(f"error: --conf expects key=value, got {pair!r}", file=sys.stderr)
            return 2
        settings[key.strip()] = value
    try:
        warning = check_bind(host, allow_remote, settings)
        if warning:
            print(warning, file=sys.stderr)
        server = start_thriftserver(root, port=port, host=host, state_dir=state_dir, master=master, conf=settings,
                                    allow_remote=allow_remote, session_catalog=session_catalog)
    except ThriftServerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return main_loop(server, host, port, getpass.getuser())

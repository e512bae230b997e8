"""Command line: ``python -m sparkpersist <command>``."""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence


def _cmd_jar(args: argparse.Namespace) -> int:
    from ._jar import jar_path
    from .errors import UnsupportedSparkError

    try:
        print(jar_path(args.spark))
    except (UnsupportedSparkError, FileNotFoundError) as e:
        print(f"sparkpersist: {e}", file=sys.stderr)
        return 1
    return 0


def _cmd_shards(args: argparse.Namespace) -> int:
    import sparkpersist

    spark = sparkpersist.session(args.root, master="local[1]", **{"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    for name in sparkpersist.shards(spark):
        print(name)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(args.data)


def _cmd_thriftserver(args: argparse.Namespace) -> int:
    from .thriftserver import run

    return run(args.root, port=args.port, host=args.host, state_dir=args.state_dir, master=args.master,
               conf=args.conf, allow_remote=args.allow_remote, session_catalog=args.session_catalog)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m sparkpersist", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    jar = sub.add_parser("jar", help="print the path of the bundled jar for the installed pyspark's Spark line (for --jars)")
    jar.add_argument("--spark", metavar="VERSION", default=None,
                     help="the Spark version the jar is for, when it is not the installed pyspark's (e.g. a cluster's 4.1.3)")
    jar.set_defaults(func=_cmd_jar)
    shards = sub.add_parser("shards", help="list the shards under a root directory")
    shards.add_argument("--root", required=True, help="directory holding the shards")
    shards.set_defaults(func=_cmd_shards)
    demo = sub.add_parser("demo", help="write a demo shard of events and query it")
    demo.add_argument("--data", default="./demo-data", help="directory for the demo shard (reused if present)")
    demo.set_defaults(func=_cmd_demo)
    thrift = sub.add_parser("thriftserver", help="serve the shards of a root over JDBC/ODBC (Spark Thrift server)")
    thrift.add_argument("--root", required=True, help="existing directory holding the shards")
    thrift.add_argument("--port", type=int, default=10000, help="Thrift port (default: %(default)s)")
    thrift.add_argument("--host", default="127.0.0.1",
                        help="address to bind to (default: %(default)s; another address needs --allow-remote)")
    thrift.add_argument("--allow-remote", action="store_true",
                        help="allow a --host beyond the loopback interface (the server has no authentication "
                             "unless hive.server2.authentication is configured)")
    thrift.add_argument("--state-dir", help="local directory for the metastore and warehouse "
                                            "(default: <root>/.thriftserver)")
    thrift.add_argument("--master", default="local[*]", help="Spark master URL (default: %(default)s)")
    thrift.add_argument("--session-catalog", action="store_true",
                        help="keep USING persist tables (CREATE TABLE db.t ... USING persist) in the metastore, "
                             "as Spark's session catalog (docs/session-catalog.md)")
    thrift.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a further Spark config (repeatable)")
    thrift.set_defaults(func=_cmd_thriftserver)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

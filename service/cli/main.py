"""`kiln`: one console script for the service, workers, clients and maintenance."""

from __future__ import annotations

import argparse
import logging
import sys

from service.cli import admin_cmds, bench_cmd, client_cmds, compile_cmd, server_cmds


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kiln", description="Kiln: CUTLASS autotuning service and kernel cache")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    server_cmds.add(sub)
    client_cmds.add(sub)
    admin_cmds.add(sub)
    compile_cmd.add(sub)
    bench_cmd.add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for chatty in ("httpx", "httpcore", "alembic"):
        logging.getLogger(chatty).setLevel(logging.DEBUG if args.verbose else logging.WARNING)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

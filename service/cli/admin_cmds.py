"""`kiln db upgrade` and `kiln token create|revoke` (run where the database is reachable)."""

from __future__ import annotations

import argparse

from rich.console import Console

from service import auth
from service.auth import Scope
from service.settings import get_settings

console = Console()


def add(sub: argparse._SubParsersAction) -> None:
    db = sub.add_parser("db", help="database maintenance")
    dbsub = db.add_subparsers(dest="db_command", required=True)
    up = dbsub.add_parser("upgrade", help="apply migrations (KILN_DATABASE_URL or the SQLite default)")
    up.add_argument("--revision", default="head")
    up.set_defaults(func=db_upgrade)

    tok = sub.add_parser("token", help="API tokens")
    toksub = tok.add_subparsers(dest="token_command", required=True)
    create = toksub.add_parser("create", help="mint a token (printed once)")
    create.add_argument("--name", required=True)
    create.add_argument("--scope", action="append", choices=[s.value for s in Scope], required=True)
    create.set_defaults(func=token_create)
    revoke = toksub.add_parser("revoke", help="revoke every token with this name")
    revoke.add_argument("--name", required=True)
    revoke.set_defaults(func=token_revoke)


def db_upgrade(args: argparse.Namespace) -> int:
    from service.db.migrate import upgrade

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.resolved_database_url, args.revision)
    console.print(f"database at {args.revision}")
    return 0


def _transaction():  # type: ignore[no-untyped-def]
    from service.db.engine import open_database

    return open_database(get_settings().resolved_database_url).transaction()


def token_create(args: argparse.Namespace) -> int:
    with _transaction() as session:
        token = auth.create_token(session, name=args.name, scopes={Scope(s) for s in args.scope})
    print(token)
    return 0


def token_revoke(args: argparse.Namespace) -> int:
    with _transaction() as session:
        n = auth.revoke(session, name=args.name)
    console.print(f"revoked {n} token(s)")
    return 0

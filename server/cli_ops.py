"""`benchtoward backup` and `benchtoward restore`: operations on a whole store (database + artifacts)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from server.cli_support import add_settings
from server.settings import Settings
from store import Store
from store.backup import integrity_check
from tools import backup as backups
from tools.seed import sync_specs


def backup_command(args: argparse.Namespace, settings: Settings) -> int:
    summary = backups.backup(settings.db, settings.artifacts_dir, args.destination)
    print(
        f"backed up {settings.db} and {summary.results} predictions files ({summary.bytes:,} bytes) to "
        f"{summary.folder}; manifest.json lists their sha256. Not included: the visitor-hash secret."
    )
    return 0


def restore_command(args: argparse.Namespace, settings: Settings) -> int:
    summary = backups.restore(args.source, settings.db, settings.artifacts_dir)

    async def open_once() -> None:  # applies any migration newer than the backup, loads the shipped specs
        store = await Store.open(settings.db)
        try:
            await sync_specs(store)
        finally:
            await store.close()

    asyncio.run(open_once())
    check = integrity_check(settings.db)
    print(
        f"restored {summary.results} results and their predictions files into {settings.db} and "
        f"{settings.artifacts_dir}; integrity check: {check}. Maintainers need new tokens "
        "(benchtoward maintainer add NAME): the secret is not part of a backup."
    )
    return 0 if check == "ok" else 1


def add_ops_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser("backup", help="Back up the database and predictions files, with a manifest.")
    parser.add_argument("destination", type=Path, help="An empty or new folder.")
    add_settings(parser, ["db", "artifacts", "log_level"])
    parser.set_defaults(handler=backup_command)

    parser = commands.add_parser("restore", help="Restore a backup into a fresh database and artifacts folder.")
    parser.add_argument("source", type=Path, help="A folder written by `benchtoward backup`.")
    add_settings(parser, ["db", "artifacts", "log_level"])
    parser.set_defaults(handler=restore_command)

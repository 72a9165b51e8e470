"""`benchtoward backup` and `benchtoward restore`: operations on a whole store (database + artifacts); and
`benchtoward model-card`, which records a registered model's card (weights, base model, licence, paper)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from pydantic import ValidationError

from server.cli_support import add_settings, run_with_registry
from server.settings import Settings
from store import Store
from store.backup import integrity_check
from tools import backup as backups
from tools.errors import BadRequest
from tools.model_card import ModelCardSpec, set_model_card
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


def model_card_command(args: argparse.Namespace, settings: Settings) -> int:
    fields = {"weights_url": args.weights, "base_model": args.base_model, "license": args.license}
    try:
        spec = ModelCardSpec(model=args.model, paper_url=args.paper, **fields)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        raise BadRequest(problems[:500]) from None
    card = run_with_registry(settings, lambda registry: set_model_card(registry, spec))
    shown = ", ".join(f"{name} {value}" for name, value in card.model_dump().items() if value) or "every field unknown"
    print(f"model card of {args.model}: {shown}")
    return 0


def add_ops_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser("backup", help="Back up the database and predictions files, with a manifest.")
    parser.add_argument("destination", type=Path, help="An empty or new folder.")
    add_settings(parser, ["db", "artifacts", "log_level"])
    parser.set_defaults(handler=backup_command)

    parser = commands.add_parser("restore", help="Restore a backup into a fresh database and artifacts folder.")
    parser.add_argument("source", type=Path, help="A folder written by `benchtoward backup`.")
    add_settings(parser, ["db", "artifacts", "log_level"])
    parser.set_defaults(handler=restore_command)

    parser = commands.add_parser("model-card", help="Record a registered model's card (replaces the one it had).")
    parser.add_argument("model", help="Model slug or provider model id.")
    parser.add_argument("--weights", help="Where the weights are: a URL or a Hugging Face repo id (org/name).")
    parser.add_argument("--base-model", help="The model it was fine-tuned from.")
    parser.add_argument("--license", help="Licence of the weights, as its authors state it.")
    parser.add_argument("--paper", help="URL of the paper or technical report.")
    add_settings(parser, ["db", "log_level"])
    parser.set_defaults(handler=model_card_command)

"""`benchtoward catalog import` and `catalog export`: the benchmark catalog's files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from server.cli_support import add_settings, run_with_registry
from server.settings import Settings
from tools.catalog_files import export_catalog, export_text, import_catalog
from tools.registry import Registry


def catalog_import(args: argparse.Namespace, settings: Settings) -> int:
    imported = run_with_registry(settings, lambda registry: import_catalog(registry.store, args.path))
    for entry in imported:
        verb = "stored as revision" if entry.created else "unchanged, newest revision"
        print(f"{entry.id} {verb} {entry.revision}")
    return 0


def catalog_export(args: argparse.Namespace, settings: Settings) -> int:
    async def export(registry: Registry) -> list[Path] | str:
        if args.out is None:
            return export_text(registry.store, args.id, args.revision)
        return export_catalog(registry.store, args.out, args.id, args.revision)

    written = run_with_registry(settings, export)
    if isinstance(written, str):
        print(written)
    else:
        for path in written:
            print(f"wrote {path}")
    return 0


def add_catalog_commands(commands: Any) -> None:
    catalog_parser = commands.add_parser("catalog", help="Import and export benchmark catalog entries.")
    catalog_commands = catalog_parser.add_subparsers(dest="catalog_command", required=True)

    import_parser = catalog_commands.add_parser(
        "import", help="Import entries from a JSON file (an entry or an array of entries) or a directory of them."
    )
    import_parser.add_argument("path", type=Path, metavar="FILE_OR_DIR")
    add_settings(import_parser, ["db", "log_level"])
    import_parser.set_defaults(handler=catalog_import)

    export_parser = catalog_commands.add_parser("export", help="Write catalog entries as JSON (default: stdout).")
    export_parser.add_argument(
        "--out", type=Path, default=None, help="A directory (one <id>.json per entry) or a .json file."
    )
    export_parser.add_argument("--id", default=None, help="Only this entry.")
    export_parser.add_argument("--revision", type=int, default=None, help="With --id: this revision, not the newest.")
    add_settings(export_parser, ["db", "log_level"])
    export_parser.set_defaults(handler=catalog_export)

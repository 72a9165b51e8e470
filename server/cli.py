"""The `benchtoward` command. Settings are read here, once, from flags and the environment."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from pathlib import Path

import orjson

from server.cli_catalog import add_catalog_commands
from server.cli_eval import add_eval_commands
from server.cli_evidence import add_evidence_commands
from server.cli_ops import add_ops_commands
from server.cli_review import REVIEW_SETTINGS, add_review_commands
from server.cli_support import add_settings, run_with_registry, setup_logging
from server.settings import Settings, from_sources, setting_fields
from tools import export_files
from tools.bundles import export_result, import_result
from tools.errors import AppError

WORKER_HEALTHCHECK_SECONDS = 60
Handler = Callable[[argparse.Namespace, Settings], int]
SERVE_SETTINGS = [*REVIEW_SETTINGS, "forwarded_allow_ips", "limit_concurrency"]


def serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from server.http_limits import uvicorn_options

    for field in fields(Settings):  # the worker processes read the same settings from the environment
        value = getattr(settings, field.name)
        if value is not None:
            os.environ[field.metadata["env"]] = str(value)
    # httptools with limits on the request head and its time, connections capped, forwarded addresses believed
    # only from the proxies named by --forwarded-allow-ips (server/http_limits.py). A worker imports the whole app
    # before it can answer uvicorn's health ping: on a busy machine that takes over uvicorn's 5 s, and a worker
    # killed for it is started again, and killed again, without end.
    uvicorn.run(
        "server.asgi:create_app",
        factory=True,
        workers=args.workers,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
        **uvicorn_options(settings),
    )
    return 0


def stdio_database(args: argparse.Namespace, settings: Settings) -> Path | None:
    """The absolute database path stdio serves; None (after one line on stderr) when it must not be opened. An MCP
    client often starts the server from another folder: a relative or mistyped --db must not become a new, empty
    registry."""
    path = settings.db.expanduser().resolve()
    if path.is_file():
        return path
    if path.exists():
        print(f"benchtoward mcp: {path} is not a database file", file=sys.stderr)
    elif not args.create:
        print(f"benchtoward mcp: no database at {path} (give an existing --db, or add --create)", file=sys.stderr)
    elif not path.parent.is_dir():
        print(f"benchtoward mcp: cannot create {path}: no folder {path.parent}", file=sys.stderr)
    else:
        return path
    return None


def mcp_stdio(args: argparse.Namespace, settings: Settings) -> int:
    from server.cli_support import open_registry
    from server.mcp_tools import build_mcp
    from server.runtime import Runtime, load_secret

    path = stdio_database(args, settings)
    if path is None:
        return 2
    settings = replace(settings, db=path)

    async def main() -> None:
        runtime = Runtime(settings)
        registry = await open_registry(settings)
        runtime.start(registry, load_secret(settings.secret_file))
        links = settings.base_url if settings.public_url else f"{settings.base_url} (set --public-url)"
        print(f"benchtoward mcp: serving {path}; links use {links}", file=sys.stderr, flush=True)
        try:
            await build_mcp(runtime).run_stdio_async()
        finally:
            await registry.usage.flush(registry.store)
            await registry.store.close()

    asyncio.run(main())
    return 0


def import_bundle(args: argparse.Namespace, settings: Settings) -> int:
    stored = run_with_registry(settings, lambda registry: import_result(registry, args.directory))
    verb = "imported" if stored.created else "already stored (nothing changed)"
    print(f"{stored.run_id} {verb}")
    return 0


def export_bundle(args: argparse.Namespace, settings: Settings) -> int:
    if args.format == "bundle":
        directory = run_with_registry(settings, lambda registry: export_result(registry, args.run_id, args.directory))
        print(f"{args.run_id} exported to {directory}")
        return 0
    written = run_with_registry(
        settings, lambda registry: export_files.export_result(registry, args.run_id, args.directory, args.format)
    )
    for path in written:
        print(path)
    return 0


def print_server_json(args: argparse.Namespace, settings: Settings) -> int:
    from server.registry_entry import server_json

    print(orjson.dumps(server_json(settings.public_url), option=orjson.OPT_INDENT_2).decode())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchtoward", description="BenchToward: medical-AI results, computed once.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve_parser = commands.add_parser("serve", help="Serve /v1, MCP at /mcp and the website.")
    add_settings(serve_parser, ["db", "host", "port", "public_url", "artifacts", "data", "log_level", *SERVE_SETTINGS])
    serve_parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes.")
    serve_parser.set_defaults(handler=serve)

    mcp_parser = commands.add_parser("mcp", help="Serve the MCP tools over stdio.")
    add_settings(mcp_parser, ["db", "public_url", "artifacts", "log_level"])
    mcp_parser.add_argument("--create", action="store_true", help="Create the database if it does not exist.")
    mcp_parser.set_defaults(handler=mcp_stdio)

    import_parser = commands.add_parser(
        "import-result", help="Load a result bundle (result.json + predictions.parquet)."
    )
    import_parser.add_argument("directory", type=Path)
    add_settings(import_parser, ["db", "public_url", "artifacts", "log_level"])
    import_parser.set_defaults(handler=import_bundle)

    export_parser = commands.add_parser(
        "export-result",
        help="Write one stored result as a bundle, as Every Eval Ever files (eee) or as .eval_results YAML (hf).",
    )
    export_parser.add_argument("run_id")
    export_parser.add_argument("directory", type=Path)
    export_parser.add_argument(
        "--format",
        choices=["bundle", "eee", "hf"],
        default="bundle",
        help="bundle: result.json + predictions.parquet (import-result reads it); eee: Every Eval Ever 0.3.0 "
        "aggregate JSON and instance JSONL under data/; hf: Hugging Face .eval_results/<task>.yaml.",
    )
    add_settings(export_parser, ["db", "public_url", "artifacts", "log_level"])
    export_parser.set_defaults(handler=export_bundle)

    registry_parser = commands.add_parser(
        "server-json", help="Print the MCP registry's server.json (for --public-url, else with the host as a variable)."
    )
    add_settings(registry_parser, ["public_url", "log_level"])
    registry_parser.set_defaults(handler=print_server_json)

    add_eval_commands(commands)
    add_review_commands(commands)
    add_catalog_commands(commands)
    add_evidence_commands(commands)
    add_ops_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    flags = {name: getattr(args, name, None) for name, *_ in setting_fields()}
    try:
        settings = from_sources(flags)
    except ValueError as error:  # a setting from the environment that cannot be used
        parser.error(str(error))
    setup_logging(settings.log_level)
    try:
        return int(args.handler(args, settings))
    except AppError as error:
        print(orjson.dumps(error.json_body()).decode(), file=sys.stderr)
        return 2
    except OSError as error:  # a full disk, a read-only folder: say what, without a traceback
        print(f"benchtoward: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

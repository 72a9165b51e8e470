"""What every `benchtoward` command shares: settings flags, logging, a registry opened for one command."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from evaluator.predictions import remove_stale_temporaries
from server.logs import FORMAT, OneLineFormatter
from server.settings import BOOL_SETTINGS, INT_SETTINGS, LOG_LEVELS, Settings, setting_fields
from store import Store
from tools.endpoints import EndpointPolicy
from tools.registry import Registry
from tools.seed import sync_specs

T = TypeVar("T")


def add_settings(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    for name, flag, env, help_text in setting_fields():
        if name in BOOL_SETTINGS and name in names:
            parser.add_argument(
                flag, dest=name, action="store_const", const=True, default=None, help=f"{help_text} [env {env}]"
            )
        elif name in names:
            kind = int if name in INT_SETTINGS else Path if name in {"db", "artifacts", "data"} else str
            choices = LOG_LEVELS if name == "log_level" else None
            parser.add_argument(
                flag, dest=name, type=kind, default=None, choices=choices, help=f"{help_text} [env {env}]"
            )


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter(FORMAT))  # control characters escaped: one event, one line
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO), handlers=[handler])


async def open_registry(settings: Settings) -> Registry:
    store = await Store.open(settings.db)
    await sync_specs(store)
    clean_artifacts(settings.artifacts_dir)
    endpoints = EndpointPolicy.from_settings(settings.endpoint_key_envs, settings.endpoint_hosts)
    return Registry(
        store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir, endpoints=endpoints
    )


def clean_artifacts(artifacts: Path) -> None:
    """Remove what a killed writer left behind (a temporary file never renamed into place), and say so."""
    for path in remove_stale_temporaries(artifacts):
        logging.getLogger("benchtoward").warning("removed %s, left by a process that was killed while writing", path)


def run_with_registry(settings: Settings, work: Callable[[Registry], Awaitable[T]]) -> T:
    async def main() -> T:
        registry = await open_registry(settings)
        try:
            return await work(registry)
        finally:
            await registry.usage.flush(registry.store)
            await registry.store.close()

    return asyncio.run(main())

"""What every `benchtoward` command shares: settings flags, logging, a registry opened for one command."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from server.settings import BOOL_SETTINGS, INT_SETTINGS, Settings, setting_fields
from store import Store
from tools.registry import Registry
from tools.seed import sync_specs

T = TypeVar("T")


def add_settings(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    for name, flag, env, help_text in setting_fields():
        if name in BOOL_SETTINGS and name in names:
            parser.add_argument(flag, dest=name, action="store_const", const=True, default=None,
                                help=f"{help_text} [env {env}]")
        elif name in names:
            kind = int if name in INT_SETTINGS else Path if name in {"db", "artifacts", "data"} else str
            parser.add_argument(flag, dest=name, type=kind, default=None, help=f"{help_text} [env {env}]")


def setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


async def open_registry(settings: Settings) -> Registry:
    store = await Store.open(settings.db)
    await sync_specs(store)
    return Registry(store=store, public_url=settings.base_url, artifacts_dir=settings.artifacts_dir)


def run_with_registry(settings: Settings, work: Callable[[Registry], Awaitable[T]]) -> T:
    async def main() -> T:
        registry = await open_registry(settings)
        try:
            return await work(registry)
        finally:
            await registry.usage.flush(registry.store)
            await registry.store.close()

    return asyncio.run(main())

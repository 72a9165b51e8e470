"""What the presenters share once the app has started: the registry and the visitor secret."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from starlette.requests import HTTPConnection

from server.settings import Settings
from tools.registry import Registry
from tools.usage import Visitor, visitor_for

SECRET_BYTES = 32


def load_secret(path: Path) -> bytes:
    """The visitor-hash secret: generated once, kept beside the database, readable only by the service."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker process made it first
        return path.read_bytes()
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(secrets.token_bytes(SECRET_BYTES))
    return path.read_bytes()


class Runtime:
    """Filled in by the app's lifespan; the route adapters and MCP tools read it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._registry: Registry | None = None
        self._secret = b""

    def start(self, registry: Registry, secret: bytes) -> None:
        self._registry = registry
        self._secret = secret

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            raise RuntimeError("the app has not started: run it with its lifespan")
        return self._registry

    def visitor(self, connection: HTTPConnection) -> Visitor:
        """The daily visitor hash of the caller; the address is used here and nowhere else."""
        address = connection.client.host if connection.client else None
        return visitor_for(self._secret, address, connection.headers.get("user-agent"))

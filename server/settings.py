"""Settings: one frozen dataclass, read from flags and the environment once, in the CLI entry.

Each field carries its help text, its environment variable and its command-line flag; `tests/test_docs.py`
checks that every one of them is documented in README.md and llms.txt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any


def setting(default: Any, help: str, env: str, flag: str) -> Any:
    return field(default=default, metadata={"help": help, "env": env, "flag": flag})


@dataclass(frozen=True)
class Settings:
    db: Path = setting(Path("benchtoward.db"), "SQLite database file.", "BENCHTOWARD_DB", "--db")
    host: str = setting("127.0.0.1", "Address to listen on.", "BENCHTOWARD_HOST", "--host")
    port: int = setting(8000, "Port to listen on.", "BENCHTOWARD_PORT", "--port")
    public_url: str | None = setting(
        None,
        "Public base URL used in links and BibTeX, and the Host allowed by MCP's DNS-rebinding protection "
        "(default http://HOST:PORT).",
        "BENCHTOWARD_PUBLIC_URL",
        "--public-url",
    )
    artifacts: Path | None = setting(
        None,
        "Folder of predictions files (default: <db name>-artifacts beside the database).",
        "BENCHTOWARD_ARTIFACTS",
        "--artifacts",
    )
    data: Path | None = setting(
        None, "Folder of local task data (ClinicalQA files, VitalDB cases).", "BENCHTOWARD_DATA", "--data"
    )
    forwarded_allow_ips: str | None = setting(
        None,
        "Comma-separated addresses of the reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed "
        "(e.g. 127.0.0.1 for nginx on the same machine); default none: the connecting address is the visitor.",
        "BENCHTOWARD_FORWARDED_ALLOW_IPS",
        "--forwarded-allow-ips",
    )
    log_level: str = setting("info", "Log level: debug, info, warning, error.", "BENCHTOWARD_LOG_LEVEL", "--log-level")
    review_workers: int = setting(
        1,
        "Evaluation jobs the server runs at once for approved runs (0: none; run `benchtoward worker` instead).",
        "BENCHTOWARD_REVIEW_WORKERS",
        "--review-workers",
    )
    offline: bool = setting(
        False, "Never fetch a paper from a URL (upload the file instead).", "BENCHTOWARD_OFFLINE", "--offline"
    )
    paper_llm_endpoint: str | None = setting(
        None,
        "OpenAI-compatible base URL of the LLM that reads papers (default: the offline rule-based reader).",
        "BENCHTOWARD_PAPER_LLM_ENDPOINT",
        "--paper-llm-endpoint",
    )
    paper_llm_model: str | None = setting(
        None, "Model id the paper-reading LLM endpoint expects.", "BENCHTOWARD_PAPER_LLM_MODEL", "--paper-llm-model"
    )
    paper_llm_key_env: str | None = setting(
        None,
        "Name of the environment variable holding the paper-reading LLM's API key (never the key itself).",
        "BENCHTOWARD_PAPER_LLM_KEY_ENV",
        "--paper-llm-key-env",
    )

    @property
    def base_url(self) -> str:
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def artifacts_dir(self) -> Path:
        return self.artifacts or self.db.parent / f"{self.db.stem}-artifacts"

    @property
    def data_cache(self) -> Path:
        """Where generated demo data goes when BENCHTOWARD_DATA is not set: beside the database."""
        return self.db.parent / f"{self.db.stem}-data"

    @property
    def secret_file(self) -> Path:
        """The visitor-hash secret, generated once and kept beside the database (mode 0600)."""
        return self.db.parent / f"{self.db.stem}-secret"


def setting_fields() -> list[tuple[str, str, str, str]]:
    """(name, flag, env, help) of every setting."""
    return [(f.name, f.metadata["flag"], f.metadata["env"], f.metadata["help"]) for f in fields(Settings)]


INT_SETTINGS = {"port", "review_workers"}
# uvicorn also knows "trace", which logs every client's address: not offered (addresses are never logged).
LOG_LEVELS = ("debug", "info", "warning", "error")
BOOL_SETTINGS = {"offline"}


def convert(name: str, value: str) -> Any:
    if name in INT_SETTINGS:
        return int(value)
    if name in BOOL_SETTINGS:
        return value.strip().lower() in {"1", "true", "yes", "on"}
    if name in {"db", "artifacts", "data"}:
        return Path(value)
    return value


def from_sources(flags: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Settings:
    """Flags win over environment variables, which win over defaults."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for f in fields(Settings):
        if flags.get(f.name) is not None:
            values[f.name] = flags[f.name]
        elif environ.get(f.metadata["env"]):
            values[f.name] = convert(f.name, environ[f.metadata["env"]])
    settings = replace(Settings(), **values)
    if settings.log_level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {settings.log_level!r}")
    return settings

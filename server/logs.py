"""Log lines that say what happened and nothing more: one event, one line.

Anything a client sends can reach a log (a path is percent-decoded before the app sees it, so `%0a` is a real
line break and `%00` a NUL). Written raw, a CR or LF would forge a line that looks like the server's own, and a
NUL makes tools treat the log as binary. `printable` escapes every control character (C0, DEL, C1 and the
Unicode line and paragraph separators) and the backslash, so an escaped path in the access log is never
ambiguous; the formatter escapes the control characters of every message, whatever logged it.
"""

from __future__ import annotations

import logging
import re
from typing import Any

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
CONTROL_OR_BACKSLASH = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def escape(match: re.Match[str]) -> str:
    char = match.group()
    return "\\\\" if char == "\\" else f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def printable(text: str) -> str:
    """`text` with control characters escaped (`\\x0a`, `\\x00`, `\\u2028`) and backslashes doubled."""
    return CONTROL_OR_BACKSLASH.sub(escape, text)


class OneLineFormatter(logging.Formatter):
    """Escapes control characters in the message; a traceback, added after it, keeps its own lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = CONTROL.sub(escape, record.message)
        return super().formatMessage(record)


def log_config(level: str) -> dict[str, Any]:
    """The logging configuration uvicorn applies in its process and in each worker process (`--workers N`
    included, where the CLI's own set-up does not reach): every logger writes through `OneLineFormatter`."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"one_line": {"()": "server.logs.OneLineFormatter", "fmt": FORMAT}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "one_line", "stream": "ext://sys.stderr"}
        },
        "root": {"handlers": ["stderr"], "level": level.upper()},
    }

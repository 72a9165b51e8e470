"""Error pages in plain words: what went wrong for the visitor and the way forward. The API's code and message
(what /v1 answers) stay available to the curious behind a "Technical detail" element."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

# code → (heading, sentence); the sentence may name the page's path as {path}.
WORDING: dict[str, tuple[str, str]] = {
    "not_found": ("Page not found", "There is no page at {path}. The address may be mistyped or out of date."),
    "task_not_found": ("No such task", "There is no task at this address."),
    "run_not_found": (
        "No such result",
        "There is no result with this id. Result ids are kept for good, even when a result is withdrawn, so the "
        "address is probably mistyped.",
    ),
    "model_not_found": ("No such model", "No model with this name has been registered here."),
    "benchmark_not_found": ("No such benchmark in the catalog", "The catalog has no entry at this address."),
    "dataset_not_found": ("No such dataset", "There is no dataset at this address."),
    "bad_request": (
        "This address has a value the page cannot read",
        "One of the values after the “?” in the address is not one this page understands. Start again from the "
        "page's own search and filters.",
    ),
    "method_not_allowed": ("This page cannot be used that way", "This address only shows a page."),
    "rate_limited": ("Too many requests", "Please wait a minute, then load the page again."),
    "payload_too_large": ("Too much was sent", "What was sent is larger than this page accepts."),
    "unauthorized": ("Sign-in needed", "This page is for BenchToward's maintainers."),
    "forbidden": ("Not allowed", "This page is for BenchToward's maintainers."),
    "internal": ("Something went wrong on our side", "The error has been logged. Please try again later."),
}
BY_STATUS = {404: "not_found", 400: "bad_request", 405: "method_not_allowed", 429: "rate_limited"}


@dataclass(frozen=True)
class Wording:
    heading: str
    sentence: str


def wording(status: int, code: str, path: str) -> Wording:
    heading, sentence = WORDING.get(code) or WORDING.get(BY_STATUS.get(status, "internal"), WORDING["internal"])
    return Wording(heading, sentence.format(path=path[:200]))


def nearest(wanted: str, names: list[str], count: int = 3) -> list[str]:
    """The names closest to a mistyped one (difflib's ratio), best first; substrings count as close too."""
    lowered = wanted.casefold()
    close = difflib.get_close_matches(lowered, [n.casefold() for n in names], n=count, cutoff=0.5)
    containing = [n.casefold() for n in names if lowered and (lowered in n.casefold() or n.casefold() in lowered)]
    picked = list(dict.fromkeys([*close, *containing]))[:count]
    by_fold = {n.casefold(): n for n in names}
    return [by_fold[name] for name in picked]

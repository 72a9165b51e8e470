"""Values written on a benchmark's name: "MedQA (89.8% vs 74.9%)", "MedQA: 64.4%", "64.4% on MedQA"
(medgemma_27b_text_featherless_unsloth_summary.md), and the benchmark a value belongs to."""

from __future__ import annotations

import re

from evaluator.papers.measures import benchmarks_in

# a percentage written on a benchmark: "MedQA (89.8% vs 74.9%)", "MedQA: 64.4%", "64.4% on MedQA"
# (medgemma_27b_text_featherless_unsloth_summary.md)
_ON_BENCHMARK_AFTER = re.compile(
    r"(?: [A-Z][\w-]{0,15})? ?[(:]? ?(\d{1,3}(?:\.\d{1,2})?) ?%(?: ?(?:vs\.?|versus) ?(\d{1,3}(?:\.\d{1,2})?) ?%)?"
)
_ON_BENCHMARK_BEFORE = re.compile(r"(\d{1,3}(?:\.\d{1,2})?) ?% (?:(?:on|in) )?(?:the )?$")  # "64.4% MedQA"


def bound_to_benchmark(sentence: str) -> set[int]:
    """Where the percentages written right on a benchmark's name start, in a sentence that names no metric."""
    starts: set[int] = set()
    for position, name in benchmarks_in(sentence):
        after = _ON_BENCHMARK_AFTER.match(sentence, position + len(name))
        if after:
            starts.update(after.start(k) for k in (1, 2) if after.group(k))
        before = _ON_BENCHMARK_BEFORE.search(sentence[max(0, position - 24) : position])
        if before:
            starts.add(max(0, position - 24) + before.start(1))
    return starts


_ON_BENCHMARK = re.compile(r"(?: [A-Z][\w-]{0,15})? ?[(:]? ?(?:\d{1,3}(?:\.\d{1,2})? ?%? ?(?:vs\.?|versus) ?)?")


def nearest_benchmark(found: list[tuple[int, str]], start: int, text: str) -> str | None:
    """The benchmark a value is written on ("MedQA (89.8%", "MedQA: 89.8%"), else the next one named after the value
    ("89.8% on MedQA"), else the last one before it."""
    on = [n for p, n in found if p < start and _ON_BENCHMARK.fullmatch(text[p + len(n) : start])]
    if on:
        return on[-1]
    after = [name for position, name in found if position >= start]
    before = [name for position, name in found if position < start]
    return after[0] if after else (before[-1] if before else None)

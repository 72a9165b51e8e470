"""Hostile text for the rule-based reader: arbitrary text never raises, and 1 MB adversarial strings (runs
that make backtracking regexes quadratic) finish in bounded time."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.papers import PaperError, PaperRecord, RuleExtractor, load_document

MEGABYTE = 1_000_000
MAX_CPU_SECONDS_PER_MEGABYTE = 10.0  # measured 1-3 s of CPU on a loaded 2-core machine; quadratic is minutes

# pieces the reader reacts to, so that generated texts reach tables, front matter, claims and identifiers
FRAGMENTS = [
    "|",
    "|---|",
    "\n",
    " ",
    ".",
    ",",
    "%",
    "**",
    "`",
    "---\n",
    "license: mit\n",
    "base_model:\n- a/b\n",
    "accuracy",
    "AUROC",
    " of ",
    "0.94",
    "76.78%",
    "96.4",
    "1e9",
    "5-shot",
    "zero-shot",
    "CoT",
    "ClinicalQA",
    "KorMedMCQA",
    "KMLE",
    "VitalDB",
    "intraoperative hypotension",
    "MAP",
    "< 65 mmHg",
    "≤",
    "for at least 60 s",
    "5-minute horizon",
    "patient-level cross-validation",
    "https://huggingface.co/",
    "datasets/",
    "org/name",
    "arXiv:2403.01469v3",
    "10.1000/x(1)",
    "Model Name: ",
    "KMed.ai, a large language model",
    "(ours)",
    "Doctor",
    "Nurse",
    "scoring an average of ",
    "We present X, the first benchmark",
    "contains 7,469 questions",
    "```csv\n",
    "```\n",
    "<!--",
    "-->",
    "developed by ",
    " have partnered to develop",
    "licensed under the Apache License 2.0",
    "GPT-4o",
    "\u2018",
    "\u2019",
    "\u00a0",
    "\ufeff",
    "\x00",
]


def extract(text: str) -> PaperRecord:
    return asyncio.run(RuleExtractor().extract(text, source="fuzz"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=3000))
def test_arbitrary_text_never_raises(text: str) -> None:
    record = extract(text)
    PaperRecord.model_validate_json(record.model_dump_json())  # and the record round-trips


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=120).map("".join))
def test_text_built_from_the_readers_own_vocabulary_never_raises(text: str) -> None:
    record = extract(text)
    for claim in record.claims:
        assert claim.mapping.reason
        assert claim.value is None or claim.raw_value is not None  # a value always comes from written text


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_load_or_fail_with_a_paper_error(data: bytes) -> None:
    for name in ("x.pdf", "x.html", "x.csv", "x.md", "x"):
        with contextlib.suppress(PaperError):  # any other exception fails the test
            load_document(data, name=name)


ADVERSARIAL = {
    "newlines": "\n" * MEGABYTE,
    "percent-signs": "%" * MEGABYTE,
    "unclosed-csv-fence": "```csv\n" + "a,b\n" * (MEGABYTE // 4),
    "unclosed-front-matter-list": "---\nbase_model:\n" + "- x/y\n" * (MEGABYTE // 6),
    "map-without-threshold": "intraoperative hypotension " + "MAP " * (MEGABYTE // 4),
    "metric-without-number": "accuracy of " * (MEGABYTE // 12),
    "claims-in-every-sentence": "Model Name: `a/b`\n" + "It reached 70% accuracy on ClinicalQA. " * (MEGABYTE // 40),
    "comment-openers": "<!--" * (MEGABYTE // 4),
    "one-wide-table": ("|" + "|".join(["0.5"] * 5000) + "|\n") * 50,
    # the layouts of pages copied without their line breaks or separators (evaluator/papers/segment.py)
    "glued-csv-on-one-line": 'a,b,c "1","GPT-4","0.5" ' + '"1","GPT-4","97.6 (96.3, 98.5)" ' * (MEGABYTE // 36),
    "inline-delimiters": "Results | a | b | |---|---| | x | 1.0 | " * (MEGABYTE // 40),
    "glued-leaderboard-rows": "Med-PaLM (((((2)85.4Towards Expert\n" * (MEGABYTE // 36),
    "cells-over-lines": "| a | b |\n|---|---|\n" + "|\nGPT-4\n" * (MEGABYTE // 8),
    "headings-on-one-line": "x ## A - k: v" * (MEGABYTE // 13),
    "harness-results-objects": '{"results": {"t": {"acc": 0.5}}} ' * (MEGABYTE // 34),
    "unclosed-harness-results": '{"results": {"t": [' * (MEGABYTE // 19),
    # a script's printed results and a copied diff view (run_logs.py, segment.py's gutter)
    "printed-metric-lines": "[DONE] MLP model test results:\n"
    + "- LR (test): AUROC ≈ 0.8, AUPRC: 0.5\n" * (MEGABYTE // 37),
    "diff-gutter-lines": "12 |\n|\n| a | 0.5 |\n" * (MEGABYTE // 18),
    # a journal table page copied one cell per line (lined.py)
    "cells-one-per-line": "Model\nAUROC\nAUPRC\n" + "XGBoost\n0.5 (0.4, 0.6)\n0.6\nGroup\n" * (MEGABYTE // 37),
    # a card's model-index and its page's self-reported results (model_index.py), and a results file's path
    # broken over lines before each of many objects (results_json.py)
    "model-index-metrics": "model-index:\n- name: M-7B\n  results:\n"
    + "  - task:\n    dataset:\n      name: D\n    metrics:\n    - type: acc\n      value: 50.5\n" * (MEGABYTE // 70),
    "self-reported-lines": "Dataset used to train a/b\n"
    + "- ROUGE-1 on X test set self-reported39.409\n" * (MEGABYTE // 44),
    "results-paths-and-bars": 'org\n/Model-1\n/results_1.json\n{ | |\n"results": { | |\n' * (MEGABYTE // 50),
    # many models named in full and by their first word (subjects.short_names)
    "full-and-short-names": "".join(
        f"Med{a}{b}{c}Net Pro reached 50% accuracy; Med{a}{b}{c}Net 51%. "
        for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        for b in "abcdefghijklmnopqrstuvwxyz"
        for c in "abcdefghijklmnopqrstuvwxyz"
    ),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_a_one_megabyte_adversarial_string_finishes_quickly(name: str) -> None:
    text = ADVERSARIAL[name]
    started = time.process_time()
    record = RuleExtractor().extract_now(text, source=name)
    elapsed = time.process_time() - started
    assert elapsed < MAX_CPU_SECONDS_PER_MEGABYTE * len(text) / MEGABYTE, f"{name}: {elapsed:.1f} s"
    assert len(record.claims) <= 1000

"""`make reader-eval-llm`: the LLM paper reader scored on the real-text corpus through a real engine, beside the
rule reader on the same files, in one run.

Starts llama.cpp's OpenAI-compatible server (`make engine`: llama-cpp-python with SmolLM2-135M-Instruct, Q4_1, from
`.cache/llama`) on a free loopback port, reads the first N files of a split with `LLMExtractor` (JSON asked for
through `response_format` with the record's JSON schema) and with `RuleExtractor`, scores both with
`bench/reader_eval.py`'s scorer and prints their totals side by side with issue 13's targets. SmolLM2-135M is a tiny
model on two CPU cores: the text it is sent is cut (`--max-text-chars`) and its answer bounded (`--max-tokens`), so
this measures the LLM path end to end, not what a capable model would read. Another engine:
`bench/reader_eval.py --llm-endpoint URL --llm-model M`.

    .venv/bin/python bench/reader_llm_engine.py [--split test] [--limit 50] [--max-text-chars 6000] [--max-tokens 1024]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from reader_eval import TARGETS, score_corpus  # (it puts the repository on sys.path)

from evaluator.papers import LLMConfig, LLMExtractor, RuleExtractor
from evaluator.papers.scoring import FileScore, Totals, totals
from tests.llama_engine import MODEL_ID, Engine, engine_for


def row(name: str, t: Totals, seconds: float) -> str:
    precision = f"{t.claim_precision:10.1%}" if t.predicted else f"{'-':>10}"  # nothing read: no precision to speak of
    return (
        f"{name:38} {t.claim_recall:8.1%} {precision} {t.model_recall:8.1%} {t.mapping_errors:5d}"
        f" {t.matched:4d}/{t.gold_claims:<4d} {t.predicted:5d} {seconds / max(t.files, 1):9.1f}"
    )


def per_file(rules: list[FileScore], llm: list[FileScore]) -> None:
    print(f"{'file':52} {'gold':>4} {'rules hit/read':>14} {'llm hit/read':>12} {'models r/l':>10}")
    for r, m in zip(rules, llm, strict=True):
        models = f"{r.models_found}/{m.models_found} of {r.gold_models}"
        hits = f"{r.matched:6}/{r.predicted:<7} {m.matched:5}/{m.predicted:<6}"
        print(f"{r.file[:52]:52} {r.gold_claims:4} {hits} {models:>10}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--limit", type=int, default=50, help="the first N files of the split")
    parser.add_argument("--max-text-chars", type=int, default=6000, help="text sent to the LLM, cut to this")
    parser.add_argument("--max-tokens", type=int, default=1024, help="answer length the LLM may use")
    parser.add_argument("--n-ctx", type=int, default=8192, help="the engine's context (SmolLM2: up to 8192)")
    parser.add_argument("--totals-only", action="store_true", help="print no line per file (held-out texts)")
    args = parser.parse_args()
    engine_for_run = engine_for("reader-eval-llm")
    if engine_for_run is None:
        return 1
    found, log = engine_for_run
    started = time.perf_counter()
    rules = asyncio.run(score_corpus(RuleExtractor(), args.split, limit=args.limit))
    rule_seconds = time.perf_counter() - started
    with Engine(found, log, n_ctx=args.n_ctx) as engine:
        config = LLMConfig(
            base_url=engine.url, model=MODEL_ID, max_tokens=args.max_tokens, max_text_chars=args.max_text_chars
        )
        started = time.perf_counter()
        llm = asyncio.run(score_corpus(LLMExtractor(config), args.split, limit=args.limit))
        llm_seconds = time.perf_counter() - started
    if not args.totals_only:
        per_file(rules, llm)
    print(f"\n{args.split}: the first {len(rules)} files, {sum(s.gold_claims for s in rules)} gold claims")
    header = f"{'reader':38} {'recall':>8} {'precision':>10} {'models':>8} {'map':>5} {'hit/gold':>9} {'read':>5}"
    print(f"{header} {'s/text':>9}")
    print(row("rules", totals(rules), rule_seconds))
    print(row(f"llm: {MODEL_ID} (llama.cpp)", totals(llm), llm_seconds))
    target = TARGETS
    print(
        f"{'targets':38} {target['claim_recall']:8.0%} {target['claim_precision']:10.0%} {target['model_recall']:8.0%}"
        f" {target['mapping_errors']:5d}"
    )
    print(
        f"(LLM: text cut to {args.max_text_chars} characters, answers to {args.max_tokens} tokens, n_ctx {args.n_ctx})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

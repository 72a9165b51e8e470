"""Score a paper reader on the real-text corpus (tests/data/reader_corpus) and print the figures beside the
targets of issue 13: per file and overall claim precision and recall, model recall and mapping errors.

    .venv/bin/python bench/reader_eval.py --split test
    .venv/bin/python bench/reader_eval.py --split dev --show kmle_three_llms_abstract.md
    .venv/bin/python bench/reader_eval.py --split test --totals-only \
        --group tests/data/reader_corpus/fresh_test_8.json    # held-out texts: totals only, no line per file
    .venv/bin/python bench/reader_eval.py --llm-endpoint http://127.0.0.1:8080/v1 --llm-model qwen
    .venv/bin/python bench/reader_eval.py --llm-endpoint URL --split test --limit 6 --llm-max-tokens 512 \
        --llm-max-text-chars 6000     # a small model on a CPU: a bounded run within its context

The rule reader is the default; `--llm-endpoint` scores the LLM reader (an OpenAI-compatible server with
structured output) with the same scorer. See evaluator/papers/scoring.py for how claims are matched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.papers import Extractor, LLMConfig, LLMExtractor, PaperError, RuleExtractor, read_paper  # noqa: E402
from evaluator.papers.scoring import FileScore, in_split, load_gold, score_file, totals  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "reader_corpus"
TARGETS = {"claim_recall": 0.80, "claim_precision": 0.95, "model_recall": 0.90, "mapping_errors": 0}


async def score_corpus(
    extractor: Extractor, split: str, corpus: Path = CORPUS, limit: int | None = None
) -> list[FileScore]:
    """Read every file of `split` (the first `limit`) with `extractor` and score it; a file the reader fails on
    scores zero."""
    scores = []
    for gold in in_split(load_gold(corpus), split)[:limit]:  # type: ignore[arg-type]
        try:
            record = await read_paper(corpus / gold.file, extractor=extractor)
        except PaperError as exc:
            print(f"{gold.file}: {exc.code}: {exc}", file=sys.stderr)
            scores.append(FileScore(gold.file, gold.split, gold_claims=len(gold.claims), gold_models=len(gold.models)))
            continue
        scores.append(score_file(record, gold))
    return scores


def report(scores: list[FileScore], split: str, show: str | None, totals_only: bool = False) -> None:
    if not totals_only:
        report_files(scores, show)
    for part in ["dev", "test"] if split == "all" else [split]:
        report_totals(part, in_split(scores, part))


def report_files(scores: list[FileScore], show: str | None) -> None:
    print(f"{'file':52} {'split':5} {'gold':>4} {'pred':>4} {'hit':>4} {'P':>6} {'R':>6} {'models':>7} {'map':>3}")
    for s in scores:
        precision = f"{s.matched / s.predicted:.2f}" if s.predicted else "-"
        recall = f"{s.matched / s.gold_claims:.2f}" if s.gold_claims else "-"
        models = f"{s.models_found}/{s.gold_models}"
        print(
            f"{s.file[:52]:52} {s.split:5} {s.gold_claims:4} {s.predicted:4} {s.matched:4} {precision:>6} {recall:>6} "
            f"{models:>7} {s.mapping_errors:3}"
        )
        if show and show in s.file:
            for claim in s.missed:
                print(
                    "    missed:", json.dumps({k: claim[k] for k in ("model", "metric", "value")}, ensure_ascii=False)
                )
            for extra in s.extra:
                print("    extra: ", extra)
            for name in s.models_missed:
                print("    model missed:", name)


def report_totals(name: str, scores: list[FileScore]) -> None:
    t = totals(scores)
    print(f"\n{name}: {t.files} files, {t.gold_claims} gold claims, {t.predicted} read with a value, {t.matched} right")
    print(f"  claim recall     {t.claim_recall:6.1%}   target >= {TARGETS['claim_recall']:.0%}")
    print(f"  claim precision  {t.claim_precision:6.1%}   target >= {TARGETS['claim_precision']:.0%}")
    print(f"  model recall     {t.model_recall:6.1%}   target >= {TARGETS['model_recall']:.0%}")
    print(f"  mapping errors   {t.mapping_errors:6d}   target {TARGETS['mapping_errors']}")


def report_groups(scores: list[FileScore], groups: list[Path]) -> int:
    """Totals over the files each group lists (a JSON file with a "files" list, e.g. one fresh split); 2 when a
    group cannot be read."""
    for path in groups:
        try:
            listed = set(json.loads(path.read_text(encoding="utf-8"))["files"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"error: group {path}: {exc}", file=sys.stderr)
            return 2
        report_totals(path.name, [s for s in scores if s.file in listed])
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--llm-endpoint", help="OpenAI-compatible base URL; scores the LLM reader")
    parser.add_argument("--llm-model", default="default", help="model name sent to the endpoint")
    parser.add_argument("--llm-key-env", help="environment variable holding the endpoint's API key")
    parser.add_argument("--show", help="print missed and extra claims of files whose name contains this")
    parser.add_argument("--totals-only", action="store_true", help="print no line per file (held-out texts)")
    parser.add_argument("--group", type=Path, action="append", default=[], help="also total the files this JSON lists")
    parser.add_argument("--limit", type=int, help="score only the first N files of the split (a slow LLM)")
    parser.add_argument("--llm-max-tokens", type=int, default=8192, help="answer length the LLM may use")
    parser.add_argument("--llm-max-text-chars", type=int, default=60_000, help="text sent to the LLM, cut to this")
    args = parser.parse_args(argv)
    extractor: Extractor = RuleExtractor()
    if args.llm_endpoint:
        try:
            config = LLMConfig(
                base_url=args.llm_endpoint,
                model=args.llm_model,
                api_key_env=args.llm_key_env,
                max_tokens=args.llm_max_tokens,
                max_text_chars=args.llm_max_text_chars,
            )
            extractor = LLMExtractor(config)
        except PaperError as exc:
            print(f"error: {exc.code}: {exc}", file=sys.stderr)
            return 2
    scores = asyncio.run(score_corpus(extractor, args.split, limit=args.limit))
    report(scores, args.split, args.show, args.totals_only)
    return report_groups(scores, args.group)


if __name__ == "__main__":
    raise SystemExit(main())

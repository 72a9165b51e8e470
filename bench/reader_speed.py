"""How fast the rule paper reader reads, beside its references, in one run:

- the real-text corpus (tests/data/reader_corpus): CPU seconds per file;
- each one-megabyte adversarial text of tests/test_evaluator_papers_fuzz.py: CPU seconds beside the test's budget
  (10 s per megabyte; a quadratic rule takes minutes);
- finding benchmark names in one megabyte: the trie-shaped pattern the reader uses beside the plain alternation of
  the same names (the reference it replaced), with the matches compared.

    .venv/bin/python bench/reader_speed.py [--only NAME]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator.papers import RuleExtractor
from evaluator.papers.measures import benchmark_names, benchmark_pattern
from tests.test_evaluator_papers_fuzz import ADVERSARIAL, MAX_CPU_SECONDS_PER_MEGABYTE, MEGABYTE

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "reader_corpus"


def cpu(function: Callable[..., object], *args: object) -> float:
    started = time.process_time()
    function(*args)
    return time.process_time() - started


def corpus() -> None:
    reader = RuleExtractor()
    files = sorted(p for p in CORPUS.glob("*.md") if p.name != "PROVENANCE.md")
    texts = [(p.read_text(encoding="utf-8"), p.name) for p in files]
    total = sum(cpu(partial(reader.extract_now, source=name), text) for text, name in texts)
    print(f"corpus: {len(files)} files read in {total:.2f} s of CPU, {1000 * total / len(files):.1f} ms per file")


def adversarial(only: str | None) -> None:
    reader = RuleExtractor()
    print(f"{'adversarial text (1 MB)':32} {'CPU s':>7} {'budget':>7}")
    for name, text in sorted(ADVERSARIAL.items()):
        if only and only not in name:
            continue
        seconds = cpu(partial(reader.extract_now, source=name), text)
        budget = MAX_CPU_SECONDS_PER_MEGABYTE * len(text) / MEGABYTE
        print(f"{name:32} {seconds:7.2f} {budget:7.1f}{'  OVER' if seconds > budget else ''}")


def benchmark_scan() -> None:
    text = ('{"results": {"t": {"acc": 0.5}}} ' * (MEGABYTE // 34)) + " MedQA, KorMedMCQA and PubMedQA (PQA-L)"
    plain = "|".join(re.escape(n) for n in sorted(benchmark_names(), key=len, reverse=True))
    reference = re.compile(r"(?<![\w-])(" + plain + r")(?![\w-]*\w)", re.I)
    found: dict[str, list[tuple[int, str]]] = {}

    def scan(pattern: re.Pattern[str], label: str) -> None:
        found[label] = [(m.start(), m.group(1)) for m in pattern.finditer(text)]

    trie = cpu(scan, benchmark_pattern(), "trie")
    alternation = cpu(scan, reference, "alternation")
    same = "same matches" if found["trie"] == found["alternation"] else "MATCHES DIFFER"
    print(f"benchmark names in 1 MB: trie {trie:.2f} s, plain alternation (reference) {alternation:.2f} s; {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="only the adversarial texts whose name holds this")
    args = parser.parse_args()
    corpus()
    benchmark_scan()
    adversarial(args.only)


if __name__ == "__main__":
    main()

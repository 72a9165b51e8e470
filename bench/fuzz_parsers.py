"""The long run of the fuzz targets that CI runs bounded: the ClinicalQA answer parser and the paper reader (rule
extractor and document loader) on arbitrary text and bytes, with the same strategies and the same checks as
tests/test_evaluator_clinicalqa_parser.py and tests/test_evaluator_papers_fuzz.py, many more examples.

    .venv/bin/python bench/fuzz_parsers.py [--examples 20000] [--seed N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import test_evaluator_clinicalqa_parser as parser_tests
from tests import test_evaluator_papers_fuzz as paper_tests

LETTERS = parser_tests.LETTERS


def targets() -> list[tuple[str, Callable[..., None]]]:
    """(name, a @given function without settings) whose body is the CI test's own."""

    @given(text=parser_tests.TEXTS, options=st.lists(st.text(max_size=8), min_size=0, max_size=5))
    def parser_any_text(text: str, options: list[str]) -> None:
        parser_tests.test_fuzz_no_exception_and_the_result_is_none_or_one_letter.hypothesis.inner_test(text, options)

    @given(text=st.text(alphabet=st.characters(exclude_characters="<")), letter=st.sampled_from(LETTERS))
    def parser_final_line(text: str, letter: str) -> None:
        parser_tests.test_fuzz_a_final_jeongdap_line_always_decides.hypothesis.inner_test(text, letter)

    @given(st.text(max_size=3000))
    def papers_any_text(text: str) -> None:
        paper_tests.test_arbitrary_text_never_raises.hypothesis.inner_test(text)

    @given(st.lists(st.one_of(st.sampled_from(paper_tests.FRAGMENTS), st.text(max_size=8)), max_size=120).map("".join))
    def papers_vocabulary(text: str) -> None:
        paper_tests.test_text_built_from_the_readers_own_vocabulary_never_raises.hypothesis.inner_test(text)

    @given(st.binary(max_size=2000))
    def papers_any_bytes(data: bytes) -> None:
        paper_tests.test_arbitrary_bytes_load_or_fail_with_a_paper_error.hypothesis.inner_test(data)

    return [
        ("parser: any text", parser_any_text),
        ("parser: final line decides", parser_final_line),
        ("papers: any text", papers_any_text),
        ("papers: own vocabulary", papers_vocabulary),
        ("papers: any bytes", papers_any_bytes),
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=20_000, help="Examples per target.")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    for name, target in targets():
        run = settings(
            max_examples=args.examples, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )(target)
        if args.seed is not None:
            run = seed(args.seed)(run)
        started = time.perf_counter()
        run()
        print(f"{name:<28} {args.examples} examples, no failure, {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The `mcq-letter` v1 parser: each form, precedence, reasoning blocks, lookalikes, and a fuzz target."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.clinicalqa import PARSER_ID, PARSER_VERSION, RULE_IDS, parse_answer
from evaluator.clinicalqa.parser import LETTERS, match_option_text, strip_reasoning
from evaluator.specs import load_task_files

OPTIONS = ("당뇨병", "약물 부작용", "원발성 담즙성 담관염", "만성 신부전", "건조피부증(노인성 소양증)")
SPECS = {task_file.spec.task: task_file.spec for task_file in load_task_files()}


@pytest.mark.parametrize(
    ("text", "letter", "rule"),
    [
        ("정답: C", "C", "ko-jeongdap"),
        ("정답은 C입니다.", "C", "ko-jeongdap"),
        ("따라서 정답은 (C) 원발성 담즙성 담관염입니다.", "C", "ko-jeongdap"),
        ("**정답**: **D**", "D", "ko-jeongdap"),
        ("정답:\nB", "B", "ko-jeongdap"),
        ("답: (C)", "C", "ko-dap"),
        ("제 답은 E", "E", "ko-dap"),
        ("The answer is C", "C", "en-answer-is"),
        ("I think the correct answer is: (B).", "B", "en-answer-is"),
        ("The answer is option D", "D", "en-answer-is"),
        ("Answer: C", "C", "en-answer-colon"),
        ("**Final Answer:** A", "A", "en-answer-colon"),
        ("C. 원발성 담즙성 담관염", "C", "line-start"),
        ("B", "B", "line-start"),
        ("  D  \n", "D", "line-start"),
        ("**B**\n", "B", "bold"),
        ("검토 결과는 다음과 같다.\n(B) 약물 부작용", "B", "line-start"),
        ("  - D. 만성 신부전", "D", "line-start"),
        ("가장 적절한 것은 **C** 이다", "C", "bold"),
        ("가장 적절한 것은 **(E)**", "E", "bold"),
        ("가장 가능성이 높은 것은 **A. 당뇨병**이다", "A", "bold"),
        ("③", "C", "circled-or-beon"),
        ("가장 적절한 것은 ⑤", "E", "circled-or-beon"),
        ("3번", "C", "circled-or-beon"),
        ("2 번이 맞습니다", "B", "circled-or-beon"),
        ("원발성 담즙성 담관염이 가장 가능성이 높습니다.", "C", "option-text"),
    ],
)
def test_each_documented_form_parses_to_its_letter_with_its_rule(text: str, letter: str, rule: str) -> None:
    result = parse_answer(text, OPTIONS)
    assert (result.letter, result.rule, result.parsed) == (letter, rule, True)


@pytest.mark.parametrize(
    "text",
    [
        "A lot of factors contribute to this presentation.",
        "I think this question is difficult.",
        "I cannot answer this without more information.",
        "The answer is not clear from the vignette.",
        "The answer isn't obvious.",
        "the answer is a lot more nuanced",
        "Answer: it depends",
        "Anemia is common; Cholestasis is likely.",
        "**A lot** depends on the history.",
        "E.coli 감염을 먼저 배제해야 한다",
        "정답: X",
        "응답: A",
        "3번째 검사 결과를 보면",
        "13번 항목",
        "0.5번",
        "",
        "   \n\t ",
    ],
)
def test_lookalikes_do_not_parse(text: str) -> None:
    result = parse_answer(text, OPTIONS)
    assert (result.letter, result.rule, result.parsed) == (None, None, False)


def test_none_is_unparsable() -> None:
    assert parse_answer(None).letter is None


def test_within_the_first_matching_rule_the_last_match_wins() -> None:
    assert parse_answer("정답은 A입니다. 아니, 다시 보니 정답은 B입니다.").letter == "B"
    assert parse_answer("Answer: A\nAnswer: D").letter == "D"
    assert parse_answer("A. 당뇨병\nB. 약물 부작용\nE. 건조피부증").letter == "E"


def test_an_earlier_rule_beats_a_later_match_of_a_later_rule() -> None:
    # ko-jeongdap (rule 1) decides even though en-answer-colon and line-start match after it.
    result = parse_answer("정답: B\nAnswer: D\nE. 건조피부증")
    assert (result.letter, result.rule) == ("B", "ko-jeongdap")
    result = parse_answer("The answer is A.\nAnswer: C")
    assert (result.letter, result.rule) == ("A", "en-answer-is")
    # A line starting "(D)" beats bold and circled digits that come later.
    result = parse_answer("(D) 만성 신부전\n**A**\n①")
    assert (result.letter, result.rule) == ("D", "line-start")
    # A letter rule beats the option text even when the text names another option.
    result = parse_answer("당뇨병이 의심되지만 정답: C", OPTIONS)
    assert (result.letter, result.rule) == ("C", "ko-jeongdap")


def test_a_think_block_is_ignored() -> None:
    text = "<think>정답: A 일까? 아니면 Answer: B</think>\n정답: D"
    assert parse_answer(text).letter == "D"
    assert parse_answer("<THINK>정답: A</Think>(E)").letter == "E"
    assert parse_answer("<think>x</think>정답: A<think>정답: B</think>").letter == "A"


def test_an_unterminated_think_block_drops_everything_after_it() -> None:
    assert strip_reasoning("정답: A\n<think>정답: B ...") == "정답: A\n"
    assert parse_answer("<think>정답: B 인 것 같은데 아직 확신이").letter is None


def test_a_closing_tag_without_an_opening_drops_the_reasoning_before_it() -> None:
    assert parse_answer("정답: A 인지 생각해 보면...</think>\n\n정답: C").letter == "C"
    assert parse_answer("정답: A ...</think>").letter is None


def test_full_width_letters_and_colons_are_normalised() -> None:
    assert parse_answer("정답：Ｃ").letter == "C"
    assert parse_answer("Ａｎｓｗｅｒ: Ｅ").letter == "E"
    assert parse_answer("정답\u3000B").letter == "B"


def test_decomposed_hangul_still_reads_as_jeongdap() -> None:
    import unicodedata

    assert parse_answer(unicodedata.normalize("NFD", "정답: C")).letter == "C"


def test_option_text_must_name_exactly_one_option() -> None:
    assert match_option_text("당뇨병 또는 만성 신부전", OPTIONS) is None
    assert match_option_text("잘 모르겠습니다", OPTIONS) is None
    assert match_option_text("  원발성   담즙성 담관염  ", OPTIONS) == "C"
    nested = ("당뇨병", "제2형 당뇨병", "고혈압", "비만", "갑상선기능저하증")
    assert match_option_text("제2형 당뇨병입니다", nested) == "B"
    assert match_option_text("당뇨병입니다", nested) == "A"
    assert parse_answer("원발성 담즙성 담관염").letter is None  # without the options, no option-text rule


def test_spec_names_this_parser_and_its_rules_in_order() -> None:
    for task in ("clinicalqa@0", "clinicalqa-upstream-demo@0"):
        parser = (SPECS[task].model_extra or {})["parser"]
        assert (parser["id"], parser["version"]) == (PARSER_ID, PARSER_VERSION) == ("mcq-letter", 1)
        assert parser["rules"] == list(RULE_IDS)
        assert list(parser["forms"]) == list(RULE_IDS)
        assert parser["letters"] == list(LETTERS)


ADVERSARIAL = {
    "spaces after 정답": "정답" + " " * 1_000_000,
    "정답 repeated": "정답 " * 340_000,
    "answer is repeated": "answer is " * 100_000,
    "open think repeated": "<think>" * 145_000,
    "bold markers": "** " * 340_000,
    "open brackets": "(" * 1_000_000,
    "digits before 번": "1" * 1_000_000 + "번째",
    "line starts": "\n - " * 250_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_a_one_megabyte_adversarial_string_parses_quickly(name: str) -> None:
    text = ADVERSARIAL[name]
    assert len(text) >= 1_000_000
    started = time.perf_counter()
    result = parse_answer(text, OPTIONS)
    elapsed = time.perf_counter() - started
    assert result.letter is None
    assert elapsed < 5.0, f"{name}: {elapsed:.2f} s"  # linear patterns take well under a second here


FRAGMENTS = st.sampled_from(
    ["정답", "답", "은", "는", ":", "\uff1a", " ", "\n", "\t", "*", "**", "(", ")", ".", "[", "A", "B", "C",
     "D", "E", "\uff23", "a", "answer", "Answer", "is", "option", "<think>", "</think>", "<THINK>", "①", "⑤",
     "3", "13", "번", "째", "입니다", "당뇨병", "만성 신부전", "-", "#", ">", "\u3000", "\u0301", "\ud7a3",
     "\x00"]
)  # fmt: skip
# Lone surrogates (category Cs) can reach us from a lenient JSON decoder; plain st.text() never makes them.
SURROGATES = st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=3)
TEXTS = st.one_of(st.text(), st.lists(FRAGMENTS | SURROGATES | st.text(max_size=3), max_size=40).map("".join))


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, options=st.lists(st.text(max_size=8), min_size=0, max_size=5))
def test_fuzz_no_exception_and_the_result_is_none_or_one_letter(text: str, options: list[str]) -> None:
    result = parse_answer(text, options)
    assert result.letter is None or result.letter in LETTERS
    assert (result.letter is None) == (result.rule is None)
    assert result.rule is None or result.rule in RULE_IDS


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(exclude_characters="<")), letter=st.sampled_from(LETTERS))
def test_fuzz_a_final_jeongdap_line_always_decides(text: str, letter: str) -> None:
    assert parse_answer(f"{text}\n정답: {letter}").letter == letter


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(exclude_characters="<")), letter=st.sampled_from(LETTERS))
def test_fuzz_nothing_inside_a_think_block_counts(text: str, letter: str) -> None:
    assert parse_answer(f"<think>{text}</think>\n({letter})").letter == letter

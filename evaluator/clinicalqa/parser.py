"""The answer parser `mcq-letter`, version 1: a model's free text to one letter A-E, or None.

Steps, in order:

1. Reasoning is removed. Every `<think>...</think>` block (tag names case-insensitive) is cut out. An
   opening `<think>` that never closes cuts everything after it: the model never finished thinking, so
   nothing after it is an answer. A closing `</think>` with no opening before it (servers that strip the
   opening tag) cuts everything before it.
2. Text is normalised: Unicode NFC (so decomposed Hangul still reads as 정답), full-width ASCII
   (U+FF01-U+FF5E: the full-width forms of C, colon and brackets) to ASCII, and the ideographic space
   U+3000 to a space. Circled digits are kept.
3. The rules below are tried in order. The first rule that matches anywhere decides; within it the LAST
   match (rightmost) wins, because a model that corrects itself states its final answer last.

| # | rule id | matches (letters are upper-case A-E, not followed by a Latin letter or digit) |
|---|---------|----------|
| 1 | `ko-jeongdap` | `정답: C`, `정답은 C입니다`, `정답은 (C)`, `**정답**: **C**` |
| 2 | `ko-dap` | `답: (C)`, `답은 C` (답 not preceded by a Hangul syllable, so not 대답/응답) |
| 3 | `en-answer-is` | `The answer is C`, `the correct answer is: (C)`, `answer is option C` |
| 4 | `en-answer-colon` | `Answer: C`, `Final answer: **C**`, `**Answer:** C` |
| 5 | `line-start` | a line starting `C.` or `(C)`, or a line that is only `C` (after spaces, `>`, `-`, `#`, `*`, `_`) |
| 6 | `bold` | `**C**`, `**(C)**`, `**C.**`, or bold opening `**C. ` |
| 7 | `circled-or-beon` | `①`-`⑤`, or `1번`-`5번` (not `13번`, not `3번째`), mapped to A-E |
| 8 | `option-text` | the text contains exactly one option's text (see `match_option_text`) |

English keywords (answer, is, option, choice) match in any case; the letter must be upper case, so
"the answer is a lot" does not parse. Anything else is unparsable: `letter` is None and the item counts as
wrong. Every pattern uses possessive quantifiers over single character classes after a literal anchor, so
matching stays linear in the input length.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

PARSER_ID = "mcq-letter"
PARSER_VERSION = 1
LETTERS = ("A", "B", "C", "D", "E")

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_CIRCLED = "①②③④⑤"

# A letter that is a whole token: "C", "C입니다", "C." but not "Cefazolin" or "C1".
_LETTER = r"([A-E])(?![A-Za-z0-9])"
# What may stand between a marker and its letter: spaces, markdown emphasis, an opening bracket.
_GAP = r"[\s*_(\[]*+"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ko-jeongdap", re.compile(r"정답[ \t*_]*+(?:[은는][ \t*_]*+)?+[:\uff1a]?+" + _GAP + _LETTER)),
    (
        "ko-dap",
        re.compile(r"(?<![가-힣])답[ \t*_]*+(?:[은는][ \t*_]*+[:\uff1a]?+|[:\uff1a])" + _GAP + _LETTER),
    ),
    (
        "en-answer-is",
        re.compile(
            r"(?<![A-Za-z])(?i:answer)[ \t*_]++(?i:is)(?![A-Za-z])[ \t*_]*+:?+"
            r"(?:[ \t*_]*+(?i:option|choice)[ \t]++)?+" + _GAP + _LETTER
        ),
    ),
    ("en-answer-colon", re.compile(r"(?<![A-Za-z])(?i:answer)[ \t*_]*+[:\uff1a]" + _GAP + _LETTER)),
    (
        "line-start",
        re.compile(r"^[ \t>*_#-]*+(?:\(([A-E])\)|([A-E])\.|([A-E])(?=[ \t]*+$))(?![A-Za-z0-9])", re.MULTILINE),
    ),
    ("bold", re.compile(r"\*\*[ \t]*+\(?+([A-E])(?:\)|\.)?+(?:[ \t]*+\*\*|(?<=[.)])[ \t])")),
    ("circled-or-beon", re.compile(r"([①-⑤])|(?<![0-9.])([1-5])[ \t]*+번(?!째)")),
)

RULE_IDS: tuple[str, ...] = (*(rule for rule, _ in _PATTERNS), "option-text")


@dataclass(frozen=True)
class ParsedAnswer:
    """The parser's verdict: a letter A-E and the id of the rule that gave it, or None and None."""

    letter: str | None
    rule: str | None

    @property
    def parsed(self) -> bool:
        return self.letter is not None


UNPARSABLE = ParsedAnswer(letter=None, rule=None)


def strip_reasoning(text: str) -> str:
    """Remove `<think>` blocks as the module docstring describes (one linear scan over the tags)."""
    kept: list[str] = []
    position = 0
    inside = False
    for tag in _THINK_TAG.finditer(text):
        closing = tag.group(1) == "/"
        if not closing and not inside:
            kept.append(text[position : tag.start()])
            inside = True
        elif closing and inside:
            inside = False
            position = tag.end()
        elif closing:  # a close without an open: everything so far was reasoning
            kept.clear()
            position = tag.end()
    if not inside:
        kept.append(text[position:])
    return "".join(kept)


def normalise(text: str) -> str:
    """NFC, full-width ASCII to ASCII, ideographic space to space."""
    return unicodedata.normalize("NFC", text).translate(_FULL_WIDTH)


def _letter_of(match: re.Match[str]) -> str:
    token = next(group for group in match.groups() if group is not None)
    if token in _CIRCLED:
        return LETTERS[_CIRCLED.index(token)]
    if token.isdigit():
        return LETTERS[int(token) - 1]
    return token


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    last = None
    for match in pattern.finditer(text):
        last = match
    return last


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def match_option_text(text: str, options: Sequence[str]) -> str | None:
    """The letter of the one option whose text the answer repeats, or None (no option, or several).

    Texts are compared with whitespace collapsed and case folded. An option whose text lies inside another
    found option's text is not counted on its own ("제2형 당뇨병" repeats B, not also A "당뇨병").
    """
    folded_text = _fold(text)
    folded = [_fold(option) for option in options]
    found = [index for index, option in enumerate(folded) if option and option in folded_text]
    # "제2형 당뇨병" contains "당뇨병": when both are found, the longer one is what the answer repeats.
    found = [i for i in found if not any(j != i and folded[i] in folded[j] for j in found)]
    if len(found) == 1 and found[0] < len(LETTERS):
        return LETTERS[found[0]]
    return None


def parse_answer(text: str | None, options: Sequence[str] = ()) -> ParsedAnswer:
    """Parse a model's raw output under `mcq-letter` v1; `options` (A-E texts) enable the last rule."""
    if not text:
        return UNPARSABLE
    cleaned = normalise(strip_reasoning(text))
    for rule, pattern in _PATTERNS:
        match = _last_match(pattern, cleaned)
        if match is not None:
            return ParsedAnswer(letter=_letter_of(match), rule=rule)
    letter = match_option_text(cleaned, options) if options else None
    return ParsedAnswer(letter=letter, rule="option-text") if letter else UNPARSABLE

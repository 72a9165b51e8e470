"""Segmentation: a text as sentences and tables, the two places results are written.

Tables come as Markdown pipe tables (model cards, READMEs: medqa_usa_taiwan_rag_readme.md), HTML tables inside
Markdown (Hugging Face cards: lingshu_modelcard_textual_qa_html_table.md) and fenced CSV blocks; HTML and CSV are
turned into the same cells. Each table keeps the caption written above it (a heading "USA MedQA Models Accuracy
(%)", a bold "Table: MCQ accuracy (%) ..." line) because the metric and benchmark of its cells are often only
there. Everything else is cut into sentences, in English and in Korean (a Korean sentence ends in "다." before a
space: gpt4_korean_medicine_exam_news_ko.md). Every pattern is bounded, so the work stays linear in the text.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from evaluator.papers.text import csv_to_markdown, html_text

MAX_LINE = 4000
MAX_COLUMNS = 64
MAX_ROWS = 500
MAX_SENTENCE = 1500

_HTML_TABLE = re.compile(r"<table\b.{0,200000}?</table>", re.I | re.S)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)[ \t]{0,4}([\w+-]{0,20})")
# a fence closes only on a line of the same marks and nothing else (CommonMark): "```bash" opens a block and never
# closes one, so a stray opener in a README does not turn the rest of the text inside out
_CLOSING = re.compile(r"^[ \t]{0,3}(```|~~~)[`~]*[ \t]*$")
_LINK = re.compile(r"!?\[([^\]\n]{0,300})\]\((https?://[^)\s]{1,300}|[^)\s]{0,300})\)")
# a tag opens with a letter or "/": "(P<0.05).The ... (P>0.05)" is not one (chatgpt_chinese_licensing_*.md)
_MARKUP = re.compile(r"</?[A-Za-z][^<>\n]{0,300}>|\*{1,3}|`{1,3}|(?<![A-Za-z0-9])_{1,3}|_{1,3}(?![A-Za-z0-9])")
# a sentence ends at . ! ? (or 。) followed by space and something that can open a sentence; "e.g." and "vs." and
# decimals do not end one; a period glued to the next sentence after a word or a value does ("was 70.3%.The
# answer": chatgpt_chinese_licensing_simulated_exam_abstract.md, typeset without spaces)
_SENTENCE_END = re.compile(
    # a closing quote may follow the stop: 'scores "87.7% at about 10% of DeepSeek R1's cost." The newly released'
    # (medgemma_27b_multimodal_zoonop_news.md)
    r"(?<!\be\.g)(?<!\bvs)(?<!\bi\.e)(?<!\b[A-Z])(?<!\bal)([.!?。][\"”’]?)"
    r"(?:\s+(?=[^a-z\s])|(?<=[a-z%)]\.)(?=[A-Z][a-z]))"
)
_PARAGRAPH = re.compile(
    r"\n[ \t]*\n|\n(?=[ \t]{0,8}(?:[-*+\u2022\u25b2]|\d{1,2}[.)]|#{1,6}) )|\n(?=[A-Z][A-Za-z ]{2,30}:)"
)
# a delimiter row of two columns or more ("---|---", "|:--|--:|", "-- | --" as a spreadsheet pastes it:
# shock_mortality_lr_svm_gbm_train_test_results.md); YAML's "--- |" in a card's code view is none
_DELIMITER_ROW = re.compile(
    r"^[ \t]{0,3}\|?[ \t]{0,4}:?-{2,80}:?[ \t]{0,4}(?:\|[ \t]{0,4}:?-{2,80}:?[ \t]{0,4}){1,63}\|?[ \t]{0,4}$"
)
_CAPTION_START = re.compile(r"^(?:\*{0,2}|_)?(?:table|caption|표)\b", re.I)


@dataclass(frozen=True)
class Table:
    """One table: header cells, rows of cells (markup and links removed), the raw row lines, its caption."""

    header: list[str]
    rows: list[list[str]]
    lines: list[str]
    caption: str


@dataclass(frozen=True)
class Segments:
    tables: list[Table]
    sentences: list[str]


def plain(text: str) -> str:
    """Text without Markdown links (their label kept), HTML tags and emphasis marks, whitespace collapsed."""
    return " ".join(_MARKUP.sub("", _LINK.sub(r"\1", text)).split())


def segment(text: str) -> Segments:
    """The tables and the sentences of a text."""
    lines = _lines(_HTML_TABLE.sub(lambda m: "\n" + html_text(m.group(0)) + "\n", text))
    tables: list[Table] = []
    prose: list[str] = []
    index = 0
    while index < len(lines):
        bare = _opens_bare_table(lines, index)
        if not (bare or _is_table_line(lines[index])):
            prose.append(lines[index])
            index += 1
            continue
        start = index
        while index < len(lines) and (_is_table_line(lines[index]) or (bare and _is_bare_row(lines[index]))):
            index += 1
        block = [line for line in lines[start:index] if not _is_separator(line)][: MAX_ROWS + 1]
        if len(block) >= 2:
            tables.append(_table(block, _caption(lines, start, index)))
        prose.append("")
    return Segments(tables, sentences("\n".join(prose)))


def sentences(text: str) -> list[str]:
    found: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        flat = plain(paragraph)
        if not flat:
            continue
        pieces = _SENTENCE_END.split(flat)
        for i in range(0, len(pieces), 2):
            sentence = pieces[i] + (pieces[i + 1] if i + 1 < len(pieces) else "")
            found.extend(sentence[o : o + MAX_SENTENCE] for o in range(0, len(sentence), MAX_SENTENCE))
    return [s.strip() for s in found if s.strip()]


# a pipe table whose line breaks were lost, its delimiter row inside a line: "| Epoch | Step | Accuracy | |:---:|:---:|
# :---:| | 1.0 | 318 | 0.3553 | | 2.0 | ..." (medqa_linkbert_trainer_card_raw.md, a card copied as one line)
_INLINE_DELIMITER = re.compile(r"\|[ \t]{0,4}(?:\|[ \t]{0,2}:?-{3,80}:?[ \t]{0,2}){2,64}\|")


# a CSV whose line breaks were lost: quoted rows one after another, '"1","CovEWS","97.6 (96.3, 98.5)" "1","SOFA",...'
# (covews_timeframe_models_supplementary_table.md, a supplementary table copied from a page)
_GLUED_CSV = re.compile(r'"(?:,"[^"\n]{0,200}"){2,}\s{1,4}"[^"\n]{0,200}",')
_ROW_BREAK = re.compile(r'(?<=[^,\s])\s{1,4}(?="[^"\n]{0,200}",)')


def _glued_csv(line: str) -> list[str] | None:
    """A line that is a whole CSV table, as a Markdown table's lines; None when it is not one."""
    if _GLUED_CSV.search(line) is None:
        return None
    pieces = _ROW_BREAK.split(line)
    widths = {len(next(csv.reader([piece]))) for piece in pieces}
    if len(widths) != 1 or widths.pop() < 3:
        return None
    return csv_to_markdown("\n".join(pieces)).splitlines()


def unflattened(line: str) -> list[str]:
    """A line holding a whole pipe table or CSV table, as the table's own lines (header, delimiter, rows) between
    the text before and after it; any other line as it is."""
    glued = _glued_csv(line) if len(line) > 200 else None
    if glued is not None:
        return ["", *glued, ""]
    match = _INLINE_DELIMITER.search(line) if "---" in line else None
    if match is None or match.start() == 0:
        return [line]
    width = match.group(0).count("-|") + match.group(0).count(":|")
    before = line[: match.start() + 1].split("|")
    if len(before) < width + 2:
        return [line]
    header = "|" + "|".join(before[-width - 1 : -1]) + "|"
    cells = line[match.end() :].split("|")
    rows, at = [], 0
    while at + width < len(cells) and not cells[at].strip() and len(" ".join(cells[at : at + width + 1])) < 600:
        rows.append("|" + "|".join(cells[at + 1 : at + width + 1]) + "|")
        at += width + 1
    rest = "|".join(cells[at:]) if at < len(cells) else ""
    text_before = "|".join(before[: -width - 1])
    return [text_before, "", header, "|" + "---|" * width, *rows, "", rest]


# a Markdown page whose line breaks were lost keeps its heading and list marks inside one long line: "... evaluation
# set: - Loss: 1.4462 - Accuracy: 0.4002 ## Model description ..." (medqa_linkbert_trainer_card_raw.md)
_FLAT_HEADING = re.compile(r"(?<=\S) (?=#{1,6} [A-Za-z])")
MAX_FLAT_LINE = 100_000  # a card copied as one line is a few kilobytes; a longer line is not one
_FLAT_ITEM = re.compile(r"(?<=\S) (?=- [A-Za-z][\w ]{0,40}: )")


# an abstract's section label run into its first word when the page was copied: "The χ2 ResultsGPT-4.0 achieved",
# "MethodsWe included" (cnmle_2022_gpt4_gpt35_system_roles_doaj_abstract.md)
_GLUED_LABEL = re.compile(
    r"(?<![A-Za-z])(Background|Objectives?|Aims?|Purpose|Introduction|Methods|Results|Findings|Conclusions?|"
    r"Interpretation|Discussion)(?=[A-Z][A-Za-z0-9-]{1,40}\b)"
)


# a diff or blame view's gutter between the lines of a file: a line number and a bar, or a bar alone, on lines of their
# own ("20 |", "|" between the rows of a card's table: medmerge_tulu_70b_card_commit_open_llm_leaderboard.md)
_GUTTER = re.compile(r"(?m)^[ \t]{0,8}\d{0,6}[ \t]{0,4}\|[ \t]*\n")
# and its hunk headers, which cut a table the change runs through ("@@ -28,6 +30,21 @@ Medchator-2x7b is ...":
# medchator_2x7b_moe_open_llm_leaderboard_commit.md)
_HUNK = re.compile(r"(?m)^@@ -\d{1,7}(?:,\d{1,7})? \+\d{1,7}(?:,\d{1,7})? @@[^\n]{0,300}\n")
_NUMBERED = re.compile(r"(?m)^[ \t]{0,8}\d{1,6}[ \t]{0,4}\|[ \t]*$")


def without_gutter(text: str) -> str:
    """The text without a copied diff view's gutter lines, so that a table's rows meet again; only where line numbers
    show it is one (a bar alone on a line is also how a page's table whose cells break over lines is copied:
    openphr_medical_leaderboard_access_params.md)."""
    if "|" not in text or len(_NUMBERED.findall(text, 0, 200_000)) < 3:
        return text
    return _GUTTER.sub("", _HUNK.sub("", text))


# a metric's name run into its value, as text copied from a PDF often has it: "Brier Score0.150", "AUC0.793"
_GLUED_VALUE = re.compile(
    r"(?<![A-Za-z])(Score|score|AUC|AUROC|AUPRC|Accuracy|accuracy|Sensitivity|sensitivity|Specificity|specificity|"
    r"Precision|precision|Recall|recall)(?=0?\.\d|\d{1,2}(?:\.\d{1,4})?%)"
)


# marks of a table whose cells ran together when copied, no space between them: a bracket closing one cell before
# the next cell's word ("Calibration (H&L)Threshold (%)Sensitivity"), two values run together ("0.7390.40"). A
# sentence with two such marks is cells, not prose, and whose each value is cannot be told: on the first reads of
# eleven blind sets none of the 19 claims read from such sentences was right
# (unplanned_readmission_models_review_table2_bmj_open_highwire.md, icu_readmission_transfer_ensemble_*_table.md)
_RUN_TOGETHER = re.compile(r"[a-z%]\)[A-Z]|\d\.\d{2,5}\.\d{2}")


def cells_run_together(sentence: str) -> bool:
    """Whether `sentence` is a table's cells run together (two marks or more of cells written without a space)."""
    return len(_RUN_TOGETHER.findall(sentence, 0, 20_000)) >= 2


def unglued_labels(text: str) -> str:
    """The text with each section label run into the word after it set apart ("ResultsGPT-4.0" is "Results:
    GPT-4.0"), and each metric run into its value ("Brier Score0.150" is "Brier Score 0.150")."""
    return _GLUED_VALUE.sub(r"\1 ", _GLUED_LABEL.sub(r"\1: ", text))


def with_line_breaks(text: str) -> str:
    """A text whose long lines hold several Markdown headings, those lines broken before each heading and
    "- key: value" item; any other text as it is."""
    if max(map(len, text.splitlines()), default=0) < 400:
        return text
    return "\n".join(
        _FLAT_ITEM.sub("\n", _FLAT_HEADING.sub("\n\n", line))
        if 400 <= len(line) <= MAX_FLAT_LINE and len(_FLAT_HEADING.findall(line)) >= 2
        else line
        for line in text.splitlines()
    )


def _rejoined(lines: list[str]) -> list[str]:
    """Lines with a table whose cells break over several lines ("|", "Med-PaLM 2", "Google", "|", "🔒 Closed API |
    Unknown | 81.8 |": a page's table copied with each cell's lines, openphr_medical_leaderboard_access_params.md)
    joined back into one line per table, which `unflattened` cuts into rows."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        out.append(line)
        index += 1
        if not ("---" in line and _DELIMITER_ROW.match(line) and len(out) >= 2 and "|" in out[-2]):
            continue
        end = index
        while end < len(lines) and lines[end].strip() and end - index < MAX_ROWS:
            end += 1
        block = lines[index:end]
        if any(row.strip() == "|" for row in block):
            header = out[-2]
            out[-2:] = [f"{header} |{line.strip().strip('|')}| {' '.join(row.strip() for row in block)}"]
            index = end
    return out


# a leaderboard row whose cells were run together when its page was copied: "Med-PaLM 285.4Towards Expert-Level
# ...", "GPT-490.2Can Generalist ..." (medqa_usmle_hyperai_sota_page.md): a name, a value under 100 with its decimals,
# and a title starting with a capital; the shortest name with its brackets closed that leaves such a value wins
# ("Med-PaLM 2", 85.4; "Shakti-LLM (2.5B)", 60.3)
_GLUED_ROW = re.compile(r"^(\S(?:[^()\n]|\([^()\n]{0,40}\)){0,80}?)((?:\d{1,2}|100)\.\d{1,2})([A-Z][^\n]{3,})$")
MIN_GLUED_ROWS = 3


def _unglued(lines: list[str]) -> list[str]:
    """Lines with each run of three or more glued leaderboard rows as a Markdown table of name and value."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and len(lines[end]) < 400 and "." in lines[end] and _GLUED_ROW.match(lines[end].strip()):
            end += 1
        if end - index < MIN_GLUED_ROWS:
            out.append(lines[index])
            index += 1
            continue
        rows = [_GLUED_ROW.match(line.strip()) for line in lines[index:end]]
        out += ["| Model | Value |", "|---|---|"]
        out += [f"| {row.group(1).strip()} | {row.group(2)} |" for row in rows if row]
        out.append("")
        index = end
    return out


def _lines(text: str) -> list[str]:
    """Lines, with fenced CSV blocks turned into Markdown tables and other fenced code left out."""
    out: list[str] = []
    fence: str | None = None
    opened = ""
    block: list[str] = []
    for line in (piece for whole in _unglued(_rejoined(text.splitlines())) for piece in unflattened(whole)):
        match = _FENCE.match(line)
        if fence is None and match:
            fence, opened, block = match.group(2).lower() or "code", match.group(1), []
        elif fence is not None and (closing := _CLOSING.match(line)) and closing.group(1) == opened:
            out.extend(csv_to_markdown("\n".join(block)).splitlines() if fence == "csv" else [])
            out.append("")
            fence = None
        elif fence is not None:
            block.append(line)
        else:
            out.append(line)
    return out


def _is_table_line(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) <= MAX_LINE and stripped.startswith("|") and stripped.count("|") >= 2


def _opens_bare_table(lines: list[str], index: int) -> bool:
    """A pipe table written without its outer pipes, as GitHub allows: "Model | Accuracy" over "---|---"
    (medqa_leaderboard_aihealthinstitute_ci_table.md, a rendered leaderboard page)."""
    nxt = index + 1
    return nxt < len(lines) and _is_bare_row(lines[index]) and bool(_DELIMITER_ROW.match(lines[nxt]))


def _is_bare_row(line: str) -> bool:
    return 0 < len(line.strip()) <= MAX_LINE and "|" in line


def _is_separator(line: str) -> bool:
    stripped = line.strip()
    return "-" in stripped and not stripped.strip("|:- \t")


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    stripped = stripped[1:] if stripped.startswith("|") else stripped
    stripped = stripped[:-1] if stripped.endswith("|") else stripped
    return [plain(cell) for cell in stripped.split("|", MAX_COLUMNS)[:MAX_COLUMNS]]


def _table(block: list[str], caption: str) -> Table:
    header = _cells(block[0])
    rows: list[list[str]] = []
    lines = [block[0].strip()]
    for line in block[1:]:
        pieces = _rows_run_together(_cells(line), len(header))
        rows += pieces
        # each row keeps a line of its own, the evidence of its claims
        lines += [line.strip()] if len(pieces) == 1 else ["| " + " | ".join(piece) + " |" for piece in pieces]
    return Table(header, rows, lines, caption)


_NUMBER_CELL = re.compile(r"\s*-?\d[\d.,]*\s*%?\s*")


def without_trailing_empties(cells: list[str]) -> list[str]:
    """The cells without the empty cells a copied row or header ends with ("| 4C Mortality Score | 0.786 | |")."""
    end = len(cells)
    while end and not cells[end - 1].strip():
        end -= 1
    return cells[:end]


def _rows_run_together(cells: list[str], width: int) -> list[list[str]]:
    """A row line holding several rows of the header's width run together ("| RF model | 0.90 | 0.95 | LR model |
    0.73 | 0.58 |": icu_sepsis_ensemble_*_table1.md, a page whose rows lost their line breaks), as those rows: each
    piece a label and numbers; any other row as it is."""
    cells = without_trailing_empties(cells)
    if width < 2 or len(cells) < 2 * width or len(cells) % width:
        return [cells]
    pieces = [cells[i : i + width] for i in range(0, len(cells), width)]
    shaped = all(
        not _NUMBER_CELL.fullmatch(piece[0]) and all(_NUMBER_CELL.fullmatch(cell) for cell in piece[1:])
        for piece in pieces
    )
    return pieces if shaped else [cells]


def _caption(lines: list[str], start: int, end: int) -> str:
    """Up to four non-empty lines above the table (stopping after a heading) and a "Table ..." line below."""
    found: list[str] = []
    for line in reversed(lines[max(0, start - 10) : start]):
        stripped = line.strip()
        if not stripped or _is_table_line(stripped):
            continue
        found.insert(0, stripped[:MAX_LINE])
        if stripped.startswith("#") or len(found) == 4:
            break
    found += [line.strip()[:MAX_LINE] for line in lines[end : end + 2] if _CAPTION_START.match(line.strip())]
    return plain(" ".join(found))

"""The rule-based extractor: deterministic, offline, always available.

It reads YAML front matter, "Model Name:" lines, Hugging Face URLs, arXiv ids, DOIs, licence lines, metric
tables (Markdown, and CSV in fenced blocks) and result sentences, using only bounded patterns. Numbers it
cannot find are null; it never guesses one.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from evaluator.papers.hypotension import read_definition
from evaluator.papers.identifiers import (
    find_base_model,
    find_identifiers,
    find_license,
    find_provider,
    hf_repo_urls,
    model_name_ids,
    named_models,
    read_front_matter,
)
from evaluator.papers.mapping import TaskCatalog, apply_mapping
from evaluator.papers.prose import ProseContext, sentence_claims, sentences
from evaluator.papers.record import (
    NOT_RELEASED,
    DatasetFact,
    ExtractedClaim,
    Extraction,
    ModelInfo,
    PaperRecord,
)
from evaluator.papers.tables import Table, clean_model_label, find_tables, is_table_line, table_claims
from evaluator.papers.text import csv_to_markdown
from evaluator.papers.vocabulary import IOH_PATTERN, strip_markup

MAX_TEXT = 4_000_000
MAX_CLAIMS = 1000
MAX_SUBJECTS = 20
MAX_COMPARATORS = 50
MAX_DATASET_FACTS = 20

_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)[ \t]{0,4}([\w+-]{0,20})")
_WEIGHTS_LINK = re.compile(r"(?:weights|checkpoints?|download)[^\n]{0,80}?(https?://[^\s)\]>\"']{4,200})", re.I)
_PRESENTED = re.compile(
    r"\b(?:we|We) (?:present|introduce|release|construct|build|propose) ([A-Z][\w.-]{1,60}), (?:a|an|the) "
    r"(?:[\w-]{1,30} ){0,8}(?:benchmark|dataset|corpus)"
)
_ITEMS = re.compile(
    r"\b(?:contains|consists of|comprises|includes|with) (\d{1,3}(?:,\d{3}){1,3}|\d{1,7}) "
    r"(questions|items|cases|patients|QA pairs|samples|recordings|records|surgeries)\b"
)


class RuleExtractor:
    """Reads a text with rules only. `extract` runs the work in a thread (it is CPU-bound)."""

    name = "rules"

    def __init__(self, *, catalog: TaskCatalog | None = None) -> None:
        self._catalog = catalog

    async def extract(self, text: str, *, source: str) -> PaperRecord:
        return await asyncio.to_thread(self.extract_now, text, source=source)

    def extract_now(self, text: str, *, source: str) -> PaperRecord:
        """The same as `extract`, on the calling thread."""
        text = without_comments(text)
        return apply_mapping(read_rules(text), text, source=source, extractor=self.name, catalog=self._catalog)


@dataclass(frozen=True)
class _Document:
    """What is read once per document and shared by every model and claim."""

    body: str  # without front matter
    plain: str  # body without Markdown marks, whitespace collapsed
    lowered_body: str
    hf_urls: list[str]
    weights_link: str | None
    provider: str | None
    base_model: str | None
    license: str | None


def read_rules(text: str) -> Extraction:
    """Everything the rules find in `text`, before mapping."""
    text = without_comments(text[:MAX_TEXT])
    matter = read_front_matter(text)
    body = text[matter.end :]
    plain = strip_markup(body)
    link = _WEIGHTS_LINK.search(plain)
    document = _Document(
        body=body,
        plain=plain,
        lowered_body=body.lower(),
        hf_urls=hf_repo_urls(text),
        weights_link=link.group(1) if link else None,
        provider=find_provider(body),
        base_model=find_base_model(plain, matter),
        license=find_license(body, matter),
    )
    fenced = "```" in body or "~~~" in body
    lines = _with_csv_blocks(body.splitlines()) if fenced else body.splitlines()
    tables = find_tables(lines)
    ids = model_name_ids(body)
    subjects = _subjects(ids, document, matter.base_models, tables)
    claims = _table_claims(tables, _resolver(subjects))
    subject_keys = {name.lower() for name in subjects}
    comparators = _unique_names([c.model for c in claims if c.model and c.model.lower() not in subject_keys])
    claims += _prose_claims(lines, claims, document, subjects, comparators, [*matter.base_models])
    comparators = _unique_names(
        comparators + [c.model for c in claims if c.model and c.model.lower() not in subject_keys]
    )[:MAX_COMPARATORS]
    identifiers = find_identifiers(text, matter, ids)
    models = [_subject_info(name, document, ids, single=len(subjects) == 1) for name in subjects]
    models += [
        ModelInfo(
            name=name,
            role="comparator",
            evidence=_first_row_naming(name, tables) or _evidence_naming(name, document),
        )
        for name in comparators
    ]
    return Extraction(
        models=models,
        claims=claims[:MAX_CLAIMS],
        identifiers=identifiers,
        datasets=_dataset_facts(plain, identifiers.hf_datasets),
    )


def _table_claims(tables: list[Table], resolve: Callable[[str], str]) -> list[ExtractedClaim]:
    claims: list[ExtractedClaim] = []
    for table in tables:
        claims.extend(table_claims(table, resolve))
        if len(claims) >= MAX_CLAIMS:
            break
    return claims[:MAX_CLAIMS]


def _prose_claims(
    lines: list[str],
    table_claims_found: list[ExtractedClaim],
    document: _Document,
    subjects: list[str],
    comparators: list[str],
    base_models: list[str],
) -> list[ExtractedClaim]:
    """Claims stated in sentences (tables left out), cross-checked against the table cells."""
    ioh_variant = read_definition(document.body).describe() if IOH_PATTERN.search(document.body) else None
    bases = [*base_models, *([document.base_model] if document.base_model else [])]
    context = ProseContext(
        subjects=subjects,
        known_models=subjects + comparators[:MAX_COMPARATORS],
        ioh_variant=ioh_variant,
        ignore_tokens={alias.lower() for base in bases for alias in (base, base.rsplit("/", 1)[-1])},
    )
    cells: dict[tuple[str | None, float], list[ExtractedClaim]] = defaultdict(list)
    for cell in table_claims_found:
        if cell.value is not None:
            cells[(cell.model, cell.value)].append(cell)
    claims: list[ExtractedClaim] = []
    budget = MAX_CLAIMS - len(table_claims_found)
    untouched = not any(mark in document.body for mark in ("|", "```", "~~~"))  # no table, no fence
    prose = document.body if untouched else "\n".join("" if is_table_line(line) else line for line in lines)
    for sentence in sentences(prose, only_results=True):
        if len(claims) >= budget:
            break
        claims.extend(_cross_checked(claim, cells) for claim in sentence_claims(sentence, context))
    return claims[: max(0, budget)]


def without_comments(text: str) -> str:
    """The text without HTML comments (`<!-- ... -->`, common in model cards); an unclosed comment runs to the
    end. A plain scan with str.find, so the cost stays linear however many openers there are."""
    if "<!--" not in text:
        return text
    parts: list[str] = []
    position = 0
    while (start := text.find("<!--", position)) >= 0:
        parts.append(text[position:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return "".join(parts)
        position = end + 3
    parts.append(text[position:])
    return "".join(parts)


def _with_csv_blocks(lines: list[str]) -> list[str]:
    """Lines with fenced ```csv blocks turned into Markdown tables and other fenced code blanked out."""
    out: list[str] = []
    fence: str | None = None
    block: list[str] = []
    for line in lines:
        match = _FENCE.match(line)
        if fence is None and match:
            fence, block = match.group(2).lower() or "code", []
            out.append("")
        elif fence is not None and match:
            out.extend(csv_to_markdown("\n".join(block)).splitlines() if fence == "csv" else [""] * len(block))
            out.append("")
            fence = None
        elif fence is not None:
            block.append(line)
        else:
            out.append(line)
    if fence is not None:
        out.extend([""] * len(block))
    return out


def _subjects(ids: list[str], document: _Document, base_models: list[str], tables: list[Table]) -> list[str]:
    """The models the document releases or announces: "Model Name:" ids, models introduced in prose,
    "(ours)" columns, and otherwise Hugging Face model URLs that are not a base model."""
    names = list(ids) + named_models(document.plain)
    for table in tables:
        for label in table.header[1:] + [row[0] for row in table.rows if row]:
            cleaned, ours = clean_model_label(label)
            if ours and cleaned:
                names.append(cleaned)
    if not names:
        bases = {base.lower() for base in base_models}
        names = [repo for repo in document.hf_urls if repo.lower() not in bases]
    resolve = _resolver(ids)
    return _unique_names([resolve(name) for name in names])[:MAX_SUBJECTS]


def _resolver(subjects: list[str]) -> Callable[[str], str]:
    """Maps a written label to a known model name ("hari-q3-8b" -> "snuh/hari-q3-8b"), else the label."""
    lookup: dict[str, str] = {}
    for name in subjects:
        lookup.setdefault(name.lower(), name)
        lookup.setdefault(name.rsplit("/", 1)[-1].lower(), name)

    def resolve(label: str) -> str:
        return lookup.get(label.strip().lower(), label.strip())

    return resolve


def _subject_info(name: str, document: _Document, ids: list[str], *, single: bool) -> ModelInfo:
    """A subject model: weights on Hugging Face when a repo id names it, a weights link when one is given,
    else "not released"; base model and licence only when the document is about a single model."""
    repos = {repo.lower(): repo for repo in ids + document.hf_urls}
    repo = repos.get(name.lower()) or next(
        (r for key, r in repos.items() if key.rsplit("/", 1)[-1] == name.lower()), None
    )
    weights = f"https://huggingface.co/{repo}" if repo else (document.weights_link or NOT_RELEASED)
    return ModelInfo(
        name=name,
        role="subject",
        provider=document.provider or (repo.split("/", 1)[0] if repo else None),
        weights=weights,
        base_model=document.base_model if single else None,
        license=document.license if single else None,
        evidence=_evidence_naming(name, document),
    )


def _evidence_naming(name: str, document: _Document) -> str | None:
    """The first line that names the model (markup stripped), clipped around the name."""
    position = document.lowered_body.find(name.lower())
    if position < 0:
        return None
    line_start = document.body.rfind("\n", max(0, position - 200), position) + 1 or max(0, position - 200)
    line_end = document.body.find("\n", position, position + 300)
    return strip_markup(document.body[line_start : line_end if line_end >= 0 else position + 300]) or None


def _first_row_naming(name: str, tables: list[Table]) -> str | None:
    for table in tables:
        if any(name.lower() in cell.lower() for cell in table.header):
            return table.header_line[:2000]
        for row, line in zip(table.rows, table.row_lines, strict=True):
            if row and name.lower() in row[0].lower():
                return line[:2000]
    return None


def _cross_checked(
    claim: ExtractedClaim, cells: dict[tuple[str | None, float], list[ExtractedClaim]]
) -> ExtractedClaim:
    """A sentence claim whose number equals a table cell for the same model on another dataset or subset
    gets a note: a headline often restates one cell under another name."""
    if claim.value is None:
        return claim
    for cell in cells.get((claim.model, claim.value), []):
        if (cell.dataset, cell.task_variant) != (claim.dataset, claim.task_variant):
            parts = [cell.dataset, cell.task_variant, f"({cell.setting})" if cell.setting else None]
            note = "same value as the table cell for " + " ".join(filter(None, parts))
            return claim.model_copy(update={"notes": [*claim.notes, note]})
    return claim


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.lower(), name)
    return list(seen.values())


def _dataset_facts(plain: str, hf_datasets: list[str]) -> list[DatasetFact]:
    """Datasets the text presents ("We present X, the first ... benchmark"), with size and hub when stated."""
    facts = []
    items = _ITEMS.search(plain)
    for match in _PRESENTED.finditer(plain):
        name = match.group(1).rstrip(".,")
        hub = next((repo for repo in hf_datasets if repo.lower().endswith("/" + name.lower())), None)
        facts.append(
            DatasetFact(
                name=name,
                items=int(items.group(1).replace(",", "")) if items else None,
                item_unit=items.group(2) if items else None,
                hub=f"https://huggingface.co/datasets/{hub}" if hub else None,
                evidence=plain[match.start() : match.start() + 300],
            )
        )
        if len(facts) >= MAX_DATASET_FACTS:
            break
    return facts

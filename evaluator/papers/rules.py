"""The rule-based extractor: a small general reader, deterministic, offline, always available.

The text is cut into sentences and tables (segment.py, spaced.py); model names are recognised by their shape
(names.py), benchmarks and metrics by the catalog and a vocabulary (measures.py); claims are read from sentences
(claims.py, with whose each value is in attribution.py) and table cells (tables.py), and from a harness's results
JSON (results_json.py) and a script's printed results (run_logs.py); identifiers, licence and base model come from
identifiers.py, and which models the text releases ("subjects") from subjects.py. A subject gets its weights from a
Hugging Face link or repo id that names it, else "not released". Numbers it cannot find are null; it never guesses
one.
"""

from __future__ import annotations

import asyncio
import re

from evaluator.papers.attribution import THE_MODEL, Context
from evaluator.papers.claims import canonical_dataset, sentence_claims
from evaluator.papers.defined import defined_names
from evaluator.papers.hypotension import read_definition
from evaluator.papers.identifiers import (
    find_base_model,
    find_identifiers,
    find_license,
    find_provider,
    model_name_ids,
    read_front_matter,
)
from evaluator.papers.lined import lined_tables
from evaluator.papers.mapping import TaskCatalog, apply_mapping
from evaluator.papers.measures import benchmarks_in, metric_words, metrics_defined_by, metrics_in
from evaluator.papers.model_index import card_results, of_the_card
from evaluator.papers.names import a_tables_word, is_model_name
from evaluator.papers.record import NOT_RELEASED, DatasetFact, ExtractedClaim, Extraction, ModelInfo, PaperRecord
from evaluator.papers.restated import unique_claims
from evaluator.papers.results_json import json_prose, results_json
from evaluator.papers.run_logs import printed_results, run_log_claims
from evaluator.papers.scoring import words
from evaluator.papers.segment import (
    Segments,
    cells_run_together,
    plain,
    segment,
    unglued_labels,
    with_line_breaks,
    without_gutter,
)
from evaluator.papers.spaced import interval_tables, spaced_tables
from evaluator.papers.subjects import short_names, subjects_of, unique
from evaluator.papers.tables import table_claims
from evaluator.papers.vocabulary import IOH_PATTERN

MAX_TEXT = 4_000_000
MAX_CLAIMS = 1000
MAX_MODELS = 80
# a long paper has a few thousand sentences (the corpus's longest text about 2,000); a text of more is a list or a
# dump, whose later lines are not read as prose (the 1 MB front-matter list of tests/test_evaluator_papers_fuzz.py)
MAX_SENTENCES = 20_000

_HF_LINK = re.compile(
    r"(?:https?://)?(?:huggingface\.co|hf\.co)/([A-Za-z0-9][\w.-]{0,95})/([A-Za-z0-9][\w.-]{0,95})"
    r"(/(?:tree|commit|blob)/[\w.-]{1,80})?"
)
_HUB_LINK_LABEL = re.compile(
    r"\[([^\]\n]{1,80})\]\((?:https?://)?(?:huggingface\.co|hf\.co)/([A-Za-z0-9][\w.-]{0,95})/([A-Za-z0-9][\w.-]{0,95})"
)
_HF_SITE = frozenset({"datasets", "spaces", "docs", "blog", "papers", "models", "posts", "collections", "learn"})
# "We present KorMedMCQA, the first ... benchmark" and its size (kormedmcqa_arxiv_2403.01469v3_abstract.md)
_PRESENTED = re.compile(
    r"\b(?:we|We) (?:present|introduce|release|construct|build|propose) ([A-Z][\w.-]{1,60}), (?:a|an|the) "
    r"(?:[\w-]{1,30} ){0,8}(?:benchmark|dataset|corpus)"
)
_ITEMS = re.compile(
    r"\b(?:contains|consists of|comprises|includes|with) (\d{1,3}(?:,\d{3}){1,3}|\d{1,7}) "
    r"(questions|items|cases|patients|QA pairs|samples|recordings|records|surgeries)\b"
)
_MODEL_INDEX = re.compile(r"model-index:\s{0,20}-\s{0,4}name:\s{0,4}['\"]?([A-Za-z0-9][\w.-]{1,95})")
# a text that is itself a meta-analysis or a systematic review reports pooled estimates over many models: a value
# it gives without naming a model is not one model's result (ioh_ml_meta_analysis_summary.md: "The area under the
# ROC curve (AUROC) was 0.83"; usmle_llm_systematic_review_medrxiv_abstract.md)
_POOLED = re.compile(
    r"\b(?:our|this|a|the present) (?:systematic review and )?meta-analy|\b(?:our|this) systematic review|"
    r":\s*a (?:systematic review|meta-analysis)|\bpooled (?:estimates?|sensitivity|specificity|AUROC|AUC|accuracy)",
    re.I,
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


_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "–", "\ufe63": "-", "\uff0d": "-"})
_PLUS_MINUS = re.compile(r"\+ ?/ ?-(?= ?\.?\d)")


def read_rules(text: str) -> Extraction:
    """Everything the rules find in `text`, before mapping, the metrics the text defines known as metrics."""
    with metrics_defined_by(text[:MAX_TEXT]):
        return _read_rules(text)


def _read_rules(text: str) -> Extraction:
    # a minus sign typeset as U+2212 is a minus: "intercept −0.0218" (eicu_simple_logistic_*_abstract.md)
    text = unglued_labels(with_line_breaks(without_gutter(without_comments(text[:MAX_TEXT])))).replace("\u2212", "-")
    # and a spread typed as "+/-" is one: "0.821 +/- 0.011" (mimic_mortality_context_*_results_txt.md); the
    # typographic hyphens are hyphens, and a figure dash a range's dash: "(95% CI 89.1%‒94.9%)", "0.857‐0.873"
    # (deepseek_r1_openai_usmle_*_abstract.md, vitalcare_ews_*_abstract.md)
    text = _PLUS_MINUS.sub("±", text).translate(_DASHES)
    matter = read_front_matter(text)
    # a card's model-index metadata (front matter or a copied code view) and its page's self-reported results
    card, after = card_results(text, matter.end)
    harness, rest = results_json(after)
    harness = card + harness
    body = json_prose(rest)
    lined, lined_lines = lined_tables(body)
    found_in_text = spaced_tables(body) + interval_tables(body) + lined
    printed, printed_lines = printed_results(body)
    rows = {line for table in found_in_text for line in table.lines[1:]} | printed_lines | lined_lines
    # a table found in running text is read once, as its cells, and not again as prose
    parts = segment("\n".join("" if line.strip() in rows else line for line in body.splitlines()) if rows else body)
    ids = model_name_ids(body)
    links = _hf_links(text)
    # the model a results file was made for is the text's subject
    run = [c.model for c in harness if c.model][:1]
    plain_body = plain(body)  # once: the subjects, defined names, base model and datasets are read from it
    subjects = unique(
        _MODEL_INDEX.findall(text[:5000]) + run + subjects_of(body, plain_body, parts, ids, links, text[: matter.end])
    )
    measured = {name for _, _, name in metrics_in(plain_body[:20000]) if name != "score"}
    usual = measured.pop() if len(measured) == 1 else None
    base = find_base_model(plain_body, matter)
    context = Context(subjects, defined_names(plain_body), usual_metric=usual, metric_words=metric_words(plain_body))
    context.base_model = base
    claims: list[ExtractedClaim] = of_the_card(harness, text, subjects) + run_log_claims(body) + printed
    for table in parts.tables + found_in_text:
        claims += table_claims(table, context)
    for name in {c.model for c in claims if c.model and len(c.model) <= 60 and "|" not in c.model}:
        context.defined.setdefault(name, name)  # a model a table names is a model in the prose too ("TCN achieves")
    for sentence in parts.sentences[:MAX_SENTENCES]:
        if len(claims) >= MAX_CLAIMS * 2:
            break
        # not a table's list of abbreviations ("LAPS-2 = ... score 2"), nor a table's cells run together
        if not _ABBREVIATIONS.match(sentence) and not cells_run_together(sentence):
            claims += sentence_claims(sentence, context)
    claims = _the_one_model(claims, context)
    full = short_names(context.named + [c.model for c in claims if c.model], body)  # "Gemini" for "Gemini 2.0 Pro"
    claims = [c.model_copy(update={"model": full[c.model]}) if c.model in full else c for c in claims]
    ioh = read_definition(body).describe() if IOH_PATTERN.search(body) else None
    named = {canonical_dataset(name) for sentence in parts.sentences for _, name in benchmarks_in(sentence)}
    only = named.pop() if len(named) == 1 else None  # the one benchmark the text names: its claims are on it
    claims = _cross_checked(unique_claims([_completed(c, subjects, ioh, only) for c in claims[: MAX_CLAIMS * 2]]))
    # a number neither a metric nor a benchmark names is no claim: on the first reads of eleven blind splits and
    # batches (1,171 claims), none of the 61 read so was right, against 45% of all; "MedQA (89.8% vs 74.9%)" is the
    # benchmark's score (medgemma_27b_text_featherless_unsloth_summary.md)
    claims = [c for c in claims if c.metric is not None or c.dataset is not None or c.value is None]
    # and a "model" that is a table's word for a split, a cohort or a header is a misread table: on those first reads
    # all 162 such claims were wrong ("Training", "Test", "Val" read as models; "Benchmark", a header's corner)
    claims = [c for c in claims if not (c.model and a_tables_word(c.model))]
    if _POOLED.search(body[:5000]):
        claims = [c for c in claims if c.model is not None]
    claims = claims[:MAX_CLAIMS]
    names = unique(subjects + [c.model for c in claims if c.model] + _named(parts, context))[:MAX_MODELS]
    single = len(subjects) == 1
    models = [
        ModelInfo(
            name=name,
            role="subject" if name in subjects else "comparator",
            provider=(find_provider(body) if single else None) if name in subjects else None,
            weights=_weights(name, links, ids, body) if name in subjects else None,
            base_model=base if single and name in subjects else None,
            license=find_license(body, matter) if single and name in subjects else None,
            evidence=_evidence(name, parts),
        )
        for name in names
        if not (base and words(name) == words(base))  # the base is its subject's base_model, not a model compared
    ]
    identifiers = find_identifiers(text, matter, ids)
    datasets = _dataset_facts(plain_body, identifiers.hf_datasets)
    return Extraction(models=models, claims=claims, identifiers=identifiers, datasets=datasets)


_ABBREVIATIONS = re.compile(r"\s*(?:definitions? of )?abbreviations?(?: used)?\s*[:.]", re.I)


def _the_one_model(claims: list[ExtractedClaim], context: Context) -> list[ExtractedClaim]:
    """Claims of "the model" read before the text named any model, as the one model it names: a summary's key finding
    ("The model achieved high discrimination (AUC 0.88)") above the abstract naming XGBoost
    (icu_aki_24h_forecast_*_summary.md); none when the text names several models or the claim names a model."""
    named = set(context.named)
    if len(named) != 1:
        return claims
    model = named.pop()
    return [
        claim.model_copy(update={"model": model})
        # not where the sentence names that model too: "The model reached 61.2%, whereas GPT-4 reached 72.4%"
        if claim.model is None and THE_MODEL.search(claim.evidence or "") and model not in (claim.evidence or "")
        else claim
        for claim in claims
    ]


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


def _hf_links(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2).rstrip(".")) for m in _HF_LINK.finditer(text) if m.group(1) not in _HF_SITE]


def _with_revision(org: str, repo: str, text: str) -> str:
    """The weights link, with the revision a link to the same repository names (…/tree/<rev>), if any."""
    for match in _HF_LINK.finditer(text):
        if (match.group(1), match.group(2).rstrip(".")) == (org, repo) and match.group(3):
            return f"https://huggingface.co/{org}/{repo}{match.group(3).rstrip('.')}"
    return f"https://huggingface.co/{org}/{repo}"


def _weights(name: str, links: list[tuple[str, str]], ids: list[str], body: str = "") -> str:
    mine = words(name)
    for label, org, repo in _HUB_LINK_LABEL.findall(body):  # "[MedAlpaca 7b](https://huggingface.co/medalpaca/...)"
        if words(label) == mine and org not in _HF_SITE:
            return f"https://huggingface.co/{org}/{repo}"
    for repo in ids:
        if words(repo) == mine or repo.lower() == name.lower():
            return f"https://huggingface.co/{repo}"
    for org, repo in links:
        if words(repo) == mine or f"{org}/{repo}".lower() == name.lower():
            return _with_revision(org, repo, body)
    for org, repo in links:  # "CliniKo" released as example-lab/CliniKo-8B
        if mine and mine <= words(repo):
            return _with_revision(org, repo, body)
    return NOT_RELEASED


def _named(parts: Segments, context: Context) -> list[str]:
    """The models the sentences named (the claim reader kept them as it read each one) and the tables' rows."""
    names = list(context.named)
    for table in parts.tables:
        names += [row[0] for row in table.rows if row and is_model_name(row[0])]
    return names


def _evidence(name: str, parts: Segments) -> str | None:
    lowered = name.lower()
    for sentence in parts.sentences:
        if lowered in sentence.lower():
            return sentence[:2000]
    for table in parts.tables:
        for line in table.lines:
            if lowered in line.lower():
                return f"{table.lines[0]}\n{line}"[:2000]
    return None


def _completed(claim: ExtractedClaim, subjects: list[str], ioh: str | None, only: str | None) -> ExtractedClaim:
    """The claim with its model written as the subject it names ("hari-q3-8b" in a table is the card's
    "snuh/hari-q3-8b"), and, in a text about intraoperative hypotension, the definition it states as the
    claim's variant (ioh_scalogram_preprint_abstract.md)."""
    update: dict[str, object] = {}
    if claim.dataset is None and only is not None:  # "GPT-4o achieved ... (83.2%)" in a KMLE-only abstract
        update["dataset"] = only
    same = [s for s in subjects if claim.model and words(s) == words(claim.model)]
    if same and same[0] != claim.model:
        update["model"] = same[0]
    if claim.dataset is None and claim.task_variant is None and ioh is not None:
        update["task_variant"] = ioh
    return claim.model_copy(update=update) if update else claim


def _cross_checked(claims: list[ExtractedClaim]) -> list[ExtractedClaim]:
    """A sentence claim equal to a table cell of the same model on another dataset or subset gets a note: a
    headline often restates one cell under another name (snuh_hari-q3-8b_modelcard_excerpt.md)."""
    cells = [c for c in claims if c.evidence.startswith("|")]
    out = []
    for claim in claims:
        same = next(
            (
                cell
                for cell in cells
                if cell is not claim
                and not claim.evidence.startswith("|")
                and words(cell.model) == words(claim.model)
                and cell.value == claim.value
                and (cell.dataset, cell.task_variant) != (claim.dataset, claim.task_variant)
            ),
            None,
        )
        if same is not None:
            where = " ".join(
                filter(None, [same.dataset, same.task_variant, f"({same.setting})" if same.setting else None])
            )
            claim = claim.model_copy(update={"notes": [*claim.notes, f"same value as the table cell for {where}"]})
        out.append(claim)
    return out


def _dataset_facts(flat: str, hf_datasets: list[str]) -> list[DatasetFact]:
    """Datasets the text presents ("We present X, the first ... benchmark"), with size and hub when stated."""
    facts = []
    items = _ITEMS.search(flat)
    for match in list(_PRESENTED.finditer(flat))[:20]:
        name = match.group(1).rstrip(".,")
        hub = next((repo for repo in hf_datasets if repo.lower().endswith("/" + name.lower())), None)
        facts.append(
            DatasetFact(
                name=name,
                items=int(items.group(1).replace(",", "")) if items else None,
                item_unit=items.group(2) if items else None,
                hub=f"https://huggingface.co/datasets/{hub}" if hub else None,
                evidence=flat[match.start() : match.start() + 300],
            )
        )
    return facts

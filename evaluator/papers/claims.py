"""Claims: the numbers a text reports for a model, read from sentences and table cells.

How results are written, each way justified by corpus files (tests/data/reader_corpus):
- a value after the model and a metric, or a metric right after the value: "GPT-4o achieved the highest
  accuracy (83.2%)", "achieved 66.18% accuracy" (kmle_three_llms_abstract.md, gpt4_knlekmd_*.md);
- lists resolved by "respectively": "AUROC, AUPRC, and Brier scores of 0.92, 0.53, and 0.19, respectively"
  (multimodal_icu_mortality_*.md, kmle_three_llms_abstract.md);
- "X vs Y" and "from X to Y" pairs (icu_mortality_calibration_drift_abstract.md, hpi_forward_backward_*.md);
- confidence intervals in parentheses or brackets, never read as values (step_op_ioh_abstract.md,
  hpi_noninvasive_introduction.md);
- percentages and fractions, a 0-100 accuracy read as a fraction;
- table cells by row and column header, the metric and benchmark from the header or the caption.
Numbers that are not results are left out: sample sizes and counts (a unit word or thousands separators after
them), years, thresholds and pass marks, bounds ("over 85%", "< 96.4%", "~60%"), gains ("by 19%"), ranges,
p-values, ranks ("# 12"), and values of people (doctors' 79.9% in snuh_korean_medical_llm_kmle_news_ko.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.papers.names import benchmark_of, benchmarks_in, is_model_name, metric_of, metrics_in, models_in
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.segment import Table
from evaluator.papers.vocabulary import has_percent_hint, read_value, resolve_dataset, settings_of, subset_of

MAX_EVIDENCE = 600
_NUMBER = re.compile(r"(?<![\w.,/#-])(-?(?:\d{1,3}(?:,\d{3})+|\d{1,6})(?:\.\d{1,6})?|-?\.\d{1,6})(?![\d,]\d)( ?%)?")
_UNIT_AFTER = re.compile(
    r"^[ -]?(?:mm ?Hg|min|minutes?|mins?|s\b|sec|seconds?|h\b|hours?|hrs?|days?|weeks?|months?|years?|[BMK]\b|"
    r"billion|million|patients?|participants|subjects|questions|items|cases|admissions|stays|features|"
    r"measurements|samples|models|LLMs|tokens|languages|tasks|datasets|hospitals|institutions|axes|GB|MB|mg|ml|"
    r"kg|percentile|x\b|개|건|명|문항|년|월|일|시간|분|초|만|천|세)",
    re.I,
)
_NOT_BEFORE = re.compile(
    r"(?:\bn ?=|\bN ?=|\bp ?[<=>]|#|\bversion|\bv|\bR2|\bR²|\btop-|\bStep|\b(?:over|more than|less than|at least|"
    r"at most|above|below|under|by|by over|by up to|exceeding|threshold of|cut-?off of|pass mark of|minimum of|"
    r"target|goal)|[<>≤≥~]|합격선|과락|기준|목표)[ :(]{0,3}$",
    re.I,
)
_RANGE = re.compile(r"rang(?:ing|ed|e) (?:from )?$|between $", re.I)
_PEOPLE = re.compile(r"(?:physicians?|doctors?|clinicians?|humans?|experts?|residents|students|의사|전문의)", re.I)
_CI = re.compile(
    r"^[ ,;]{0,2}[(\[]? ?(?:(?:95|90|99) ?% ?(?:CI|confidence intervals?)(?: ?\(CI\))?[:,]? ?)?"
    r"(-?\d{1,3}(?:\.\d{1,6})?) ?%? ?(?:-|–|—|to|,) ?(-?\d{1,3}(?:\.\d{1,6})?) ?%? ?[)\]]"
)
_COMPARED = re.compile(r"\b(?:than|compared (?:with|to)|relative to)\b", re.I)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
_VERSUS = re.compile(r"^[ )\],]{0,60}?\b(?:vs\.?|versus)[ (]{1,3}$", re.I)
_THE_MODEL = re.compile(r"\b(?:the|our|this) (?:[\w-]{1,20} ){0,2}(?:model|system|algorithm|method|index)\b", re.I)
_SKIP_COLUMNS = re.compile(
    r"^(?:#|n|params?|parameters|size|model size|#? ?params?.{0,12}|year|date|release.{0,6}|licen[sc]e|tokens?|"
    r"context.{0,8}|type|open|weights|link|url|base(?: model)?|provider|institution|organi[sz]ation|notes?|"
    r"status|target|duration|phase|aspect|vram.{0,8}|training time)$",
    re.I,
)
_HUMAN_ROW = re.compile(r"^(?:human|physician|doctor|expert|clinician|random|chance|baseline \(human)", re.I)
_CELL_BOUND = re.compile(r"^[<>≤≥~≈]|target|goal|tba|n/?a$", re.I)


@dataclass
class Context:
    """What the claim reader knows about the whole document."""

    subjects: list[str]
    defined: dict[str, str] = field(default_factory=dict)
    last_model: str | None = None
    called_model: str | None = None  # the last name written as "<name> model"


def sentence_claims(sentence: str, context: Context) -> list[ExtractedClaim]:
    """The claims one sentence states."""
    models = list(models_in(sentence, context.defined))
    metrics = metrics_in(sentence)
    if not metrics:  # no claim without a metric: only the model named is remembered
        _remember_model(sentence, models, context)
        return []
    spans = [(p, sentence.find(n, p) + len(n) if sentence.find(n, p) == p else p + 1) for p, n in models]
    numbers = [n for n in _result_numbers(sentence) if not any(s <= n[0] < e for s, e in spans)]
    if not numbers:
        claims = _unvalued(sentence, models, context)
        _remember_model(sentence, models, context)
        return claims
    aligned = _respectively(sentence, numbers, metrics, models)
    claims = []
    for index, (start, end, raw, ci) in enumerate(numbers):
        metric, model = aligned.get(index, (None, None))
        metric = metric or _metric_for(sentence, start, end, metrics)
        if metric is None:
            continue
        model = model or _model_for(sentence, numbers, index, models, context)
        claim = _claim(sentence, raw, metric, model, start, ci)
        if re.search(r"\bfrom $", sentence[max(0, start - 6) : start]) or (
            index and re.search(r"\bfrom [\d.]{1,10} ?%? to $", sentence[max(0, start - 24) : start])
        ):
            claim = claim.model_copy(update={"notes": [*claim.notes, "one end of a change ('from ... to ...')"]})
        claims.append(claim)
    _remember_model(sentence, models, context)
    return claims


_RESULT_WORDS = re.compile(
    r"\b(?:achiev|outperform|surpass|exceed|improv|scor|reach)\w{0,6}|state[- ]of[- ]the[- ]art", re.I
)


def _unvalued(sentence: str, models: list[tuple[int, str]], context: Context) -> list[ExtractedClaim]:
    """A result stated without a number ("achieves state-of-the-art accuracy on ClinicalQA"): one claim per
    benchmark, its value null, so a reviewer sees it and nothing is invented."""
    if not _RESULT_WORDS.search(sentence) or not metrics_in(sentence):
        return []
    stated = any(ch.isdigit() for ch in sentence)
    claims = []
    for position, name in benchmarks_in(sentence):
        before = [n for p, n in models if p < position]
        model = before[-1] if before else _subject_of(sentence, context)
        if model is None:
            continue
        claims.append(
            ExtractedClaim(
                model=model,
                dataset=canonical_dataset(name),
                metric=_metric_for(sentence, position, position, metrics_in(sentence)),
                setting=settings_of(sentence),
                evidence=_clip(sentence, position),
                notes=["no number read as this result's value" if stated else "no number stated"],
            )
        )
    return claims


def _result_numbers(sentence: str) -> list[tuple[int, int, str, tuple[float, float] | None]]:
    found: list[tuple[int, int, str, tuple[float, float] | None]] = []
    skip_until = -1
    for match in _NUMBER.finditer(sentence):
        start, end = match.span()
        if start < skip_until:
            continue
        ci = _CI.match(sentence[end : end + 80])
        if ci:
            skip_until = end + ci.end()
        if _not_a_result(sentence, match):
            continue
        bounds = (float(ci.group(1)), float(ci.group(2))) if ci else None
        found.append((start, end, match.group(0).strip(), bounds))
    return found


def _not_a_result(sentence: str, match: re.Match[str]) -> bool:
    written, start, end = match.group(1), match.start(), match.end()
    before, after = sentence[max(0, start - 30) : start], sentence[end : end + 30]
    if "," in written or _UNIT_AFTER.match(after) or _NOT_BEFORE.search(before) or _RANGE.search(before):
        return True
    if re.match(r"^ ?(?:-|–)\d", after):  # a range "0.84-0.92"
        return True
    if re.match(r"^[ %]{0,2}(?:CI|confidence)", after):  # the level of a confidence interval
        return True
    if written.isdigit() and (1900 <= int(written) <= 2100 or (match.group(2) is None and int(written) > 100)):
        return True
    return bool(_PEOPLE.search(before[-16:]) or _PEOPLE.search(re.split(r"[,;.]", after)[0][:25]))


def _metric_for(sentence: str, start: int, end: int, metrics: list[tuple[int, int, str]]) -> str | None:
    """The metric named nearest before the value in its clause, else right after it ("66.18% accuracy")."""
    before = [m for m in metrics if m[1] <= start and not re.search(r"[;]", sentence[m[1] : start])]
    after = [m for m in metrics if m[0] >= end and m[0] - end <= 12]
    if after and (not before or re.match(r"^ ?%? ?\(?$", sentence[end : after[0][0]])):
        return after[0][2]
    if before:
        return before[-1][2]
    return None


def _model_for(
    sentence: str,
    numbers: list[tuple[int, int, str, tuple[float, float] | None]],
    index: int,
    models: list[tuple[int, str]],
    context: Context,
) -> str | None:
    start = numbers[index][0]
    previous = numbers[index - 1] if index else None
    if previous and _VERSUS.match(sentence[previous[1] : start]) and models:
        # "A outperformed B (AUROC 0.817 vs. 0.795)": the second value is B's, the first the sentence subject's
        named = [n for p, n in models if p < previous[0]]
        return named[-1] if named else None
    nxt = numbers[index + 1] if index + 1 < len(numbers) else None
    if nxt and _VERSUS.match(sentence[numbers[index][1] : nxt[0]]) and len(models) >= 1:
        named = [n for p, n in models if p < start]
        if len(named) >= 2:
            return named[-2]
        return _subject_of(sentence, context) if named else None
    prior = [(p, n) for p, n in models if p < start]
    comparison = _COMPARED.search(sentence, prior[0][0], start) if prior else None
    adjacent = bool(prior) and bool(
        re.match(
            r"^[\w.+-]*(?: (?:algorithms?|models?|methods?))? ?\($", sentence[prior[-1][0] : start].split(" ", 1)[-1]
        )
        or re.match(r"^\S+ \($|^\S+(?: \S+){0,3} (?:algorithms?|models?) \($", sentence[prior[-1][0] : start])
    )
    listed = len(prior) >= 2 and bool(re.search(r"(?:,| and| or) (?:the )?$", sentence[: prior[-1][0]]))
    if comparison is not None and prior[0][0] < comparison.start() and (listed or not adjacent):
        # "STEP-OP ... had greater AUPRC values than those of the RNN and CNN algorithms (0.716 ...)": the value
        # is the subject's, not the compared models'; but "than that of the logistic regression algorithm
        # (0.673 ...)" gives the one compared model's own value (step_op_ioh_abstract.md)
        prior = [(p, n) for p, n in prior if p < comparison.start()]
    if prior:
        return prior[-1][1]
    after = [n for p, n in models if p > start]
    return _subject_of(sentence, context) or (after[0] if len(after) == 1 else None)


def _subject_of(sentence: str, context: Context) -> str | None:
    """ "The model" is the document's one subject; with none, an unnamed model (not guessed: the scalogram
    preprint's "the model" is neither of the two networks it is built from). A sentence naming no model
    continues the one named last (gpt4_korean_medicine_exam_chosun_ko.md)."""
    if _THE_MODEL.search(sentence):
        return context.subjects[0] if len(context.subjects) == 1 else context.called_model
    return context.last_model or (context.subjects[0] if len(context.subjects) == 1 else None)


def _respectively(
    sentence: str,
    numbers: list[tuple[int, int, str, tuple[float, float] | None]],
    metrics: list[tuple[int, int, str]],
    models: list[tuple[int, str]],
) -> dict[int, tuple[str | None, str | None]]:
    """ "M1, M2 and M3 of v1, v2 and v3, respectively": each value gets its metric (or model) by position."""
    word = _RESPECTIVELY.search(sentence)
    listed = [i for i, n in enumerate(numbers) if word and n[0] < word.start()]
    if word is None or len(listed) < 2:
        return {}
    first = numbers[listed[0]][0]
    listed_metrics = _distinct([m[2] for m in metrics if m[1] <= first])
    if len(listed_metrics) > 1:
        listed_metrics = [m for m in listed_metrics if m != "score"]
    listed_models = _distinct([n for p, n in models if p < first])
    group = len(listed) // len(listed_metrics) if listed_metrics and len(listed) % len(listed_metrics) == 0 else 0
    out: dict[int, tuple[str | None, str | None]] = {}
    for k, index in enumerate(listed):
        metric = listed_metrics[k // group] if len(listed_metrics) >= 2 and group else None
        model = listed_models[k] if len(listed_models) == len(listed) else None
        out[index] = (metric, model)
    return out


def _distinct(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _remember_model(sentence: str, models: list[tuple[int, str]], context: Context) -> None:
    if models:
        context.last_model = models[0][1]
    for position, name in models:
        if re.match(r"^[\w.+ -]{0,60}? model\b", sentence[position : position + len(name) + 8]):
            context.called_model = name


def _claim(
    evidence: str, raw: str, metric: str, model: str | None, start: int, ci: tuple[float, float] | None
) -> ExtractedClaim:
    if metric == "score" and re.search(
        r"\baverage (?:score )?of $|\bmean (?:score )?of $", evidence[max(0, start - 20) : start]
    ):
        metric = "average score"  # "scoring an average of 96.4" (kmed_ai_snuh_naver_news.md)
    reading = read_value(raw, metric=metric, score=metric.endswith("score") and "%" not in raw)
    value = reading.value if reading else None
    ci_read = None
    if ci is not None and reading is not None and reading.value is not None:
        scale = 100.0 if ci[1] > 1 and reading.value <= 1 else 1.0
        ci_read = [ci[0] / scale, ci[1] / scale]
    found = benchmarks_in(evidence)
    dataset = _nearest(found, start)
    variant = _year_before(evidence, found, dataset)
    dataset = canonical_dataset(dataset)
    notes = [reading.note] if reading and reading.note else []
    return ExtractedClaim(
        model=model,
        dataset=dataset,
        task_variant=variant,
        metric=metric,
        value=value,
        raw_value=raw,
        unit=reading.unit if reading else None,
        setting=settings_of(evidence),
        ci=ci_read,
        evidence=_clip(evidence, start),
        notes=notes,
    )


def canonical_dataset(name: str | None) -> str | None:
    """A dataset name as the mapping step knows it ("Korean Medical Licensing Examination" is the KMLE)."""
    known = resolve_dataset(name)
    return known.display if known else name


def _year_before(text: str, found: list[tuple[int, str]], dataset: str | None) -> str | None:
    """The exam year written just before the benchmark ("the 2025 KMLE": kmed_ai_snuh_naver_news.md)."""
    for position, name in found:
        year = re.search(r"\b((?:19|20)\d\d) (?:the )?$", text[max(0, position - 10) : position])
        if name == dataset and year:
            return year.group(1)
    return None


def _nearest(found: list[tuple[int, str]], start: int) -> str | None:
    after = [name for position, name in found if position >= start]
    before = [name for position, name in found if position < start]
    return after[0] if after else (before[-1] if before else None)


def _clip(sentence: str, start: int) -> str:
    if len(sentence) <= MAX_EVIDENCE:
        return sentence
    left = max(0, start - MAX_EVIDENCE // 2)
    return sentence[left : left + MAX_EVIDENCE]


_FIELDS = {
    "dataset": ("dataset", "benchmark", "task", "exam"),
    "metric": ("metric",),
    "setting": ("setting", "shots", "prompting", "mode"),
    "variant": ("subset", "split", "variant", "category", "section"),
}


def _long_claims(table: Table) -> list[ExtractedClaim] | None:
    """A long table, one result per row with its fields in named columns (`model,dataset,metric,value`, the
    results CSV a README ships): None when the table is not one."""
    names = [cell.strip().lower() for cell in table.header]
    where = {key: next((i for i, n in enumerate(names) if n in options), None) for key, options in _FIELDS.items()}
    value = next((i for i, n in enumerate(names) if n in ("value", "score", "result")), None)
    model = next((i for i, n in enumerate(names) if n in ("model", "models", "model name", "model id")), None)
    if value is None or model is None or (where["dataset"] is None and where["metric"] is None):
        return None
    claims = []
    for row, line in zip(table.rows, table.lines[1:], strict=False):
        cell = row[value] if value < len(row) else ""
        fields = {k: row[i] if i is not None and i < len(row) else "" for k, i in where.items()}
        label = " ".join(filter(None, [fields["dataset"], fields["metric"], fields["variant"]]))
        claim = _cell_claim(table, fields["setting"], label, row[model], cell, f"{table.lines[0]}\n{line}", False)
        if claim is not None:
            variant = subset_of(fields["variant"]) or fields["variant"] or None
            claims.append(
                claim.model_copy(update={"task_variant": variant, "setting": fields["setting"] or claim.setting})
            )
    return claims


def table_claims(table: Table, context: Context) -> list[ExtractedClaim]:
    """One claim per numeric result cell, by row and column header."""
    if not table.header:
        return []
    long = _long_claims(table)
    if long is not None:
        return long
    corner = table.header[0]
    columns = table.header[1:]
    rows = [row for row in table.rows if row and any(_cell_number(c) for c in row[1:])]
    models_in_header = sum(map(_looks_like_model, columns)) > max(1, sum(_looks_like_model(r[0]) for r in rows))
    by_metric_rows = corner.strip().lower() in ("metric", "metrics", "measure")
    # a table of benchmark columns written on a 0-100 scale: its average column is on that scale too
    percent_table = any(benchmark_of(c) for c in columns) and any(_above_one(c) for r in rows for c in r[1:])
    claims = []
    for row, line in zip(table.rows, table.lines[1:], strict=False):
        if row not in rows or (not models_in_header and _HUMAN_ROW.match(row[0])):
            continue
        for column, cell in zip(columns, row[1:], strict=False):
            if models_in_header:
                model, label = column, row[0]
            elif by_metric_rows or not _looks_like_model(row[0]):
                if len(context.subjects) != 1:
                    continue  # a row of results without a model: only a single-model card says whose
                model, label = context.subjects[0], row[0] + " " + column
            else:
                model, label = row[0], column
            claim = _cell_claim(table, corner, label, model, cell, f"{table.lines[0]}\n{line}", percent_table)
            if claim is not None:
                claims.append(claim)
    return claims


def _looks_like_model(label: str) -> bool:
    label = re.sub(r"\((?:ours|proposed)\)|†|\*", "", label, flags=re.I).strip()
    return bool(label) and not _HUMAN_ROW.match(label) and (is_model_name(label) or bool(list(models_in(label))))


def _cell_number(cell: str) -> str | None:
    cell = cell.strip()
    if not cell or _CELL_BOUND.search(cell):
        return None
    match = re.match(r"^(-?\d{1,3}(?:\.\d{1,6})?|-?\.\d{1,6}) ?(%)?(?: ?\(.{0,40}\)| ?±.{0,20})?$", cell)
    return match.group(1) + (match.group(2) or "") if match else None


def _variant(label: str, dataset: str | None) -> str | None:
    """What a column label adds to its benchmark: a subset ("Doctor"), a year ("KMLE 2024"), or the label."""
    rest = label
    for _, name in benchmarks_in(label):
        rest = rest.replace(name, " ")
    rest = " ".join(rest.split()).strip(" ()-")
    if dataset and canonical_dataset(benchmark_of(label)) == dataset:
        return subset_of(rest) or rest or None
    return subset_of(label) or label.strip() or None


def _above_one(cell: str) -> bool:
    number = _cell_number(cell)
    return number is not None and 1 < float(number.rstrip("%")) <= 100


def _cell_claim(
    table: Table, corner: str, label: str, model: str, cell: str, evidence: str, percent_table: bool
) -> ExtractedClaim | None:
    raw = _cell_number(cell)
    if raw is None or _SKIP_COLUMNS.match(label.strip()) or not model.strip():
        return None
    metric = metric_of(label) or metric_of(corner) or metric_of(table.caption)
    dataset = canonical_dataset(benchmark_of(label) or benchmark_of(corner) or benchmark_of(table.caption))
    percent = percent_table or any(map(has_percent_hint, (corner, table.caption, label)))
    reading = read_value(raw, metric=metric or ("accuracy" if dataset else None), percent_hint=percent)
    if reading is None or reading.value is None:
        return None
    model = re.sub(r"\s?[(\[](?:ours|proposed)[)\]]|†", "", model, flags=re.I).strip()
    return ExtractedClaim(
        model=model,
        dataset=dataset,
        task_variant=_variant(label, dataset),
        metric=metric,
        value=reading.value,
        raw_value=cell[:100],
        unit=reading.unit,
        setting=settings_of(f"{table.caption} {corner} {label}"),
        evidence=evidence[:2000],
        notes=[reading.note] if reading.note else [],
    )

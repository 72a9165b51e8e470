"""What one table cell says: the claim a result cell makes, given its row and column labels, its table's corner and
caption and what the text says about its models and metrics (tables.py decides which cells are results and whose);
and which model a stage column ("| Base | Fine-tuned |") stands for."""

from __future__ import annotations

import re

from evaluator.papers.attribution import Context
from evaluator.papers.claims import canonical_dataset
from evaluator.papers.measures import benchmark_of, benchmarks_in, metric_of, misspelt_metric
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.segment import Table
from evaluator.papers.table_shapes import MODEL_HEADER, NAMES_A_MEASURE, cell_ci, cell_number, not_a_score
from evaluator.papers.vocabulary import canonical_metric, has_percent_hint, read_value, settings_of, subset_of

# a measure named in words: "Semantic Similarity", "OE Keywords" (pubmedbert_pubmedqa_bm25_readme_table.md,
# medical_llm_eval_report_two_finetuned_tables.md)
_WORDS_HEADER = re.compile(
    r"(?:[A-Z]{1,4}|[A-Za-z][a-z]+)(?:[ -][A-Za-z][a-z]+){1,3}\.?"
    # or one noun of a quality: "Correctness", "Completeness" (diagnosis_summary_llm_f1_judge_leaderboard_*.md)
    r"|[A-Z][a-z]{3,20}(?:ness|ity|ance|ence|ency)"
)
_FOOTNOTE_MARK = re.compile(r"[¹²³⁴⁵⁶⁷⁸⁹⁰*†‡§]+")


# a column of one stage of the text's model: "| Metric | Base Model | Fine-tuned LoRA |", "| Subject | Base | Fine-tuned
# |" (nemotron3_nano_medmcqa_lora_readme_by_subject.md, qwen3_medical_r1_sft_full_vs_lora_readme_en.md)
_BASE_STAGE = re.compile(
    r"(?:the )?(?:base|original|pre-?trained|untuned|vanilla)(?: model)?|before (?:fine-?)?tuning", re.I
)
_TUNED_STAGE = re.compile(
    r"(?:(?:full(?: parameter)?|lora|qlora|peft) )?(?:fine-?tuned|tuned|sft)(?: \(?(?:lora|qlora|full)\)?)?(?: model)?"
    r"|after (?:fine-?)?tuning|ours",
    re.I,
)


# or a column of one way of running it: "| Metric | Zero-Shot F1-Score | Few-Shot F1-Score |"
# (clinical_soap_note_mistral7b_zero_vs_few_shot_readme.md), "| Task | CoT | Direct |"
_RUN_STAGE = re.compile(
    r"(?:zero|one|few|\d{1,2})[- ]?shots?|co[Tt]|COT|chain[- ]of[- ]thought|direct(?: prompting)?|"
    r"with(?:out)? (?:rag|RAG|retrieval|cot|CoT)|w/?o? ?(?:RAG|CoT|rag|cot)",
    re.I,
)


def stage_model(column: str, context: Context) -> str | None:
    """The model a stage column stands for: the text's base model for "Base", its one subject for "Fine-tuned", when
    the text says which; None for any other column or when it does not."""
    name = column.strip(" *")
    if _BASE_STAGE.fullmatch(name):
        return context.base_model
    made = [subject for subject in context.subjects if subject != context.base_model]
    run = _RUN_STAGE.match(name)
    rest = name[run.end() :].strip(" -") if run else ""
    staged = _TUNED_STAGE.fullmatch(name) or (run and (not rest or metric_of(rest)))
    return made[0] if staged and len(made) == 1 else None


def _variant(label: str, dataset: str | None) -> str | None:
    """What a column label adds to its benchmark: a subset ("Doctor"), a year ("KMLE 2024"), or the label."""
    rest = label
    for _, name in benchmarks_in(label):
        rest = rest.replace(name, " ")
    rest = " ".join(rest.split()).strip(" ()-")
    if dataset and canonical_dataset(benchmark_of(label)) == dataset:
        return subset_of(rest) or rest or None
    return subset_of(label) or label.strip() or None


def cell_claim(
    table: Table,
    corner: str,
    label: str,
    model: str,
    cell: str,
    evidence: str,
    percent_table: bool,
    metric: str | None = None,
    by_row: bool = False,
    context: Context | None = None,
) -> ExtractedClaim | None:
    raw = cell_number(cell)
    written, label = label, _FOOTNOTE_MARK.sub("", label)  # "Correctness²", "Price³": a footnote mark is no name
    if raw is None or not_a_score(label) or not model.strip():
        return None
    # but "R²" is a metric's own name, read before its mark is taken off
    # a corner heading the models ("| Score | AUROC | Hosmer-Lemeshow Test |", the scores compared) names no metric
    cornered = None if MODEL_HEADER.match(corner.strip()) or corner.strip().lower() == "score" else metric_of(corner)
    metric = metric or metric_of(written) or metric_of(label) or cornered or metric_of(table.caption)
    metric = metric or misspelt_metric(label)
    dataset = canonical_dataset(benchmark_of(label) or benchmark_of(corner) or benchmark_of(table.caption))
    metric_words = context.metric_words if context else {}
    first = re.match(r"[^\W\d_]{3,}", label.strip())
    if metric is None and by_row and context and context.usual_metric and raw.endswith("%"):
        # a percentage in a row of a table whose columns are models, where neither names a measure ("| Subject |
        # Base | Fine-tuned |" over "| Psychiatry | 31.25% | 87.50% |"): the text's one metric
        metric = context.usual_metric
    elif metric is None and first and first.group().lower() in metric_words:
        # a column headed with a task rather than a measure ("| Model | Triage Exact | Specialty (Clinician GT) |")
        # is measured in the metric the text writes after that task ("the best triage accuracy (56.9%) and specialty
        # accuracy on clinician-validated data")
        metric = metric_words[first.group().lower()]
    if (
        metric is None
        and not (percent_table and by_row)  # a benchmark table's row labels are benchmarks, whatever their words
        and not benchmark_of(label)
        and (NAMES_A_MEASURE.fullmatch(label.strip()) or _WORDS_HEADER.fullmatch(label.strip()))
    ):
        # a column headed with what it counts names its own metric: "| Model | Invalid Actions |", "| Win rate |"
        # (medagentbench_sara_rank_parameters_readme.md), and so does a measure the vocabulary does not hold:
        # "| Semantic Similarity |" (pubmedbert_pubmedqa_bm25_readme_table.md)
        metric = label.strip().lower()
    # a "%" in the header says the column's values are percentages; one in the text above the table ("+11.9%
    # uplift") only says so of values above 1: "0.799" under "| Zero-Shot F1-Score |" is a fraction
    # (clinical_soap_note_mistral7b_zero_vs_few_shot_readme.md)
    above_one = 1 < float(raw.rstrip("%")) <= 100
    percent = (
        percent_table
        or has_percent_hint(corner)
        or has_percent_hint(label)
        or (above_one and has_percent_hint(table.caption))
    )
    # a benchmark's result with no measure named is its accuracy when the vocabulary knows it, else its score
    metric = metric or ("accuracy" if dataset else "score" if percent_table else None)
    reading = read_value(raw, metric=metric, percent_hint=percent)
    if reading is None or reading.value is None:
        return None
    # a mark or a citation is not part of the name: "PubmedBERT(Gu et al., 2022)" (medmcqa_paperswithcode_*.md)
    # and so is a reference's number: "Radial SVM [40]" (sepsis_survival_coagulation_heparin_models_table1_jtm.md)
    model = re.sub(
        r"\s?[(\[](?:ours|proposed|[^()\[\]]{1,40} et al\.?,? ?\d{4})[)\]]|†|\s?\[\d{1,3}(?:[,–-] ?\d{1,3}){0,4}\]",
        "",
        model,
        flags=re.I,
    ).strip()
    return ExtractedClaim(
        model=model,
        dataset=dataset,
        task_variant=_variant(label, dataset),
        metric=metric,
        value=reading.value,
        raw_value=cell[:100],
        unit=reading.unit,
        setting=settings_of(f"{table.caption} {corner} {label}"),
        ci=cell_ci(cell, reading.value, raw),
        evidence=evidence[:2000],
        notes=[reading.note] if reading.note else [],
    )


def crossed_measures(columns: list[str]) -> dict[str, str]:
    """The measure of each column of a header that crosses groups with measures ("| General Exact | General Within-1 |
    Clinical Exact | Clinical Within-1 | Valid % |": ed_triage_specialty_llm_benchmark_*_summary.md): the part after
    the group word, where two or more group words each head the same two or more measures; none for other headers."""
    split = {column: column.strip(" *").split(" ", 1) for column in columns}
    pairs = {c: (p[0], p[1].strip()) for c, p in split.items() if len(p) == 2 and p[1].strip()}
    heads = [group for group, _ in pairs.values()]
    pairs = {c: pair for c, pair in pairs.items() if heads.count(pair[0]) >= 2}
    groups = {group for group, _ in pairs.values()}  # the group words: no metric ("ReAcc Pro Med.") nor benchmark
    measures = {measure.lower() for _, measure in pairs.values()}
    crossed = len(groups) >= 2 and len(measures) >= 2 and len(pairs) == len(groups) * len(measures)
    if not crossed or any(metric_of(group) or benchmark_of(group) for group in groups):
        return {}
    # only where the vocabulary knows no metric in the column's words ("Overall Acc." is accuracy already)
    return {column: canonical_metric(measure) for column, (_, measure) in pairs.items() if not metric_of(column)}

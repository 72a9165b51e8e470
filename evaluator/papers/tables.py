"""Table cells read into claims, by row and column header (tables come from segment.py).

Layouts seen in the corpus (tests/data/reader_corpus): models as rows and benchmarks or metrics as columns
(medqa_usa_taiwan_rag_readme.md, lingshu_modelcard_textual_qa_html_table.md), models as columns and subsets as
rows (snuh_hari-q3-8b_modelcard_excerpt.md), a metric/value table of a single-model card
(vitaldb_ioh_cnn_lstm_readme.md), and a long table with model, dataset, metric and value columns (a README's
results CSV). The metric and benchmark come from the header cell, the corner cell or the caption above the table;
a cell that is a bound or a target ("< 96.4%", "~60%", "Target: >=96.4%": kormed_target_96_4_plan.md), a size
or a date column, and rows of people ("Human (expert)": pmc_llama_readme_results.md) give no claim. A cell's
"(-4.9)" or "± 1.1" after its value is not a second value (medexqa_readme_leaderboard.md).
"""

from __future__ import annotations

import re

from evaluator.papers.attribution import Context
from evaluator.papers.journal_tables import with_corner_restored, without_footnote_letters
from evaluator.papers.measures import benchmark_of, metric_of, metrics_in
from evaluator.papers.model_words import AVERAGE
from evaluator.papers.names import is_model_name, models_in
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.segment import Table
from evaluator.papers.table_cells import cell_claim, crossed_measures, stage_model
from evaluator.papers.table_shapes import (
    MODEL_HEADER,
    NAMES_A_MEASURE,
    all_values,
    caption_model,
    cell_number,
    counts_only,
    is_training_log,
    model_column_first,
    not_a_score,
    reported_approximately,
    run_model,
    run_settings,
    with_label_columns_joined,
    with_sub_header,
    without_prior_work,
    without_rank_columns,
)
from evaluator.papers.vocabulary import canonical_metric, settings_of, subset_of

# a first column of reference answers or opponents: "| Ref. response | Win rate |" rows GPT-4, Claude-2 are what the
# model named above the table was compared against, not models with those values (medical_llama2_gpt4_judge_*.md)
_REFERENCE_CORNER = re.compile(r"^(?:ref(?:erence)?\b|vs\.?$|versus|against|opponents?|compared (?:to|with))", re.I)
_HUMAN_ROW = re.compile(
    r"^(?:human|physician|doctor|expert|clinician|random(?![ -]forest)|chance|baseline \(human)", re.I
)


# a first cell that names nobody: "NA", "-", a size "70B" or a bare number, as in a leaderboard whose rows broke over
# lines and slid under the wrong headers (pubmedqa_official_leaderboard_reasoning_required.md)
_NO_NAME = re.compile(r"^(?:N/?A|n/?a|-|—|–|\d{1,4}(?:\.\d{1,3})?\s?[BMK]?|)$")
_VALUE_HEADER = re.compile(r"^(?:scores?|values?|results?)$", re.I)
_FIELDS = {
    "dataset": ("dataset", "benchmark", "task", "exam", "datasets", "benchmarks", "tasks", "groups"),
    "metric": ("metric",),
    "setting": ("setting", "shots", "prompting", "mode"),
    "variant": ("subset", "split", "variant", "category", "section", "data", "set", "partition"),
}


_TRAINING_SPLIT = re.compile(r"^(?:train|training|train set|training set|fit)$", re.I)


def _long_claims(table: Table, subjects: list[str]) -> list[ExtractedClaim] | None:
    """A long table, one result per row with its fields in named columns (`model,dataset,metric,value`, the
    results CSV a README ships; lm-evaluation-harness's "| Tasks |Version|Filter|n-shot| Metric |Value| |Stderr|",
    whose model is the card's one subject: mistral_7b_medmcqa_inst_v1_raw_readme.md): None when the table is not
    one."""
    names = [cell.strip().lower() for cell in table.header]
    where = {key: next((i for i, n in enumerate(names) if n in options), None) for key, options in _FIELDS.items()}
    value = next((i for i, n in enumerate(names) if n in ("value", "score", "result")), None)
    model = next((i for i, n in enumerate(names) if n in ("model", "models", "model name", "model id")), None)
    if value is None or (where["dataset"] is None and where["metric"] is None):
        return None
    if model is None and (where["dataset"] is None or where["metric"] is None):
        return None
    ran = run_model(table.caption) if model is None else None
    if model is None and ran is None and len(subjects) > 1:
        return []  # the results of one of the models the text names, but not which
    # the model the run above the table names, else the text's one subject, else a model the text never names
    # (a harness table on a page that lost its title: medphi3_mini_v1_lm_eval_card_blame.md)
    unnamed = ran or (subjects[0] if subjects else "?")
    claims: list[ExtractedClaim] = []
    full = max((len([c for c in row if c.strip()]) for row in table.rows), default=0)
    above = ""
    for row, line in zip(table.rows, table.lines[1:], strict=False):
        written = [c for c in row if c.strip()]
        if 0 < len(written) < full and all(c.strip() for c in row[: len(written)]):  # its blanks all at the end
            # a row that continues the task above it, its leading cells left out: "none | 0 | acc_norm | 0.5752 |"
            # under "- medmcqa | Yaml | none | 0 | acc | 0.5752 |" (jsl_med_sft_llama3_8b_card_lm_eval_table.md)
            row = [""] * (full - len(written)) + written
        cell = row[value] if value < len(row) else ""
        fields = {k: row[i] if i is not None and i < len(row) else "" for k, i in where.items()}
        fields["dataset"] = fields["dataset"].strip(" -") or above
        above = fields["dataset"]
        if _TRAINING_SPLIT.match(fields["variant"].strip()):
            continue  # a model's fit on its own training data ("| SVM | shock | Train | AUROC | 0.7486 |")
        label = " ".join(filter(None, [fields["dataset"], fields["metric"], fields["variant"]]))
        name = row[model] if model is not None and model < len(row) else unnamed
        metric = canonical_metric(fields["metric"]) if fields["metric"].strip() else None  # "acc_norm" as written
        claim = cell_claim(table, fields["setting"], label, name, cell, f"{table.lines[0]}\n{line}", False, metric)
        if claim is not None and claims and (claims[-1].dataset, claims[-1].value) == (claim.dataset, claim.value):
            continue  # "acc_norm" equal to the "acc" above it: the same result written twice
        if claim is not None:
            variant = subset_of(fields["variant"]) or fields["variant"] or None
            claims.append(
                claim.model_copy(
                    update={
                        "model": None if name == "?" else claim.model,
                        "task_variant": variant,
                        "setting": fields["setting"] or claim.setting,
                        "dataset": claim.dataset or fields["dataset"][:200] or None,  # the task as its column names it
                    }
                )
            )
    return claims


def table_claims(table: Table, context: Context) -> list[ExtractedClaim]:
    """One claim per numeric result cell, by row and column header."""
    if not table.header or is_training_log(table):
        return []
    table = with_corner_restored(without_footnote_letters(reported_approximately(table)))
    table = model_column_first(without_rank_columns(with_sub_header(without_prior_work(table))))
    long = _long_claims(table, context.subjects)
    if long is not None:
        return long
    table = with_label_columns_joined(table)
    corner = table.header[0]
    if _REFERENCE_CORNER.match(corner.strip()):
        return _judged_against(table)
    if all_values(table):
        return _subjects_row(table, context)
    if counts_only(table):
        return []
    columns = table.header[1:]
    rows = [row for row in table.rows if row and any(cell_number(c) for c in row[1:])]
    metric_at = _metric_column(columns)
    # a first column headed "Model" holds the models, whatever the other headers look like, unless its rows are
    # benchmarks ("| Model | Mistral7B | MedAlpaca |" over "| MedQA | 0.307 | 0.338 |": multimedeval_results_readme.md)
    # or metrics ("| Models | VGG-16 | VGG-19 |" over "| Scores | 94.67% | 94.17% |": isic2020_melanoma_*_readme.md)
    rows_models = not MODEL_HEADER.match(corner.strip()) or sum(
        bool(benchmark_of(r[0]) or metric_of(r[0])) for r in rows
    ) * 2 > len(rows)
    models_in_header = metric_at is not None or (
        (rows_models and sum(map(_looks_like_model, columns)) > max(1, sum(_looks_like_model(r[0]) for r in rows)))
        # "| Task | LR | RF |": rows of tasks, so the columns are the models (metre_mimic4_lr_rf_*.md)
        or (
            not MODEL_HEADER.match(corner.strip())
            and bool(_TASK_CORNER.match(corner.strip()))
            and len(columns) >= 2
            and all(
                _looks_like_model(c) or re.fullmatch(r"[A-Z][A-Za-z0-9+-]{1,11}(?: [a-z]{2,6}\.?)?", c.strip())
                for c in columns
                if not not_a_score(c)
            )
        )
    )
    # "| Metric | Base Model | No-Hypotension | Δ |": rows of metrics, columns of the models compared, unless the
    # columns are one model's splits ("| Metric | Validation | Test |") (icu_admission_febrile_oncology_*_report.md)
    compared = [c for c in columns if not not_a_score(c) and not _VALUE_HEADER.match(c.strip())]
    models_in_header = models_in_header or (
        bool(_METRIC_CORNER.fullmatch(corner.strip()))
        and len(compared) >= 2
        and not any(_SPLIT_HEADER.search(c) for c in compared)
    )
    # "| Topic | Base | Fine-tuned |": columns of the stages of the text's model, whatever the rows are
    models_in_header = models_in_header or sum(stage_model(c, context) is not None for c in columns) >= 2
    # a first column headed "Model" or "Method" names models, whatever their shape ("Med-Alpaca", "Chat-Doctor")
    model_column = not models_in_header and bool(MODEL_HEADER.match(corner.strip()))
    # rows of metrics, or of the classes, entities or subjects one model was scored on ("| Class | Precision | Recall
    # |" over "| AFW | 0.6676 | 0.6326 |": medical_ner_koelectra_kbmc_card_rendered.md): the text's one subject's
    by_metric_rows = bool(_METRIC_CORNER.fullmatch(corner.strip())) or bool(
        _CLASS_CORNER.match(corner.strip()) or _TASK_CORNER.match(corner.strip())
    )
    # a table of benchmark columns written on a 0-100 scale: its average column is on that scale too
    # (or of benchmark rows: "| Benchmark | Baichuan-M2-32B |" over "| AIME24 | 83.4 |")
    on_benchmarks = (
        any(benchmark_of(c) for c in columns)
        or re.match(r"(?i)benchmarks?$", corner.strip()) is not None
        # or a leaderboard's "Score" column under a caption naming its benchmark (airesourcehub_medqa_*.md)
        or (
            benchmark_of(table.caption) is not None
            and any(_VALUE_HEADER.match(c.strip()) or re.search(r"(?i)\b(?:avg|average|mean)\b", c) for c in columns)
        )
    )
    percent_table = on_benchmarks and any(_above_one(c) for r in rows for c in r[1:])
    # but a column of fractions beside the percentages is fractions: "| 71.95% | ... | 0.193 |" under "| RougeL |"
    # (ophtimus_ophthalmology_llm_*_github_readme.md)
    fractions = {
        j
        for j in range(len(columns))
        if not models_in_header and not any(_above_one(r[1 + j]) for r in rows if 1 + j < len(r))
    }
    claims = []
    above = last_named = ""
    runs = {} if models_in_header else run_settings(columns, rows)
    crossed = {} if models_in_header else crossed_measures(columns)
    headed = caption_model(table.caption)
    for row, line in zip(table.rows, table.lines[1:], strict=False):
        above = row[0] if row and row[0].strip() else above  # a blank first cell continues the row above
        # and so names the same model: "|Random Forests | 12 hr | ...|" then "|| 24 hr | ...|", a cell spanning rows
        # flattened into Markdown (icu_mortality_mimic3_lr_rf_svc_*_readme_excerpt.md)
        # (the name of a row of results: never a header's or a caption's word)
        if row in rows and row[0].strip():
            last_named = row[0]
        name = row[0] if row and row[0].strip() else last_named
        if row not in rows or (not models_in_header and (_HUMAN_ROW.match(name) or _NO_NAME.match(name.strip()))):
            continue
        written = row[1 + metric_at] if metric_at is not None and metric_at + 1 < len(row) else None
        metric = canonical_metric(written) if written else None
        for at, (column, cell) in enumerate(zip(columns, row[1:], strict=False)):
            if models_in_header:
                staged = stage_model(column, context)  # "| Base | Fine-tuned |": the text's base and its model
                if (not_a_score(column) or AVERAGE.match(column.strip())) and staged is None:
                    continue  # nor an average over the models: "| VGG-16 | ... | AVG |" (isic2020_melanoma_*.md)
                model, label = column, above
                # "| Window | Mortality (XGBoost) |": the task, then the model in brackets (timely_bench_*.md)
                task_model = re.fullmatch(r"([^()]{2,40}?) \(([^()]{2,40})\)", column.strip())
                if task_model and is_model_name(task_model.group(2)) and not is_model_name(task_model.group(1)):
                    model, label = task_model.group(2), f"{above} {task_model.group(1)}"
                if staged:  # the column says which stage or run: its words are the claim's setting
                    model, label = staged, f"{above} {column}"
                own = metric_of(column)  # "| LR prec | LR rec |": the model and its metric in one header cell
                if own and not metric:
                    model, label = _without_metrics(column) or column, f"{above} {column}"
            elif by_metric_rows or not (model_column or _looks_like_model(name)):
                owner = headed or (context.subjects[0] if len(context.subjects) == 1 else None)
                if owner is None or not_a_score(column):
                    continue  # a row of results without a model: only a single-model card says whose
                model, label = owner, row[0] + " " + column
            elif _SETTING_ROW.match(row[0].strip()):
                if len(context.subjects) != 1:
                    continue  # the stages of a model the text does not name once
                model, label = context.subjects[0], column
            else:
                model, label = name, column
            named = metric or _described_metric(row, column) or crossed.get(column)
            evidence = f"{table.lines[0]}\n{line}"
            claim = cell_claim(
                table,
                corner,
                label,
                model,
                cell,
                evidence,
                percent_table and at not in fractions,
                named,
                models_in_header,
                context,
            )
            if claim is not None and id(row) in runs:
                claim = claim.model_copy(update={"setting": ", ".join(filter(None, [claim.setting, runs[id(row)]]))})
            if claim is not None:
                claims.append(_with_setting(claim, row[0]) if _SETTING_ROW.match(row[0].strip()) else claim)
    return claims


# a row of one model at a stage or in a setting, under a "Model" header: "| Pretrained | 0.085 |", "| Fine-tuned |
# 0.475 |" (pubmedbert_pubmedqa_bm25_readme_table.md); whose it is, the text's single subject says
_SETTING_ROW = re.compile(
    r"^(?:(?:the )?(?:pre-?trained|fine-?tuned|base|instruct(?:ion)?-?tuned|zero-?shot|few-?shot|\d{1,2}-?shots?|"
    r"before (?:fine-?tuning|training|tuning)|after (?:fine-?tuning|training|tuning)|w/?o?\.? ?(?:rag|cot|retrieval)|"
    r"with(?:out)? (?:rag|cot|retrieval|fine-?tuning)|"
    # a way of prompting: "| cot | 63.2 |", "| direct | 50.1 |" (pubmedqa_biomistral_cot_vs_direct_readme.md)
    r"cot|chain[- ]of[- ]thought|direct(?: answer(?:ing)?| prompting)?|standard prompting)(?: model)?)$",
    re.I,
)


def _with_setting(claim: ExtractedClaim, row: str) -> ExtractedClaim:
    stage = settings_of(row) or row.strip()
    return claim.model_copy(update={"setting": ", ".join(dict.fromkeys(filter(None, [claim.setting, stage])))})


def _without_metrics(label: str) -> str:
    """A header cell without the metric words the vocabulary finds in it: "LR prec" is "LR"."""
    for start, end, _ in reversed(metrics_in(label)):
        label = label[:start] + label[end:]
    return " ".join(label.split())


_SPLIT_HEADER = re.compile(
    r"\b(?:train(?:ing)?|val(?:id|idation)?|test(?:ing)?|dev|internal|external|cohort|fold|set|overall|mean|average|"
    r"ci|interval|before|after|baseline|target|lower|upper|limit|min|max|range|normal|reference|micro|macro|"
    r"weighted|avg|std|sd|median|iqr)(?:\b|_)",
    re.I,
)
# a corner naming the rows' metrics: "Metric", "Evaluation Metric", "Performance measures", "평가 지표"
_METRIC_CORNER = re.compile(
    r"(?:(?:evaluation|performance|key|primary|main|test|validation) )?(?:metrics?|measures?)(?: names?)?"
    r"|(?:평가 ?)?지표",
    re.I,
)
_CLASS_CORNER = re.compile(r"^(?:class(?:es)?|labels?|entit(?:y|ies)|entity types?|tags?|categor(?:y|ies))$", re.I)
# and a corner naming benchmarks: "| Benchmark | Baichuan-M2-32B | Qwen3-32B (thinking) |" over "| AIME24 | 83.4 |"
# (baichuan_m2_32b_healthbench_readme_en_excerpt.md), whatever the benchmarks' names look like
_TASK_CORNER = re.compile(
    r"^(?:tasks?|outcomes?|endpoints?|prediction tasks?|targets?|benchmarks?|datasets?|evaluation sets?|exams?|"
    r"examinations?|tests?|subjects?)$",
    re.I,
)


def _subjects_row(table: Table, context: Context) -> list[ExtractedClaim]:
    """The row's values as the text's one subject's, or an unnamed model's when the text names none once."""
    model = context.subjects[0] if len(context.subjects) == 1 else ""
    claims = []
    for column, cell in zip(table.header, table.rows[0], strict=False):
        claim = cell_claim(table, "", column, model or "?", cell, "\n".join(table.lines[:2]), _above_one_row(table))
        if claim is not None:
            claims.append(claim if model else claim.model_copy(update={"model": None}))
    return claims


def _above_one_row(table: Table) -> bool:
    return any(_above_one(c) for c in table.rows[0])


# the model a caption says its table is about: "GPT-4 scores for **Alpaca-Llama-2-7b-chat** on MedInstruct-test:"
_CAPTION_FOR = re.compile(r"\bfor (?:the )?([A-Za-z][\w./+-]{1,80})(?: model)?(?: on [^:]{1,80})?:?$")


def _judged_against(table: Table) -> list[ExtractedClaim]:
    """A table whose rows are the references a model was compared with ("| Ref. response | Win rate |" over "| GPT-4
    | 25.9 |"): each cell is the model its caption names, against that row's reference
    (medical_llama2_gpt4_judge_readme.md); with no such model, no claim."""
    named = _CAPTION_FOR.search(table.caption.strip())
    if named is None or not is_model_name(named.group(1)):
        return []
    claims = []
    for row, line in zip(table.rows, table.lines[1:], strict=False):
        for column, cell in zip(table.header[1:], row[1:], strict=False):
            metric = column.strip().lower() if NAMES_A_MEASURE.fullmatch(column.strip()) else metric_of(column)
            claim = cell_claim(table, "", column, named.group(1), cell, f"{table.lines[0]}\n{line}", False, metric)
            if claim is not None and metric is not None:
                claims.append(claim.model_copy(update={"setting": f"against {row[0]}"}))
    return claims


def _described_metric(row: list[str], column: str) -> str | None:
    """Under a plain value header ("Score", "Value", "Result"), the metric the row names, in its first cell or in
    a cell describing it: "| NEET PG 2024 (Subset) | 72.7% | Zero-shot accuracy on ... |"
    (biollama_adapter_readme.md)."""
    if not _VALUE_HEADER.match(column.strip()):
        return None
    return metric_of(row[0]) or next((metric_of(c) for c in row[1:] if not cell_number(c) and metric_of(c)), None)


def _metric_column(columns: list[str]) -> int | None:
    """ "| Model | Metric | RadFM |" over rows "| VQA-RAD | BLEU | 0.535 |", "| | F1 | 0.548 |": a metric column
    names each row's metric, the first column what is measured, the model-like columns whose values they are
    (multimedeval_results_readme.md). Its index among the columns, when there are model-like columns beside it."""
    named = [c.strip().lower() for c in columns]
    if "metric" not in named or not any(map(_looks_like_model, columns)):
        return None
    return named.index("metric")


def _looks_like_model(label: str) -> bool:
    label = re.sub(r"\((?:ours|proposed)\)|†|\*", "", label, flags=re.I).strip()
    return bool(label) and not _HUMAN_ROW.match(label) and (is_model_name(label) or bool(list(models_in(label))))


def _above_one(cell: str) -> bool:
    number = cell_number(cell)
    return number is not None and 1 < float(number.rstrip("%")) <= 100

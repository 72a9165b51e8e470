"""A table's shape, set right before its cells are read (tables.py): rank columns dropped, a "Model" column after
grouping columns moved first, a header written on two rows joined, rows citing the literature left out, and tables
that hold no results (a trainer's log, one row per fold) recognised; and what a cell's number is."""

from __future__ import annotations

import re

from evaluator.papers.measures import benchmark_of, is_benchmark_or_metric, metric_of
from evaluator.papers.names import heading_model, is_model_name
from evaluator.papers.segment import Table, without_trailing_empties

_SPAN = re.compile(r"^-?\d{0,3}\.?\d{1,4} ?[-–] ?\d{0,3}\.?\d{1,4}$")  # "0.915-0.909": a range, a value column's
MODEL_HEADER = re.compile(
    r"^(?:models?|methods?|systems?|model names?|llms?|algorithms?|classifiers?|approach(?:es)?|모델|"
    # and a product's: "| Solution | F1 Score | Cost/1M Notes |" (clinical_deid_*_model_card.md)
    r"solutions?|products?|tools?|vendors?|"
    # the scores a clinical table compares are its models (ward_early_warning_scores_haven_*_pmc.md)
    r"scoring (?:systems?|tools?)|(?:risk|early warning|severity|clinical) scores?|scores|"
    # or a joint corner, "Cohort and Models" (sepsis_ards_mortality_*_scirep_table.md), or the kind of model
    # ("ML models"); not a stage's column ("| Metric | Base Model | Fine-tuned Model |")
    r"(?:[A-Za-z-]{2,20} ){0,2}[A-Za-z-]{2,20}(?: and| &| ?/|,) (?:models?|algorithms?|classifiers?)|"
    r"(?:ML|machine[- ]learning|deep[- ]learning|prediction|predictive|candidate|compared) (?:models?|algorithms?))$",
    re.I,
)
# a cell opening with a bound ("< 96.4%", "~60%") or a word ("TBA", "n/a") is no number already (cell_number)
_CELL_BOUND = re.compile(r"target|goal", re.I)

# a training log, one row per epoch or step ("| Training Loss | Epoch | Step | Validation Loss | Accuracy |", the
# table every Hugging Face trainer card writes): its rows are checkpoints, the card states the result in prose
# (medqa_l3_dpo_trainer_card.md, medqa_linkbert_trainer_card_raw.md)
_LOG_COLUMN = re.compile(r"^(?:epochs?|steps?|global step|iterations?)$", re.I)
_RANK_COLUMN = re.compile(r"^(?:#|no\.?|rank(?:ing)?|pos(?:ition)?|place)$", re.I)


def is_training_log(table: Table) -> bool:
    """A trainer's log, or a table of one row per cross-validation fold, seed or run ("| Fold | ROC-AUC | PR-AUC |"
    over "| 1 | 0.740 | 0.115 |": vitaldb_aki_tcn_gru_lstm_5fold_results_summary.md): checkpoints, not results."""
    names = [cell.strip() for cell in table.header]
    if names and _RUN_COLUMN.match(names[0]) and all(re.fullmatch(r"\d{1,3}", r[0].strip()) for r in table.rows if r):
        return True
    return any(_LOG_COLUMN.match(n) for n in names) and any(re.search(r"\bloss\b", n, re.I) for n in names)


_RUN_COLUMN = re.compile(r"^(?:folds?|seeds?|runs?|repeats?|trials?|splits?|iterations?)(?: ?#| no\.?)?$", re.I)


def without_rank_columns(table: Table) -> Table:
    """The table without its rank columns: "| # | Model | Accuracy |" over "| 1 | o3-mini | 95.19% |" is ranked
    by its first column, in numbers or medals (medqa_leaderboard_aihealthinstitute_ci_table.md,
    airesourcehub_medqa_leaderboard_provider.md)."""
    drop = [
        i
        for i, name in enumerate(table.header)
        if _RANK_COLUMN.match(name.strip())
        and all(
            re.fullmatch(r"\d{1,4}\.?|[\U0001F947-\U0001F949]", row[i].strip()) for row in table.rows if i < len(row)
        )
    ]
    if not drop:
        return table

    def kept(cells: list[str]) -> list[str]:
        return [cell for i, cell in enumerate(cells) if i not in drop]

    return Table(kept(table.header), [kept(row) for row in table.rows], table.lines, table.caption)


def model_column_first(table: Table) -> Table:
    """A table whose "Model" column comes after grouping columns ("| Timeframe | Model | AUC |", "| IDH | Model |
    ..." with the group written once over its rows: covews_timeframe_models_supplementary_table.md,
    intradialytic_hypotension_models_table_pmc9300869.md), with the model column first and the grouping columns
    left out; a row short of cells continues the group above it."""
    at = next((i for i, name in enumerate(table.header) if i and MODEL_HEADER.match(name.strip())), None)
    if at is None or MODEL_HEADER.match(table.header[0].strip()):
        return table
    width = len(table.header)
    before = [row[i] for row in table.rows for i in range(min(at, len(row))) if row[i].strip()]
    decimals = sum(
        1 for cell in before if (cell_number(cell) and re.search(r"[.%]", cell)) or _SPAN.match(cell.strip())
    )
    if before and decimals * 2 > len(before):
        # the columns before it hold values, not groups ("| F1 o3 Rep | F1 Score o3 | Model | Price |":
        # diagnosis_summary_llm_f1_judge_leaderboard_noharm_readme.md): the model column first, the rest kept
        def reordered(cells: list[str]) -> list[str]:
            return [cells[at], *cells[:at], *cells[at + 1 :]] if at < len(cells) else cells

        return Table(reordered(table.header), [reordered(r) for r in table.rows], table.lines, table.caption)

    def moved(cells: list[str]) -> list[str]:
        short = width - len([c for c in cells if c.strip()]) if cells and not cells[-1].strip() else width - len(cells)
        cells = [""] * min(max(short, 0), at) + cells if 0 < short <= at else cells
        return [cells[at], *cells[at + 1 :]] if at < len(cells) else cells

    return Table(moved(table.header), [moved(row) for row in table.rows], table.lines, table.caption)


def with_sub_header(table: Table) -> Table:
    """A header written on two rows, groups over metrics ("| IDH | Model | Internal validation | External validation
    |" over "| AUROC (min-max) | AUPRC (min-max) | AUROC (p-value) | AUPRC (p-value) |":
    intradialytic_hypotension_models_table_pmc9300869.md), as one header row: the second row's labels sit over the
    last columns, each group label over an equal share of them."""
    if len(table.rows) < 2 or any(cell_number(c) for c in table.rows[0]):
        return table
    sub = [c.strip() for c in table.rows[0] if c.strip()]
    if len(sub) < 2 or sum(1 for c in sub if metric_of(c)) < 2:
        return table
    # the rows' width without the empty cells a copied row may end with ("| 4C Mortality Score | 0.786 | ... | |":
    # covid_4c_mortality_score_vs_xgboost_table3_bmj_pmc.md)
    width = max(len(without_trailing_empties(row)) for row in table.rows[1:])
    header = [*table.header, *[""] * (width - len(table.header))][:width]
    first = width - len(sub)
    groups = [c.strip() for c in header[first:] if c.strip()]
    share = len(sub) // len(groups) if groups and len(sub) % len(groups) == 0 else 0
    for k, label in enumerate(sub):
        group = groups[k // share] if share else ""
        header[first + k] = f"{label} {group}".strip()
    return Table(header, table.rows[1:], [table.lines[0], *table.lines[2:]], table.caption)


# the headers of columns that group result rows: "| Category | Benchmark | Baichuan-M1-14B-Instruct | Qwen2.5-14B |"
# over "| Clinical Practice | cmbclin | 77.40 | 71.51 |" (baichuan_m1_14b_instruct_medical_benchmarks_readme_en_*.md)
_GROUP_HEADER = re.compile(
    r"^(?:categor(?:y|ies)|benchmarks?|datasets?|tasks?|domains?|areas?|subjects?|subsets?|sections?|types?|groups?|"
    r"specialt(?:y|ies)|departments?|fields?|exams?|splits?|settings?|outcomes?|cohorts?|capabilit(?:y|ies)|"
    r"skills?|dimensions?|aspects?)$",
    re.I,
)


def with_label_columns_joined(table: Table) -> Table:
    """A table whose rows are labelled by several leading text columns (a category, then the benchmark in it), with
    those columns joined into one label column, so that each row's label names its benchmark; a label repeated by a
    spanning cell ("Average Score" over both) is written once."""
    width = 0
    for i, name in enumerate(table.header):
        cells = [row[i].strip() for row in table.rows if i < len(row)]
        if MODEL_HEADER.match(name.strip()) or name.strip().lower() == "metric" or any(map(cell_number, cells)):
            break
        width = i + 1
    grouped = any(_GROUP_HEADER.match(name.strip()) for name in table.header[:width])
    firsts = [row[0].strip() for row in table.rows if row and row[0].strip()]
    # but a first column of models beside a column describing them ("| Name | Type | MedQA |") is left as it is
    if width < 2 or width == len(table.header) or not grouped or sum(map(is_model_name, firsts)) * 2 > len(firsts):
        return table

    def joined(cells: list[str]) -> list[str]:
        label = " ".join(dict.fromkeys(cell.strip() for cell in cells[:width] if cell.strip()))
        return [label, *cells[width:]]

    header = [
        table.header[width - 1] if _GROUP_HEADER.match(table.header[width - 1].strip()) else joined(table.header)[0]
    ]
    return Table([*header, *table.header[width:]], [joined(row) for row in table.rows], table.lines, table.caption)


_STUDY_COLUMN = re.compile(
    r"^(?:study|studies|reference|ref\.?|paper|source|citation|work|authors?|publication)$", re.I
)
_CITED = re.compile(r"\bet al\b|\(\d{4}\)|\[\d{1,3}\]|\b(?:19|20)\d{2}\b")


def without_prior_work(table: Table) -> Table:
    """The table without its rows from the literature: "| Study | Dataset | Model | AUROC |" over "| Harutyunyan et
    al. (2019) | Real MIMIC-III | LSTM | 0.8590 |" gives a prior paper's figure, not a result of this text; its "This
    Work" row does (mortality_lstm_synthetic_mimic3_technical_report.md)."""
    at = [i for i, name in enumerate(table.header) if _STUDY_COLUMN.match(name.strip())]
    if not at:
        return table
    kept = [
        (row, line)
        for row, line in zip(table.rows, table.lines[1:], strict=False)
        if not any(i < len(row) and _CITED.search(row[i]) for i in at)
    ]
    return Table(table.header, [r for r, _ in kept], [table.lines[0], *[line for _, line in kept]], table.caption)


def cell_number(cell: str) -> str | None:
    cell = cell.strip().lstrip("^*†‡§").strip()  # a mark of the best value: "^0.907" (diagnosis_summary_llm_*.md)
    if not cell or _CELL_BOUND.search(cell):
        return None
    counted = _COUNTED_CELL.match(cell)
    if counted:
        return counted.group(1) + "%"  # "493/500 (98.6%)": the share, as the cell writes it
    match = _CELL.match(cell)
    return match.group(1) + (match.group(2) or "") if match else None


# a count out of a total with its share: "493/500 (98.6%)" (jmle2026_bench_igakuqa120_leaderboard_readme.md)
_COUNTED_CELL = re.compile(r"^\d{1,6} ?/ ?\d{1,6} ?\((\d{1,3}(?:\.\d{1,4})?) ?%\)$")


# a cell's value, perhaps with its interval in brackets ("0.257 [0.248,0.265]": icu_readmission_ode_rnn_attention_*
# .md; "97.6 (96.3, 98.5)") or a spread after it ("71.2 ± 1.1")
_CELL = re.compile(r"^(-?\d{1,3}(?:\.\d{1,10})?|-?\.\d{1,10}) ?(%)?(?: ?\(.{0,40}\)| ?\[.{0,40}\]| ?±.{0,20})?$")


_SKIP_COLUMNS = re.compile(
    r"^(?:#|n|params?|parameters|size|model size|#? ?params?.{0,12}|year|date|release.{0,6}|licen[sc]e|tokens?|"
    r"context.{0,8}|type|open|weights|link|url|base|provider|institution|organi[sz]ation|notes?|"
    r"status|target|duration|phase|aspect|vram.{0,8}|training time|time|run ?time|inference time|support|"
    # the size of a dataset's tables: "| Table | Description | Rows | Columns |"
    r"rows|columns|records|entries|file size|"
    # a column of a spread: "| SE | AUROC |" (sepsis_qsofa_sii_*_table5_*.md)
    r"se|sd|std|s\.e\.|s\.d\.|standard error|standard deviation|"
    # and of a test's p-values, footnote-lettered or not ("Pa value"; "P" alone may be a precision), and of the
    # improvement of one model over another (IDI, NRI: nomogram_vs_sofa_saps2_*.md)
    r"p[a-d]?[- ]?values?[a-d]?|idi|nri|"
    # and of the threshold a result was read at: "| Cutoff | Sensitivity |" (elderly_akd_risk_*_table1_*.md)
    r"cut-?offs?|cut-?off values?|thresholds?)$",
    re.I,
)
# a column of what a result cost or how it was run, not how well: "Input $/1M", "Price", "Latency (s)", "Tokens/s",
# "Params (B)", "Context" (leaderboards beside their scores: medqa_leaderboard_aihealthinstitute_ci_table.md)
_COST_COLUMN = re.compile(
    r"\$|€|\bprices?\b|\bcosts?\b|\busd\b|/ ?1?m\b|\bper (?:1m|million|1k)\b|\blatency\b|\bthroughput\b|tokens? ?/ ?s|"
    r"\bspeed\b|\bparams?\b|\bparameters\b|\bloss\b|\bcontext (?:length|window)\b|\bdate\b|"
    # counts: "# of MCQs" (medmobile_paper_review_html_sizes_table.md), "n_pos", "% pos" (metre_mimic4_lr_rf_*.md)
    r"^#|\bnumber of\b|\bno\. of\b|\bcounts?\b|^n_|^% ?pos|^% ?neg|^n \(%\)|"
    # a difference between two results: "Val-Test Gap" (icu_readmission_30d_lightgbm_mimic4_results_summary.md)
    r"\bgap\b|\bdifference\b|\bdelta\b|^Δ|\bchange\b|\bimprovement\b|"
    # what a run used: "Runtime (s)", "GPU Mem Allocated (MB)", and the data it was given: "Train Split", "Train size"
    # (pubmedqa_llama31_8b_lora_vs_prompting_results_readme.md)
    r"\bruntime\b|\bwall[- ]?clock\b|\((?:m?s|secs?|seconds|mins?|minutes|h|hrs?|hours|[kmgt]i?b)\)|\bmem(?:ory)?\b|"
    r"\bvram\b|\btrain(?:ing)?[ _-]?(?:split|size|samples?|examples?|set size)\b|"
    # the operating point a row was read at: "| Model | Threshold | Sensitivity |" (aki_nephrotoxic_drugs_*.md)
    r"\bthresholds?\b|\bcut-?offs?\b|\boperating point\b|"
    # and the mark an exam is passed at: "| Score | Pass mark | Result |" (chatgpt_medical_exams_review_*_pmc.md)
    r"\bpass(?:ing)?[ -]?(?:marks?|scores?|thresholds?|lines?|grades?)\b|"
    # and the index that chose it, which no text reports as a model's result (postop_aki_*_table2_pmc.md)
    r"\byouden\b|\bhosmer|"
    # nor a test's likelihood ratios: "LR+", "LR–", "PLR", "NLR" (mortality_mla_vs_mews_*_pmc.md, sepsis_qsofa_*.md)
    r"\blikelihood ratio|^(?:LR ?[+–-]|[PN]LR)(?: ?\(|$)|"
    # how common the outcome is: "Train Prevalence", "Test Prevalence" (mimic3_benchmarks_task_statistics_tables.md)
    r"\bprevalence\b|\bincidence\b|"
    # a paper's figures a reproduction cites beside its own: "| Model | Reported Avg. | Experiment Avg. |"
    # (kormedmcqa_lm_eval_harness_reproduction_table_github_issue.md)
    r"^(?:reported|published|claimed|paper'?s?|in the paper)\b|"
    # how many things it was run on: "Examples", "n_samples", "Questions", "Patients"
    r"^(?:#|n|no\.|num)?[ _]?(?:examples|samples|questions|items|cases|patients|shots)$",
    re.I,
)


def not_a_score(label: str) -> bool:
    """A column (or a row, when models head the columns) of what a model is or costs, not of how well it did."""
    spaced = label.replace("_", " ")  # a script's keys: "latency_ms_mean", "yes_correct"
    return any(
        _SKIP_COLUMNS.match(written.strip()) or _COST_COLUMN.search(written) or _COUNTED_COLUMN.search(written)
        for written in {label, spaced}
    )


# how many answers were right, not what share: "yes_correct", "n_correct", "Correct" without a percent
# (pubmedqa_biomistral_cot_vs_direct_readme.md)
_COUNTED_COLUMN = re.compile(r"^(?:\w+ )?correct$|\btokens?\b|\bwords?\b", re.I)


# what a run cost is no part of its setting: "Runtime (s)", "GPU Mem (MB)", "train_loss", "samples_per_sec"
_RUN_COST = re.compile(
    r"\bruntime\b|\btime\b|\bmem|\blatency|\bthroughput|\bspeed|tokens? ?/|\([^()]{1,4}\)$|loss|_per_", re.I
)


def run_settings(columns: list[str], rows: list[list[str]]) -> dict[int, str]:
    """The setting of each run of a model a table lists more than once: the cells of its columns that are not
    results ("Mode", "Train Split", "rank") where they differ between that model's rows. The same scores under
    other settings are other results (pubmedqa_llama31_8b_lora_vs_prompting_results_readme.md), not one restated."""
    by_model: dict[str, list[list[str]]] = {}
    for row in rows:
        by_model.setdefault(row[0].strip(), []).append(row)
    settings: dict[int, str] = {}
    for runs in (group for group in by_model.values() if len(group) > 1):
        described = [
            i
            for i, column in enumerate(columns, start=1)
            if (not_a_score(column) or not any(cell_number(r[i]) for r in runs if i < len(r)))
            and not _RUN_COST.search(column)
            and len({r[i].strip() if i < len(r) else "" for r in runs}) > 1
        ]
        for row in runs:
            cells = [f"{columns[i - 1].strip()} {row[i].strip()}" for i in described if i < len(row) and row[i].strip()]
            settings[id(row)] = ", ".join(cells)[:200]
    return settings


# the run a results table is printed under names its model: the harness's header line ("hf (pretrained=org/name,
# dtype=...)") or the command that ran it, whose last path is the model's folder ("bash eval.sh
# $ROOT/models/Meditron-Apertus-8B": meditron_apertus_8b_lm_eval_results_tables.md)
# an adapter ("peft=org/adapter") is the model run on its base ("pretrained=org/base")
_ADAPTER = re.compile(r"\b(?:peft|delta)=([A-Za-z0-9][\w./-]{1,120}?)(?=[,)\s]|$)")
_PRETRAINED = re.compile(r"\bpretrained=([A-Za-z0-9][\w./-]{1,120}?)(?=[,)\s]|$)")
_COMMAND = re.compile(r"(?:^|\s)(?:bash|sh|python3?|torchrun|accelerate launch|lm_eval|lm-eval)\s", re.I)
_MODEL_PATH = re.compile(r"(?<![\w.])[$~]?[\w.{}-]*(?:/[\w.{}-]+)*/([A-Za-z][\w.-]{2,100})(?![\w./-])")
_FILE = re.compile(r"\.(?:sh|py|json|jsonl|ya?ml|txt|md|csv|log|cfg|toml)$", re.I)


def run_model(caption: str) -> str | None:
    """The model the run printed above a table names, else None."""
    found = _ADAPTER.search(caption) or _PRETRAINED.search(caption)
    if found:
        return found.group(1).rstrip("/")
    if not _COMMAND.search(caption):
        return None
    folders = [m.group(1) for m in _MODEL_PATH.finditer(caption) if not _FILE.search(m.group(1))]
    named = [f for f in folders if re.search(r"\d|-", f)]
    return named[-1] if named else None


# a column headed with what it counts: "Invalid Actions", "Win rate", "Hallucination rate"
NAMES_A_MEASURE = re.compile(
    r"[A-Za-z][A-Za-z -]{0,30}\b(?:rates?|ratios?|counts?|actions|errors|failures|calls|wins|percentage)"
    r"(?: ?\([^()]{1,30}\))?",
    re.I,
)


def counts_only(table: Table) -> bool:
    """A table of counts: whole numbers only, some over 100, under headers naming no metric ("| | Direct correct |
    Direct wrong |" over "| CoT wrong | 76 | 292 |": pubmedqa_biomistral_cot_vs_direct_readme.md)."""
    cells = [cell_number(c) for row in table.rows for c in row[1:] if c.strip()]
    numbers = [c for c in cells if c is not None]
    return (
        bool(numbers)
        and len(numbers) == len(cells)
        and all(re.fullmatch(r"\d{1,9}", n) for n in numbers)
        and any(int(n) > 100 for n in numbers)
        and not any(metric_of(h) or NAMES_A_MEASURE.fullmatch(h.strip()) for h in table.header)
    )  # but "| Model | Invalid Actions |" counts what it measures (medagentbench_sara_rank_parameters_readme.md)


def all_values(table: Table) -> bool:
    """A table of one row of values under benchmark names, no column of models: "| Pubmedqa | Medmcqa | USMLE |"
    over "| 76.8 | 47.21 | 47.62 |" (biomistral_merged_zephyr_ties_card_rendered.md)."""
    return (
        len(table.rows) == 1
        and len(table.header) >= 2
        and all(cell_number(c) for c in table.rows[0] if c.strip())
        and sum(1 for h in table.header if benchmark_of(h) or metric_of(h)) * 2 >= len(table.header)
    )


# a results table that writes every value as approximate: "| CatBoost | Tabular | ~0.99 | ~0.63 |" under "| Model |
# Modality | AUROC | AUPRC |" (sepsis_6h_early_warning_mimic3_catboost_clinicalbert_fusion_readme.md) reports rounded
# results; a plan's "~60%" beside phases and targets (kormed_target_96_4_plan.md) stays no result
_APPROXIMATE = re.compile(r"^[~≈∼] ?(?=[\d.])")
_PLANNED = re.compile(r"\b(?:target|goal|expected|planned|plan|phase|estimate[sd]?|projected)\b", re.I)


def reported_approximately(table: Table) -> Table:
    """The table with the approximation marks of a results table's values taken off (see above)."""
    cells = [c.strip() for row in table.rows for c in row[1:] if re.search(r"\d", c)]
    marked = [c for c in cells if _APPROXIMATE.match(c)]
    words = " ".join([table.caption, *table.header, *(c for row in table.rows for c in row)])
    if (
        not marked
        or len(marked) * 5 < len(cells) * 4
        or _PLANNED.search(words)
        or not any(map(metric_of, table.header))
    ):
        return table
    rows = [[_APPROXIMATE.sub("", c.strip()) for c in row] for row in table.rows]
    return Table(table.header, rows, table.lines, table.caption)


_CELL_CI = re.compile(
    r"[(\[] ?(?:95% ?CI:? ?)?(-?\d{1,3}(?:\.\d{1,6})?) ?%? ?(?:,|-|–|to) ?(-?\d{1,3}(?:\.\d{1,6})?) ?%? ?[)\]]$"
)


def cell_ci(cell: str, value: float, raw: str) -> list[float] | None:
    """The interval a cell writes after its value, on the value's scale."""
    match = _CELL_CI.search(cell.strip())
    if match is None:
        return None
    low, high = float(match.group(1)), float(match.group(2))
    scale = float(raw.rstrip("%")) / value if value else 1.0
    low, high = low / scale, high / scale
    return [low, high] if low <= value <= high else None


def caption_model(caption: str) -> str | None:
    """The one model a table's heading names, in a report with a section per model: "#### llama-2-FineTuned -
    Category Performance" over "| Category | Accuracy |" (medical_llm_evaluation_report_llama2_mixtral_*.md)."""
    heading = re.search(r"#{2,6} ([^#]{2,80})$", caption)
    if heading:
        return heading_model(heading.group(1))
    # or a journal table's caption, of one model's results: "... according to the machine learning method (XGBoost)"
    # (critical_interventions_xgboost_table_pmc.md), "Performance of the XGBoost model in the test cohort"
    named = {m.group(1) or m.group(2) for m in _CAPTION_MODEL.finditer(caption)}
    named = {name for name in named if is_model_name(name) and not is_benchmark_or_metric(name)}
    return named.pop() if len(named) == 1 else None


_CAPTION_MODEL = re.compile(
    r"\b(?:model|method|algorithm|classifier)s? \(([A-Z][\w.+-]{1,30}(?: [\w.+-]{1,20}){0,2})\)"
    r"|\bof the ([A-Z][\w.+-]{1,30}) (?:model|algorithm|classifier)\b"
)

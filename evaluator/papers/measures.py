"""What results are measured on and with: benchmark names (from the catalog and a short list of well-known ones)
and metric words, and whether a name is one of them (a benchmark or a metric is never a model)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any

SPECS = Path(__file__).resolve().parent.parent / "specs" / "catalog"

# well-known benchmarks and datasets results are reported on (the catalog adds its names and aliases)
KNOWN_BENCHMARKS = (
    "ClinicalQA",
    "KorMedMCQA",
    "KMLE",
    "Korean Medical Licensing Examination",
    "K-NLEKMD",
    "KPLE",
    "MedQA",
    "MedQA-USMLE",
    "USMLE",
    "MedMCQA",
    "PubMedQA",
    "MMLU",
    "MMLU-Med",
    "MMLU-Pro",
    "MedBench",
    "MedExQA",
    "MedARC-QA",
    "MedConceptsQA",
    "Medbullets",
    "MedXpertQA",
    "SuperGPQA",
    "SuperGPQA-Med",
    "MultiMedQA",
    "HealthBench",
    "NEET PG",
    "AIIMS",
    "MIMIC-III",
    "MIMIC-IV",
    "MIMIC-CXR",
    "MIMIC",
    "eICU",
    "eICU-CRD",
    "HiRID",
    "VitalDB",
    "CheXpert",
    "VQA-RAD",
    "SLAKE",
    "PathVQA",
    "PMC-VQA",
    "OmniMedVQA",
    "MMMU-Med",
    "IU-Xray",
    "BioASQ",
    "HeadQA",
)
METRIC_WORDS = (
    # an averaged AUC or F1 is another number than the plain one: a table's "macro AUC | micro AUC | macro F1 | micro
    # F1" (icd_coding_benchmark_caml_*_readme.md); a macro F1 stays the F1 most texts mean
    ("macro auc", r"macro[- ](?:averaged[- ])?AUC|AUC[- ]macro"),
    ("micro auc", r"micro[- ](?:averaged[- ])?AUC|AUC[- ]micro"),
    ("micro f1", r"micro[- ](?:averaged[- ])?F1(?:[- ]score)?|F1[- ]micro"),
    (
        "auroc",
        # and the concordance statistic of a binary outcome ("C-statistics of 0.862": vasopressor_onset_*_record.md)
        r"AUROC|AUC-?ROC|ROC[- ]?AUC|C[- ]statistics?|"
        r"areas? under the (?:(?:receiver[- ])?operat(?:ing|or)(?:[- ]characteristics?)?|ROC) curves?",
    ),
    (
        "auprc",
        r"AUPRC|AUPR|AUC-PR|PR[- ]AUC|area under the precision[- ]recall curves?|average precision|"
        # the second of two areas named once: "The areas under the receiver operating characteristic curve and the
        # precision-recall curve were 0.891 ... and 0.861 ..., respectively" (poaf_cardiac_surgery_xgboost_*.md)
        r"(?<=curve and )the precision[- ]recall curve",
    ),
    ("auc", r"AUC|area under the curve|T-?AUC|time-dependent AUC"),  # "The TAUCs of the implemented model were ..."
    # "Test Set (Acc-%)" (medmcqa_paperswithcode_*.md); and said in words: "correctly answering 93.1%", "less
    # accurate in the M1 (GPT-3.5 77.10%, ...)" (german_m1_m2_gpt_gemini_gma2024_egms_abstract.md)
    # a mean count of right answers, not a share: "the highest mean correct answers (46.4±0.548)" of 50
    # (tus_emergency_medicine_six_llms_*.md)
    ("mean correct answers", r"mean (?:number of )?correct (?:answers|responses)"),
    # a balanced accuracy is another number than the accuracy (giant_multipathqa_*_results.md, septic_shock_rf_*.md)
    ("balanced accuracy", r"balanced accuracy"),
    (
        "accuracy",
        r"accuracy|accuracies|acc\.?|acc-%|정답률|정확도|correctly answer(?:ed|ing|s)?|answered correctly|accurate|"
        # "a significantly higher correct response rate (73.8%)" (jnde_117th_gpt4o_vs_gpt4_*_abstract.md)
        r"correct (?:response|answer)s? rates?|(?:rate|percentage|proportion) of correct (?:responses|answers)|"
        # "(both 76% correct answers)" (antwerp_exam_six_chatbots_medrxiv_abstract.md), "answered 68% of the
        # questions correctly"
        r"correct (?:answers|responses)|(?:answered|answer|answers)(?= (?:only |just |nearly |about |approximately |"
        r"over |under )?"
        r"\d{1,3}(?:\.\d{1,2})? ?% of (?:the |all )?(?:[\w-]+ ){0,2}"
        r"(?:questions|items|cases|answers) correctly)",
    ),
    # a weighted F1 is another number than the (macro) F1 (pubmedbert_vs_bert_base_pubmedqa_finetune_readme.md)
    ("f1 weighted", r"weighted[- ]F1(?:[- ]score)?|F1[- ](?:score[- ])?weighted|F1 \(weighted\)"),
    # and "F 1 scores", spaced by a PDF's extraction (ra_cnn_interpatient_ecg_*_abstract.md)
    (
        "f1",
        r"F1(?:[- ]?score)?|F 1[- ]scores?|macro[- ]F1|F1 ?점수",
    ),  # and "F1score" (mortality_five_algorithms_*_pmc.md)
    # a table's "Sens." and "Spec." (covews_timeframe_models_supplementary_table.md); the period is needed
    # and a table header's "Sen (95% CI)", "Spec (95% CI)" (critical_interventions_xgboost_table_pmc.md), capitalised
    ("sensitivity", r"sensitivity|sens\.|(?-i:Sens?|SENS?)(?= ?\(|$)|민감도|감도"),
    ("specificity", r"specificity|spec\.|(?-i:Spec|SPEC)(?= ?\(|$)|특이도"),
    ("precision", r"precision|prec\.?|PPV|positive predictive value|정밀도|양성 ?예측도"),
    # its own metric, so a negative predictive value is not read as the specificity named before it
    # (hpi_discrimination_calibration_cardiac_abstract.md)
    ("npv", r"NPV|negative predictive value|음성 ?예측도"),
    ("recall", r"recall|rec\.?|재현율"),  # Korean: cardiac_arrest_8h_vital_signs_*_ko.md
    ("false alarm rate", r"false[- ]alarm rates?|오경보율"),
    ("brier", r"(?:integrated )?Brier(?: score)?"),
    # a binary classifier's Matthews correlation (icu_intubation_ml_models_test_set_scirep_table.md)
    ("mcc", r"MCC|Matthews(?:'s?)? correlation(?: coefficient)?"),
    # a classifier's calibration (early_horizon_multimodal_icu_mortality_*.md: "expected calibration error, ECE 0.038")
    ("ece", r"ECE|expected calibration error"),
    # a survival model's concordance (cancer_patient_survival_deephit_seblock_cnn_seer_readme_ko.md)
    ("c-index", r"C-index|concordance index|Harrell'?s C"),
    ("calibration slope", r"calibration slope|slope"),
    # a calibration ratio, and its inverse (icu_mortality_mimic_eicu_logistic_abstract.md)
    ("expected-to-observed ratio", r"expected[- ]to[- ]observed(?: \(E/O\))? ratio|E/O ratio"),
    ("observed-to-expected ratio", r"observed[- ]to[- ]expected(?: \(O/E\))? ratio|O/E ratio"),
    ("calibration intercept", r"intercept"),
    (
        "exact match",
        r"exact[-_ ]match|(?-i:EM)",
    ),  # "EM (%)" in capitals only: "em" is a word in Portuguese  # "exact_match" is a harness's key
    # errors of a regression, such as a predicted depth of anaesthesia (anesthesia_depth_combinatorial_eeg_*.md)
    ("rmse", r"RMSE|root[- ]mean[- ]squared?[- ]error"),
    # and of a length of stay or a stroke volume (tpc_los_eicu_mimic4_rocheteau_project_page.md,
    # apco_cnn_transfer_learning_jmir_medinform_abstract.md)
    ("mape", r"MAPE|mean absolute percentage error"),
    ("mae", r"MAE|mean absolute error|absolute errors?"),
    ("mad", r"MAD|mean absolute deviation"),
    ("msle", r"MSLE|mean squared log(?:arithmic)? error"),
    ("mse", r"MSE|mean squared error"),
    ("reproducibility", r"reproducibility"),
    # text-overlap scores, which are no model ("a BERTScore of 0.86": arahealthqa_llm_majority_voting_*.md); each
    # keeps its written variant ("BLEU-4", "ROUGE-L")
    ("log loss", r"log[- ]?loss|cross[- ]entropy(?: loss)?"),  # "AUC 0.806 and log loss 0.243" (eicu_simple_*.md)
    # a regression's explained variance and a correlation (icu_mortality_los_24h_mimic4_xgboost_elastic_net_*.md)
    ("r2", r"R²|R2|R[- ]squared?|coefficient of determination"),  # "Nagelkerke's R-Square (%)" (ed_pneumonia_*.md)
    ("pearson correlation", r"Pearson(?:'s)? (?:correlation(?: coefficient)?|r)"),
    # BERTScore's three numbers, each its own (summarizer_clinical_jsl_*_model_doc.md: "bertscore_precision")
    # agreement beyond chance: "kappa: 0.476 for ChatGPT and 0.414 for Copilot" (chatgpt_copilot_ed_*_abstract.md)
    ("weighted kappa", r"(?:quadratic(?:ally)?[- ])?weighted (?:kappa|κ)|QWK"),
    ("kappa", r"(?:Cohen['’]s |Fleiss['’] )?kappa|κ"),
    # the overlap of a segmentation with its reference (ventilator_*_unet_*_abstract.md, pneumonia_unet_*_abstract.md)
    ("dice", r"Dice(?:[- ](?:similarity[- ])?(?:coefficients?|scores?|index))?|DSC"),
    ("bertscore precision", r"BERT ?Score[ _-](?:precision|P)"),
    ("bertscore recall", r"BERT ?Score[ _-](?:recall|R)"),
    ("bertscore f1", r"BERT ?Score[ _-]F1"),
    ("bertscore", r"BERT ?Score"),
    ("rouge-1", r"ROUGE-?1"),
    ("rouge-2", r"ROUGE-?2"),
    ("rouge-l", r"ROUGE-?L(?:sum)?"),
    ("rouge", r"ROUGE(?![ _-]?(?:[12]|L\b|Lsum))"),  # a table's bare "rouge" column
    ("bleu-1", r"BLEU-1"),
    ("bleu-4", r"BLEU-4"),
    ("bleu", r"BLEU"),
    ("meteor", r"METEOR"),
    ("score", r"score[sd]?|scoring|점수"),
)
_METRIC = re.compile(
    # a Korean particle may follow ("정답률은", "정답률로": gpt4_korean_medicine_exam_news_ko.md)
    # a plural counts ("ROC AUCs ... were 0.87, 0.81 and 0.69": lepmap_ioh_linear_extrapolation_abstract.md)
    r"(?<![\w-])(?:" + "|".join(f"(?P<m{i}>{p})" for i, (_, p) in enumerate(METRIC_WORDS)) + r")s?(?![A-Za-z0-9_-])",
    re.I,
)


@cache
def benchmark_names() -> frozenset[str]:
    """Benchmark names: the catalog's names and short aliases and the well-known ones."""
    names = set(KNOWN_BENCHMARKS)
    for path in sorted(SPECS.glob("*.json")):
        try:
            page = json.loads(path.read_text(encoding="utf-8")).get("page", {})
        except (OSError, ValueError):
            continue
        names.update(n for n in [page.get("name"), *page.get("aliases", [])] if isinstance(n, str) and len(n) <= 40)
    return frozenset(names)


@cache
def benchmark_pattern() -> re.Pattern[str]:
    """Any benchmark name, the longest at each place (bench/reader_speed.py compares it with the plain alternation)."""
    return re.compile(r"(?<![\w-])(" + _trie_pattern(benchmark_names()) + r")(?![\w-]*\w)", re.I)


def _trie_pattern(names: frozenset[str]) -> str:
    """One alternation of `names` as a trie ("med(?:qa|mcqa)"), matching the longest name at each place as the plain
    alternation did, but trying each letter once instead of every name: a few times faster over long texts."""
    trie: dict[str, Any] = {}
    for name in names:
        node = trie
        for char in name.lower():
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


def benchmarks_in(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group(1)) for m in benchmark_pattern().finditer(text)]


def benchmark_of(text: str) -> str | None:
    found = benchmarks_in(text)
    return found[0][1] if found else None


# the acronym of a bedside score before the word "score" (qsofa_based_ml_*_pmc_abstract.md); an exam's or a metric's
# ("USMLE score", "BLEU score") is measured, not named, and is told apart by the vocabulary; a noun after a determiner
# or a preposition, not the verb after a model ("GPT-5 scores 73%": usmle_to_consulting_room_*.md)
_NAMED_SCORE = re.compile(
    r"\b(?:the|a|an|of|with|and|or|than|vs\.?|versus) ((?-i:q?[A-Z]{2,8}(?: (?:II|III|IV))?)) $", re.I
)

# a score that is a kind of model, a tool of the bedside (covid_icu_mortality_gbdt_*_cord_record.md)
_SCORE_KIND = re.compile(
    r"\b(?:clinical|risk|severity|prognostic|early[- ]warning|triage|illness|mortality|traditional|conventional|"
    r"existing|established) $",
    re.I,
)


_KEY_JOIN = re.compile(r"(?<=[A-Za-z0-9])_(?=(?:score|auc)\b)|(?<=\b(?:roc|ROC))_|(?<=\b(?:pr|PR))_")


# the metrics a text defines itself ("we introduce ReAcc and ReCon, two reliability metrics": remedqa_*_page.md), for
# the reading of that one text (rules.read_rules sets them), so that the columns headed with them are measured in them
_DEFINED_METRICS: ContextVar[re.Pattern[str] | None] = ContextVar("defined_metrics", default=None)
_NAMED_METRIC = r"([A-Z][A-Za-z0-9@-]{1,20})"
_INTRODUCED = re.compile(
    _NAMED_METRIC + r"(?:,? and " + _NAMED_METRIC + r")?,? (?:(?:two|three|new|novel|our|complementary|proposed) ){1,2}"
    r"(?:[a-z-]{3,20} ){0,2}(?:metrics|measures)\b"
    r"|\b(?:new|novel|proposed) (?:[a-z-]{3,20} ){0,2}(?:metric|measure),? (?:called |named |termed |dubbed )?"
    + _NAMED_METRIC
)


def defined_metrics(text: str) -> re.Pattern[str] | None:
    """The names of the metrics `text` introduces, as one pattern, or None when it introduces none."""
    names = {
        name
        for match in _INTRODUCED.finditer(text[:50_000])
        for name in match.groups()
        if name and not _METRIC.fullmatch(name) and not benchmark_pattern().fullmatch(name)
    }
    if not names:
        return None
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?![\w-])")


# and the datasets it names as datasets: "build new benchmark MedVQA datasets R-RAD, R-SLAKE and R-Path", whose names
# are shaped like models' ("83.5% on R-RAD, 86.3% on R-SLAKE": medthink_rationale_*_abstract.md)
_DEFINED_DATASETS: ContextVar[re.Pattern[str] | None] = ContextVar("defined_datasets", default=None)
_DATASET_NAME = r"[A-Z][A-Za-z0-9]{0,20}(?:-[A-Za-z0-9]{1,20}){0,3}"
_LISTED_DATASETS = re.compile(
    r"\b(?:datasets|data sets|benchmarks|test sets|corpora)(?:,? (?:namely|i\.e\.,?|including|called|named))?:? "
    r"(" + _DATASET_NAME + r"(?:, " + _DATASET_NAME + r"){0,6},? (?:and|or) " + _DATASET_NAME + r")(?![\w-])"
)


def defined_datasets(text: str) -> re.Pattern[str] | None:
    """The names `text` lists as its datasets or benchmarks, as one pattern, or None when it lists none."""
    names = {
        name
        for match in _LISTED_DATASETS.finditer(text[:50_000])
        for name in re.split(r",? (?:and|or) |, ", match.group(1))
        if len(name) >= 3 and not _METRIC.fullmatch(name)
    }
    if not names:
        return None
    return re.compile("|".join(map(re.escape, sorted(names, key=len, reverse=True))))


@contextmanager
def metrics_defined_by(text: str) -> Iterator[None]:
    """While the block runs, the metrics `text` defines are metrics (see `defined_metrics`), and the datasets it lists
    as its datasets are benchmarks (`defined_datasets`)."""
    token = _DEFINED_METRICS.set(defined_metrics(text))
    listed = _DEFINED_DATASETS.set(defined_datasets(text))
    try:
        yield
    finally:
        _DEFINED_METRICS.reset(token)
        _DEFINED_DATASETS.reset(listed)


def metrics_in(text: str) -> list[tuple[int, int, str]]:
    """(start, end, canonical name) of every metric word in `text`, and of the metrics the text being read defines."""
    own = _DEFINED_METRICS.get()
    if own is not None:
        defined = [(m.start(), m.end(), m.group(1).lower()) for m in own.finditer(text)]
        if defined:
            covered = {i for start, end, _ in defined for i in range(start, end)}
            rest = [m for m in _metrics_in(text) if m[0] not in covered]
            return sorted(defined + rest)
    return _metrics_in(text)


def _metrics_in(text: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    # a program's key joins a metric's words with an underscore: "F1_score", "roc_auc" (icu_intubation_*_table.md);
    # not its variant's ("acc_norm" is no accuracy)
    for match in _METRIC.finditer(_KEY_JOIN.sub(" ", text) if "_" in text else text):
        name = next(METRIC_WORDS[int(k[1:])][0] for k, v in match.groupdict().items() if v)
        if name == "score" and found and match.start() - found[-1][1] <= 3:
            continue  # "(AUPRC) scores", "Brier score": the score of the metric just named
        if name == "score" and _SCORE_KIND.search(text[max(0, match.start() - 24) : match.start()]):
            continue  # "than the clinical scores APACHE2 (0.63 ...)": the kind of model compared, not a metric
        named = _NAMED_SCORE.search(text, max(0, match.start() - 16), match.start())
        if name == "score" and named and not is_benchmark_or_metric(named.group(1)):
            continue  # "than that of the qSOFA scores (0.78 ...)", "the MEWS score": a tool's name, not a metric
        found.append((match.start(), match.end(), name))
    return found


def metric_of(text: str) -> str | None:
    found = metrics_in(text)
    return found[0][2] if found else None


# the long metric words a table's header may misspell: "Acurracy (95%CI)" (postop_aki_*_table2_pmc.md), "Specifity"
_SPELT = ("accuracy", "sensitivity", "specificity", "precision")


def misspelt_metric(label: str) -> str | None:
    """The metric a header's first word misspells by a letter or two, else None."""
    first = re.match(r"[A-Za-z]{7,14}", label.strip())
    if first is None:
        return None
    word = first.group().lower()
    return next((name for name in _SPELT if SequenceMatcher(None, word, name).ratio() >= 0.84), None)


_SIGNAL_IMAGING_DATA = re.compile(
    r"MIT-BIH(?: [\w-]+)?|PTB-XL|PTB|CHB-MIT|CPSC ?\d{0,4}|PhysioNet(?: \d{4})?|OMI-DB|CBIS-DDSM|DDSM|INbreast|"
    r"ISIC(?: ?\d{4})?|BraTS(?: ?\d{4})?|TCGA(?:-[A-Z]{2,4})?|LIDC(?:-IDRI)?|Camelyon ?1[67]|ChestX-?ray ?14|"
    r"VinDr(?:-[\w]+)?|CheXpert|Kvasir(?:-[\w]+)?|EyePACS|APTOS(?: ?\d{4})?|Messidor(?:-2)?|SLAKE|VQA-RAD|PathVQA"
)


def is_benchmark_or_metric(name: str) -> bool:
    own, listed = _DEFINED_METRICS.get(), _DEFINED_DATASETS.get()
    if (own is not None and own.fullmatch(name)) or (listed is not None and listed.fullmatch(name)):
        return True
    head = name.split("-", 1)[0]
    found = benchmark_pattern().fullmatch(name) or _METRIC.fullmatch(name) or _METRIC.fullmatch(name[:-1])
    variant = "-" in name and benchmark_pattern().fullmatch(head) is not None  # "MedQA-U...", a benchmark variant
    # a name built like a benchmark's is one, catalogued or not: "MedAgentBench", "CURE-Bench", "HealthBench",
    # "KorMedMCQA-V"; not "...QA" ("GrapeQA" is a model) (medagentbench_sara_rank_parameters_readme.md)
    shaped = bool(re.search(r"(?:Bench|Benchmark|MCQA|Eval|Arena)(?:[ -]?v?\d{1,2}(?:\.\d)?|-[A-Z])?$", name))
    return (
        found is not None
        or variant
        or shaped
        or bool(re.fullmatch(r"(?:MIMIC|eICU|HiRID)[\w-]*|[A-Z]{1,2}\d{0,2}|\d+", name))
        # and the signal and imaging datasets models are trained and tested on, which texts write like names
        or bool(_SIGNAL_IMAGING_DATA.fullmatch(name))
    )


# words any metric may follow, so that they say nothing of a column they head: "the accuracy", "overall AUROC"
_ANY_METRIC = re.compile(
    r"(?:the|and|its|their|with|overall|mean|average|best|highest|lowest|higher|lower|top|test|validation|models?|our|"
    r"this|that|which|whose|was|were|had|has|achieved|reached)",
    re.I,
)


def metric_words(text: str) -> dict[str, str]:
    """The word written before each metric ("triage accuracy", "specialty accuracy"), when only one metric follows
    it in the text; a table's column headed with that word ("| Triage Exact |") is measured in that metric."""
    seen: dict[str, set[str]] = {}
    for start, _, name in metrics_in(text[:50_000]):
        before = re.search(r"([^\W\d_]{3,})[ -]$", text[max(0, start - 40) : start])
        if before and name != "score" and not _ANY_METRIC.fullmatch(before.group(1)):
            seen.setdefault(before.group(1).lower(), set()).add(name)
    return {word: names.pop() for word, names in seen.items() if len(names) == 1}

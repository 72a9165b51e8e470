"""Names of models in a text, found by their shape, without a list of known models (benchmarks and metrics are in
measures.py).

A model name is recognised by how model names are written:
- a repo id `org/name` (BioMistral/BioMistral-7B-DARE in biomistral_paperswithcode_results.md);
- a word with a digit: a version or size glued to it (GPT-4o, Qwen3-8B, LLaMA-2, Phi-2, o1-mini);
- a capitalised word followed by a version, a size or a tier word (Claude 3.5 Sonnet, Gemini 1.5 Pro,
  Med-PaLM 2, Mistral 7B, Mixtral 8x7B: kmle_three_llms_abstract.md, medqa_usa_taiwan_rag_readme.md);
- a word with inner capitals or a capitalised hyphenated word (BioMistral, OpenBioLLM, XGBoost, Med-PaLM,
  STEP-OP: step_op_ioh_abstract.md);
- a capitalised word of a known model family (GPT, Claude, Gemini, Mistral, ...) only as a hint that a bare
  word such as "Mistral" or "Gemini" is a model (openbiollm_70b_card_intro.md);
- the learning methods clinical prediction papers compare (logistic regression, random forest, gradient
  boosting, CNN, RNN: icu_mortality_*.md, step_op_ioh_abstract.md).
Benchmark, metric and unit words, and identifiers such as MIMIC-IV or COVID-19, are never models.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from evaluator.papers.measures import is_benchmark_or_metric, metrics_in
from evaluator.papers.model_words import (
    ACRONYM,
    ACRONYM_LIST,
    ACRONYM_MODEL,
    CLINICAL_SCORES,
    FAMILIES,
    GENERIC,
    METHOD_NAMES,
    METHODS,
    NOT_A_SUBJECT,
    NOT_MODELS,
    RESULT_SUBJECT,
    SCORES_AFTER,
)


def declared_acronyms(text: str) -> list[str]:
    """Acronyms the text lists as scores or models anywhere ("the iScore and THRIVE scores", "scores-OHCA, SWAP,
    PROLOGUE and CAHP"): models in every sentence, where they are written alone ("PROLOGUE had the highest
    AUROC of 0.89, followed by CAHP, OHCA and SWAP")."""
    names = [m.group(1) for m in SCORES_AFTER.finditer(text[:200_000]) if _an_acronyms_model(m.group(1))]
    return list(dict.fromkeys(names + [item.group() for item in _listed_acronyms(text[:200_000])]))


_AN_ACRONYM = re.compile(ACRONYM)


def _listed_acronyms(text: str) -> Iterator[re.Match[str]]:
    """Each acronym of a list of scores or models in `text` ("scores-OHCA, SWAP, PROLOGUE and CAHP"), a model's."""
    for listed in ACRONYM_LIST.finditer(text):
        for item in _AN_ACRONYM.finditer(text, listed.start(1), listed.end(1)):
            if _an_acronyms_model(item.group()):
                yield item


def _an_acronyms_model(name: str) -> bool:
    return not NOT_MODELS.match(name.split(" ")[0]) and not is_benchmark_or_metric(name)


# a hub name runs long: "BiomedNLP-PubMedBERT-base-uncased-abstract-fulltext-finetuned-pubmedqa-1"
_TOKEN = r"[A-Za-z][A-Za-z0-9]*(?:[-.+][A-Za-z0-9]+){0,12}"
_VERSION = (
    # a version is short ("3", "3.5", "v1.2", "4o", "70B"); "0.85" or "77.10" after a name is its value, not a version
    r"(?:v\d{1,3}(?:\.\d{1,2})?[A-Za-z]{0,2}|(?!0\.)\d(?:\.\d{1,2})?[A-Za-z]{0,2}|\d{2,3}(?:\.\d)?[A-Za-z]{1,2}|\d{2}|[RV]\d{1,2}(?:\.\d)?|\d{1,3}x\d{1,3}[BbMm]|[Pp]ro|[Ff]lash|[Uu]ltra|[Ss]onnet|[Oo]pus|"
    r"[Hh]aiku|[Tt]urbo|[Mm]ini|[Ii]nstruct|[Cc]hat|[Bb]ase|[Ll]arge|"
    # a variant after a size: "MedGemma 27B Text-IT", "MedGemma 27B Multimodal" (medgemma_27b_*.md), "Gemini Pro Vision"
    r"[Tt]ext(?:-IT)?|IT|[Mm]ultimodal|[Vv]ision|[Pp]lus|[Nn]ano|Advanced)"
)
_CANDIDATE = re.compile(
    r"(?<![\w./@-])("
    r"[A-Za-z0-9][\w.-]{0,60}/[A-Za-z0-9][\w.-]{0,80}"  # org/name
    # (a Korean particle may follow: "DeepSeek R1은")
    r"|" + _TOKEN + r"(?: " + _VERSION + r"){1,3}(?![A-Za-z0-9_-]|\.\w| ?%)"  # word + versions/sizes/tiers
    r"|" + _TOKEN + r")"
)
# a Korean transliteration glued to a Latin model word: "챗GPT" (ChatGPT), "펍메드GPT" (PubMedGPT)
# a model named in Korean with its version in Latin letters: "딥시크 R1은" (deepseek_r1_vs_chatgpt_o1_*_ko.md)
_HANGUL_VERSIONED = re.compile(
    r"(?<![\w가-힣])([가-힣]{2,8} (?:[A-Za-z]{1,2}\d[A-Za-z0-9.]{0,6}|\d{1,2}[A-Za-z]{1,2}))(?![A-Za-z0-9.-])"
)
_NOT_A_VERSION = re.compile(r" (?:\d{1,3}(?:cm|mm|km|ml|mL|mg|kg|dL|L|g|m|h|s)|F1|AUC)$")
_HANGUL_LED = re.compile(r"(?<![\w-])([가-힣]{1,8}([A-Z][A-Za-z0-9]{1,20}(?:-[A-Za-z0-9.]{1,10})?))(?![A-Za-z0-9])")
# not a model's shape: a word with a citation mark ("surgery.4", "IV.3"), an identifier with a long digit run
# ("cord-0878005-rd974tb3"), a commit hash on a copied page ("bcb7a51": bloom176b_pubmedqa_lm_eval_results_json.md),
# an author with an affiliation number ("Kumar2": see _AUTHOR)
_NOT_A_NAME = re.compile(
    r"@\d+$|^(?:[a-z]+|[IVX]+)\.\d{1,2}$|\d{6,}|^(?=[a-f]{0,39}\d)(?=\d{0,39}[a-f])[0-9a-f]{7,40}$"
)
_NOT_A_TIER = re.compile(
    r"-(?:Finetuned|Fine-tuned|Tuned|Based|Specific|Level|Style|Aware|Only|Free|like|type|related|associated|"
    r"induced|positive|negative|naive|naïve|regularized|regularised|weighted|penalized|adjusted|calibrated|augmented|"
    r"balanced|enhanced|guided|driven|optimal|optimized|optimised)$",
    re.I,
)
# words written around a slash ("train/val", "yes/no/maybe", "pass/fail") and a repository's folders ("data/raw")
# a compound that describes ("COVID-19-specific", "LLM-based", "L2-regularized"), never a name; but "llama-2-FineTuned"
# is a model's name (medical_llm_evaluation_report_llama2_mixtral_finetuned.md)
_DESCRIBES = re.compile(
    r"-(?:Based|Specific|Level|Style|Aware|Only|Free|like|type|related|associated|induced|positive|negative|naive|"
    r"naïve|regularized|regularised|weighted|penalized|adjusted|calibrated|augmented|balanced|enhanced|guided|driven|"
    r"optimal|optimized|optimised)$",
    re.I,
)
_SLASHED_WORDS = frozenset(
    {"train", "val", "valid", "validation", "test", "dev", "yes", "no", "maybe", "true", "false", "input", "output"}
    | {"and", "or", "zero", "few", "shot", "pass", "fail"}
)
_FOLDERS = frozenset(
    {"data", "src", "scripts", "configs", "config", "outputs", "output", "results", "logs", "checkpoints", "ckpt"}
    | {"metrics", "notebooks", "docs", "tests", "artifacts", "figures", "assets", "images", "runs"}
)
_UNIT_RATIO = re.compile(
    r"(?:[mµnp]?g|[mµd]?L|mmol|µmol|mEq|IU|U|kg|mg|beats|breaths)/(?:[mdµ]?L|kg|min|h|hr|day|m2|m²)"
)
_FILE_NAME = re.compile(r"\.(?:json|jsonl|csv|tsv|ya?ml|py|sh|ipynb|txt|md|pt|pth|pkl|bin|safetensors|png|pdf)$", re.I)
_AUTHOR = re.compile(r"^[A-Z][a-z]+\d{1,2}$")


@lru_cache(maxsize=64)
def _defined_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for the names a text defines, the longest first: compiled once per text instead of once per name
    and sentence (a table of hundreds of models defines hundreds of names, past the re module's cache). A Korean
    particle may follow a name: "루닛 인사이트 MMG는" (lunit_insight_*_ko.md)."""
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9_-])")


# a method's short name in brackets: a token with a capital and no space ("LightGBM", "XGBoost", "RF"), not a plural
# acronym ("Gated Recurrent Units (GRUs)": the kind of model, sepsis_gru_v23_technical_documentation_*.md)
_SHORT_AFTER = re.compile(r" ?\(((?=[^()\s]*[A-Z])(?![A-Z]{2,6}s\))[A-Za-z][\w.+-]{1,15})\)")


def _after_its_method(text: str, start: int) -> bool:
    """An acronym in brackets right after the method it stands for, which the method's name takes with it:
    "a generalised linear regression model (GLM)" (burn_icu_mortality_ml_vs_baux_*_abstract.md)."""
    if start < 2 or text[start - 1] not in "([":
        return False
    before = text[max(0, start - 60) : start - 1].rstrip()
    return any(method.end(1) == len(before) for method in METHODS.finditer(before))


def models_in(text: str, defined: dict[str, str] | None = None) -> list[tuple[int, str]]:
    """(position, name) of every model-like name in a sentence, in order; `defined` names (see
    `defined_names`) are given by their full name. Linear: a name's characters are marked once."""
    covered = bytearray(len(text) + 1)
    found: list[tuple[int, str]] = []

    def take(match: re.Match[str], name: str, group: int = 0) -> None:
        start, end = match.span(group)
        if not covered[start]:
            covered[start:end] = b"\x01" * (end - start)
            found.append((start, name))

    if defined:
        for match in _defined_pattern(tuple(sorted(defined, key=len, reverse=True))).finditer(text):
            if not _after_its_method(text, match.start(1)):
                take(match, defined[match.group(1)], 1)
    for match in METHODS.finditer(text):
        name = METHOD_NAMES.get(match.group(1).lower(), match.group(1))
        # and the short name given in brackets after it, which the text then uses: "The light gradient boosting
        # machine (LightGBM) model ... LightGBM had the best metrics" (femoral_neck_fracture_aki_lightgbm_*.md)
        short = _SHORT_AFTER.match(text, match.end())
        if short and short.group(1).lower() != name.lower():
            covered[match.end() : short.end()] = b"\x01" * (short.end() - match.end())
            name = f"{match.group(1)} ({short.group(1)})"
        take(match, name)
    for match in ACRONYM_MODEL.finditer(text):
        for group in (1, 2, 3, 4):
            name = match.group(group)
            if name and _an_acronyms_model(name):
                take(match, name, group)
    for item in _listed_acronyms(text):
        take(item, item.group())
    for match in CLINICAL_SCORES.finditer(text):
        take(match, match.group(1), 1)
    for match in _TITLED_TOOL.finditer(text):
        tool = match.group(1)
        # a metric in title case ("Brier Score", "Concordance Index") measures a model, it is none
        if not GENERIC.search(tool) and not _TITLED_NOT_TOOL.search(tool) and not is_benchmark_or_metric(tool):
            take(match, tool, 1)
    for match in _NAMED_LOWER_SCORE.finditer(text):
        name = match.group(1)
        measured = any(metric != "score" for _, _, metric in metrics_in(name))  # "AUC score", "F1 score"
        if not _TITLED_NOT_TOOL.search(name) and not is_benchmark_or_metric(name) and not measured:
            take(match, name, 1)
    for match in RESULT_SUBJECT.finditer(text):
        # a plain capitalised name inside a sentence whose result the clause states: "with Pegasus achieving an AUROC of
        # 94.3%" (pegasus_dr_handheld_fundus_camera_*_abstract.md); not a word that names people, and not at a
        # sentence's start, where any word is capitalised ("Answers scored a ROUGE-L of 0.412")
        name = match.group(1)
        before = text[max(0, match.start(1) - 30) : match.start(1)].split()
        if (
            # and not the last word of a name ("Claude Opus demonstrated superior accuracy")
            not (before and before[-1][:1].isupper() and before[-1][-1:].isalnum())
            and not NOT_A_SUBJECT.match(name)
            and not is_benchmark_or_metric(name)
            and metrics_in(text[match.start(2) : match.end(2) + 60])
        ):
            take(match, name, 1)
    for match in _HANGUL_VERSIONED.finditer(text):
        # not a size or a metric after a Korean word: "직경 5mm", "크기가 2cm", "달성하며 F1" (*_ko.md of dev batch 47)
        if not _NOT_A_VERSION.search(match.group(1)):
            take(match, match.group(1), 1)
    for match in _HANGUL_LED.finditer(text):  # "챗GPT는", "펍메드GPT는" (chatgpt_usmle_zdnet_ko.md)
        if is_model_name(match.group(2)):
            take(match, match.group(1))
    for match in _CANDIDATE.finditer(text):
        # "three LLMs-GPT-4o, Claude 3.5 Sonnet" (kmle_three_llms_abstract.md): the name after the dash
        name = re.sub(r"^(?:LLMs?|models?)-", "", match.group(1).rstrip(".-+"), flags=re.I)
        chrome = _PAGE_CHROME.match(text, match.end(1))  # "sid321axn's picture": a user on a copied page
        field = (
            _ID_FIELD.search(text, max(0, match.start() - 12), match.start())
            or _CREDIT.search(text, max(0, match.start() - 8), match.start())
            or _LOGGED_KEY.match(text, match.start())
        )
        if not covered[match.start()] and is_model_name(name) and chrome is None and field is None:
            take(match, name)
    lists = [m.span(1) for m in _DATASET_LIST.finditer(text)] if len(found) >= 1 else []
    found = [(p, n) for p, n in found if not any(s <= p < e for s, e in lists)]
    if len(found) >= 3:  # "Bao1, Kumar2, Shah2, ...": a list of authors with their affiliation numbers
        authors = [n for _, n in found if _AUTHOR.match(n) and not FAMILIES.match(n.rstrip("0123456789"))]
        found = [(p, n) for p, n in found if len(authors) < 3 or n not in authors]
    return sorted(found)


# a tool named in title case and by what it is: "The Hypotension Prediction Index predicts hypotension"
# (hpi_davies_ability_key_points_intro.md), "the National Early Warning Score"; a determiner is not part of it
_TITLED_TOOL = re.compile(
    r"(?<![\w-])(?:(?:The|the|An?|an?|Our|our|This|this) )?"
    r"((?:[A-Z][a-z]{2,20}[ -]){1,5}(?:Index|Score|Algorithm|Model))\b"
)
# a score named after a place or a person, in running text: "the discrimination of Cleveland score (AUROC=0.684),
# Mehta score (AUROC=0.708)" (csa_aki_four_scores_*_abstract.md); after a lower-case word or a comma, so never a
# sentence's first word ("Total score", "Mean score")
# and one named after several people: "Child-Turcotte-Pugh score", "Glasgow-Blatchford score"
# (decompensated_cirrhosis_*_abstract.md); not an acronym's, which may be the outcome measured ("the PAED score")
_NAMED_LOWER_SCORE = re.compile(
    r"(?<=[a-z,] )([A-Z][a-z]{3,15} score|[A-Z][a-z]{2,15}(?:-[A-Z][a-z]{2,15}){1,3} score)(?![\w-])"
)
_TITLED_NOT_TOOL = re.compile(
    r"\b(?:Body|Mass|Quality|Impact|Citation|Human|Development|Research|Total|Mean|Average|Best|Overall|Final|Max|"
    r"Min|Top|Highest|Lowest|Weighted|Composite|"
    # a measure a report names in title case: "Open-Ended Keyword Score", "Performance Score"
    # (medical_llm_eval_report_two_finetuned_tables.md)
    r"Performance|Keywords?|Ended|Similarity|Reasoning|Accuracy|Agreement|Consistency|Relevance|Fluency|"
    r"Coherence|Completeness|Evaluation|Benchmark|Exam|Test|Kappa|Error|Deviation|Coefficient|"
    # a described model in title case: "The Proposed Model", "Deep Learning Model"; "Epic Sepsis Model" is a name
    r"Proposed|Final|Base|Baseline|Best|New|Deep|Learning|Machine|Language|Large|Regression|Card|Details|Description|"
    r"Summary|Sources|Type|Architecture|Training|"
    r"Trained|Fine|Tuned|Pretrained|Developed|Current|Existing|Reference)\b"
)
# names listed as what a model was run on: "F1 score on BC5CDR, KD-DTI and DDI end-to-end relation extraction
# tasks" (biogpt_large_pubmedqa_card.md)
_DATASET_LIST = re.compile(
    r"\b(?:on|across|over)\s((?:[\w.-]{2,30}(?:,\s|,?\s(?:and|or)\s)){1,6}[\w.-]{2,30})\s(?:[\w-]+\s){0,4}"
    r"(?:tasks|datasets|benchmarks|corpora|test sets)\b"
)
# or a journal's name in a citation line: "BioMedInformatics 2025, 5(3), 52" (picu_topicc_*_mdpi_abstract.md)
_PAGE_CHROME = re.compile(r"'s (?:picture|avatar|profile|photo)\b| (?:19|20)\d\d[,;] ?\d{1,4} ?\(\d{1,3}\)")
# the value of a record's identifier field: "cord_uid: rhrfj4wq", "sha: 3388d7fd...", "key: cord-0942285-..."
# a trainer's logged key and its value: "Rewards/rejected: -1.93" (medqa_l3_dpo_trainer_card.md)
# a photo credit on a news page: "사진=Bradshaw/shutterstock" (vuno_dtas_ed_triage_kormedi_ko.md)
_CREDIT = re.compile(r"(?:사진|출처|자료|그림|이미지|photo|image|credit|source)\s?[=:]\s?$", re.I)
_LOGGED_KEY = re.compile(r"[A-Za-z]{2,30}/[A-Za-z_]{2,30}:\s?-?\d")
_ID_FIELD = re.compile(r"(?<![A-Za-z])(?:u?id|sha|key|doi|pmid|pmcid|hash|commit|revision)\s?[:=]\s?$", re.I)


# words that open a phrase, never a name: "The 4B variant", "Only 7B models", "All 70B models"
_COMMON_WORD = re.compile(
    r"^(?:The|This|That|These|Those|Our|Its|Their|All|Both|Each|Every|Only|Some|Any|Most|Many|Few|Other|Over|Under|"
    r"About|With|Without|For|From|Into|Than|And|But|Our|Larger|Smaller|Bigger|Models?|Parameters?|Sizes?)$"
)


def never_a_model(name: str) -> bool:
    """A word no model is called by, whatever the sentence says of it: a site, a unit, a section label
    ("from [HuggingFace](...), a large language model": pubmedqa_biomistral_cot_vs_direct_readme.md)."""
    return bool(NOT_MODELS.match(name.strip()) or re.fullmatch(r"[A-Z]{2,6}s", name.strip()))  # "ICUs", "EHRs"


# a table's word for a split, a cohort, a summary row or a header, which a misread table gives as a model's name
_TABLES_WORD = re.compile(
    r"(?:models?|benchmarks?|methods?|training|train|test|testing|val|valid|validation|dev|internal|external|overall|"
    r"total|average|mean|dataset|task|metric|score|cohort|set|group|all|none)"
    r"(?: (?:set|cohort|data|split|validation|test))?",
    re.I,
)


def a_tables_word(name: str) -> bool:
    """ "Training", "Test", "Overall", "Benchmark": a table's word, never a model's name (rules.py drops the claims a
    misread table gives such a "model")."""
    return _TABLES_WORD.fullmatch(name.strip()) is not None


@lru_cache(maxsize=4096)
def is_model_name(name: str) -> bool:
    """Whether a written name has the shape of a model name (see the module docstring)."""
    name = name.strip()
    first = name.split(" ", 1)[0]
    if re.fullmatch(r"[oO][134]", first):
        return True  # OpenAI's o-series, also written "O3 Mini" (not an exam part "M1": no o2 exists, O2 is oxygen)
    if not name or len(name) > 120 or NOT_MODELS.match(first) or is_benchmark_or_metric(name):
        return False
    if _NOT_A_NAME.search(name) or re.fullmatch(r"[A-Z]{2,6}s", name):  # and a plural acronym: "ICUs", "EHRs"
        return False
    if re.search(
        r"[a-z](?:Loss|Layer|Optimizer|Scheduler|Tokenizer|Dataset|DataLoader|Trainer|Config|Pipeline)$", name
    ):
        return False  # a class in code: "BCEWithLogitsLoss", "AutoTokenizer" (sepsis_onset_lstm_*_readme.md)
    if re.match(r"(?i)non-", name) or (_DESCRIBES.search(name) and " " not in name):
        return False  # a word describing something: "non-COVID-19", "COVID-19-specific", "LLM-based"
    if "/" in name:
        parts = name.split("/")
        if parts[0].lower() in _FOLDERS or _FILE_NAME.search(name) or _UNIT_RATIO.fullmatch(name):
            return False  # a path in a repository: "data/raw", "metrics/bootstrap_ci_seed42.json"
        if all(part.lower() in _SLASHED_WORDS for part in parts) or len(parts[0]) < 2:
            return False  # "train/val", "yes/no/maybe", "b/c": words, not an org and a model
        if all(re.fullmatch(r"[a-z]{3,20}s", part) for part in parts):
            return False  # "diagnoses/procedures", "tokens/words": plural nouns
        if all(re.fullmatch(r"[A-Z]{2,5}", part) for part in parts):
            return False  # classes or units named by acronyms: "PAC/PVC", "ICU/HDU" (pulsewatch_*_abstract.md)
        if len(parts) == 2 and re.fullmatch(r"[A-Za-z][a-z]{2,19}/[a-z]{3,20}", name):
            # "renal/metabolic markers", "Inpatient/outpatient": two words; a hub id in prose has a digit, a capital
            # or a hyphen in its name (icu_aki_24h_forecast_*_summary.md)
            return False
        if not re.fullmatch(r"[A-Za-z0-9][\w.-]{0,60}/[A-Za-z0-9][\w.+-]{0,100}", name):
            return False  # a phrase with a slash in it, not a hub id
        org, _, rest = name.partition("/")
        if is_benchmark_or_metric(rest):
            return False  # a logged key: "Rewards/accuracies", "eval/accuracy" (medqa_l3_dpo_trainer_card.md)
        return bool(re.search(r"[A-Za-z]", org)) and not org.isdigit() and not rest.isdigit() and "." not in org[:1]
    if " " in name:  # a model word followed by versions, sizes or tiers ("Claude 3.5 Sonnet")
        # or any capitalised word with a parameter count: "Meerkat 8B", "Falcon 40B Instruct"
        sized = (
            re.match(r"^[A-Z][a-z]{2,20}$", first)
            and not _COMMON_WORD.match(first)
            and re.search(r" \d{1,4}(?:\.\d)?[BM](?: |$)", name)
        )
        return is_model_name(first) or bool(sized)
    has_digit = any(ch.isdigit() for ch in name)
    # "BioMistral", "XGBoost", and a name led by a small letter: "eARDS", "iREAD", "sEPSIS-Net"
    inner_capital = (bool(re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", name)) and "-" not in name) or bool(
        re.match(r"^[a-z][A-Z]{2}", name)
    )
    # "Med-PaLM", "STEP-OP", not "Multi-Choice" (kormedmcqa_arxiv_2403.01469v3_abstract.md) nor
    # "QA-Finetuned" (snuh_hari-q3-8b_modelcard_excerpt.md)
    hyphen_caps = (
        bool(re.match(r"^[A-Z][\w]*-[A-Z]", name))
        and bool(re.search(r"[A-Z]{2}|[a-z][A-Z]", name))
        and not _NOT_A_TIER.search(name)
    ) or bool(re.match(r"^[A-Z]{2,}-[a-z]{2,}[A-Z]", name))  # "CT-lungNET" (ct_lungnet_small_nodule_*_ko.md)
    if has_digit:
        # "o1", "o3-mini" are models; a feature "x1" is not (doa_index_stacked_regressor_nn_bis_eeg_readme.md)
        return bool(re.match(r"^[A-Za-z]", name)) and bool(re.search(r"[A-Za-z]{2}|^[oO]\d", name))
    # a family's name with a tier after a hyphen: "Gemini-Pro", "Claude-Instant" (german_m1_m2_*_abstract.md), or
    # after a domain prefix: "Med-Gemini" (medical_llms_exam_vs_clinic_yazamaz_article_excerpt.md)
    family_tier = (
        bool(FAMILIES.match(name.split("-", 1)[0]) or FAMILIES.match(name.rsplit("-", 1)[-1]))
        and "-" in name
        and not _NOT_A_TIER.search(name)
    )
    return inner_capital or hyphen_caps or family_tier or bool(FAMILIES.match(name))


def heading_model(heading: str) -> str | None:
    """The one model a heading names: the whole heading when it is a model's name ("#### Base Model", "### XGBoost"),
    else the only model named in it ("### Test Set Evaluation (Best XGBoost)", "#### llama-2-FineTuned - Category
    Performance"); None when it names none or several, or is a benchmark's or a metric's name."""
    name = heading.strip(" *#")
    found = models_in(name)
    if not found and re.fullmatch(r"(?:[A-Z][\w-]{1,20} ){1,3}Model", name):
        return name
    return found[0][1] if len(found) == 1 and not is_benchmark_or_metric(found[0][1]) else None

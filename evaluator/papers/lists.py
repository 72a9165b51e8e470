"""Values written as lists, each paired with its metric or model by position: "AUROC, AUPRC, and Brier scores of
0.92, 0.53, and 0.19, respectively" (multimodal_icu_mortality_*.md), "AUROC and AUPRC of 0.935 [...] and 0.882
[...]" without "respectively" (ioh_abp_eeg_ecg_plos_abstract.md), "OpenBioLLM and DeepSeek-V3 scored the lowest
(78.2% and 76.5%, respectively)" (usmle_seven_llms_amboss_turkmedstudj_abstract.md)."""

from __future__ import annotations

import itertools
import re

from evaluator.papers.measures import benchmarks_in, metrics_in

Number = tuple[int, int, str, tuple[float, float] | None]  # start, end, the value as written, its interval

_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)


def respectively(
    sentence: str,
    numbers: list[Number],
    metrics: list[tuple[int, int, str]],
    models: list[tuple[int, str]],
) -> dict[int, tuple[str | None, str | None]]:
    """ "M1, M2 and M3 of v1, v2 and v3, respectively": each value gets its metric (or model) by position."""
    # a metric glossed in brackets is one metric: "AUROC, recall (sensitivity), specificity, and precision of 0.82,
    # 0.86, 0.62, 0.76" (fluid_responsiveness_random_forest_abp_waveform_swine_shock_pubmed_abstract.md)
    metrics = [
        m for i, m in enumerate(metrics) if not (i and re.fullmatch(r" ?\(", sentence[metrics[i - 1][1] : m[0]]))
    ]
    word = _RESPECTIVELY.search(sentence)
    if word is None and "각각" in sentence:
        return _each(sentence, numbers, metrics)
    listed = _list_before(sentence, numbers, word.start()) if word else []
    if word is None:
        listed = _paired_list(sentence, numbers, metrics)
    if word is None and not listed:
        return _model_list(sentence, numbers, models)
    if len(listed) < 2:
        return {}
    first = numbers[listed[0]][0]
    listed_metrics = _distinct([m[2] for m in metrics if m[1] <= first])
    nearest = max((m for m in metrics if m[1] <= first), default=None, key=lambda m: m[1])
    joined = nearest and any(re.fullmatch(r",? (?:and |or )?|, ", sentence[m[1] : nearest[0]]) for m in metrics)
    plural = nearest and re.search(r"[a-z]s$", sentence[nearest[0] : nearest[1]], re.I)
    if nearest and plural and not joined and len(listed_metrics) > 1:
        # a metric in the plural is every listed value's: "an accuracy of 98.5% and F 1 scores for the classes S and V
        # of 82.8% and 91.7%, respectively" (ra_cnn_interpatient_ecg_*_abstract.md); not the last of a list of
        # metrics ("AUROC, AUPRC, and Brier scores of 0.92, 0.53, and 0.19")
        listed_metrics = [nearest[2]]
    if word is None or len(listed_metrics) > len(listed):
        # the metrics the values are listed for are the last ones named: "test accuracy of 83.0% (average
        # sensitivity, specificity, and AUROC of 0.757, 0.902, and 0.781, respectively)"
        listed_metrics = listed_metrics[-len(listed) :]
    last = numbers[listed[-1]][1]
    named_after = _distinct([m[2] for m in metrics if last <= m[0] and (word is None or m[1] <= word.start())])
    if word is not None and len(listed_metrics) < 2 and len(named_after) == len(listed):
        # the metrics named after the values: "84% and 82% in overall accuracy and F1 score, respectively"
        # (md_informed_attention_biobert_pubmedqa_cord_abstract.md)
        listed_metrics = named_after
    if len(listed_metrics) > 1:
        listed_metrics = [m for m in listed_metrics if m != "score"]
    listed_models = _distinct([n for p, n in models if p < first])
    if word is not None and len(listed_models) > len(listed):
        listed_models = _listed_last(sentence, [(p, n) for p, n in models if p < first], len(listed))
    group = len(listed) // len(listed_metrics) if listed_metrics and len(listed) % len(listed_metrics) == 0 else 0
    out: dict[int, tuple[str | None, str | None]] = {}
    for k, index in enumerate(listed):
        metric = listed_metrics[k // group] if len(listed_metrics) >= 2 and group else None
        model = listed_models[k] if len(listed_models) == len(listed) else None
        out[index] = (metric, model)
    return out


# what may stand between two listed values: an interval, bracketed or not ("0.698, 95% CI 0.690-0.705 and 0.706":
# step_op_ioh_abstract.md), a comma, "and", or "to" in a list of changes ("from 0.87 to 0.89, 0.43 to 0.48":
# multimodal_icu_mortality_arxiv_2512_19716.md)
_LIST_GAP = re.compile(
    r"(?: ?[(\[][^()\[\]]{0,80}[)\]]|,? ?(?:(?:95|90|99) ?% ?)?(?:CI|confidence intervals?)[:,]? ?-?[\d.]{1,8} ?%? ?"
    # or a spread: "180.3 ± 22.2, 251.0 ± 13.1, and 256.7 ± 14.0" (japanese_nursing_exam_chatgpt_copilot_*.md)
    r"(?:-|–|—|to|,) ?-?[\d.]{1,8} ?%?| ?%? ?± ?[\d.]{1,8} ?%?)?"
    # or each value's unit: "the MAE and RMSE were 0.09 mg/dL and 0.14 mg/dL" (nephrocast_next_day_creatinine_*.md)
    r"(?: ?(?:mg/dL|mmol/L|µmol/L|mmHg|ms|s|sec|min|h|hours?|days?|mL|kg|bpm|points?|pts))?"
    r",? ?(?:and |or |to |및 )?"
)


def _each(
    sentence: str, numbers: list[Number], metrics: list[tuple[int, int, str]]
) -> dict[int, tuple[str | None, str | None]]:
    """ "AUROC, 감도 및 특이도는 각각 0.922, 87.0%, 81.5%": Korean names the metrics, then "각각" (each), then as many
    values, as often as the sentence says it (ai_thyroid_ultrasound_*_ko.md)."""
    out: dict[int, tuple[str | None, str | None]] = {}
    since = 0
    for word in re.finditer("각각", sentence):
        after = [i for i, n in enumerate(numbers) if n[0] > word.end()]
        listed = after[:1]
        for i in after[1:]:
            if not _LIST_GAP.fullmatch(sentence[numbers[listed[-1]][1] : numbers[i][0]]):
                break
            listed.append(i)
        named = _distinct([m[2] for m in metrics if since <= m[0] and m[1] <= word.start()])
        if len(named) >= 2 and len(named) == len(listed):
            out.update({index: (metric, None) for index, metric in zip(listed, named, strict=True)})
        since = numbers[listed[-1]][1] if listed else word.end()
    return out


def _list_before(sentence: str, numbers: list[Number], end: int) -> list[int]:
    """The values listed right before "respectively", each after the one before it with only a comma, "and" or an
    interval between them: "We achieved 85.0% (average sensitivity, specificity, and AUROC of 0.757, 0.902, and
    0.781, respectively)" lists three, not four (sepsis_physiomarkers_svm_pmc_abstract.md)."""
    listed = [i for i, n in enumerate(numbers) if n[0] < end]
    while len(listed) >= 2 and not _LIST_GAP.fullmatch(sentence[numbers[listed[0]][1] : numbers[listed[1]][0]]):
        listed = listed[1:]
    return listed


def _listed_last(sentence: str, models: list[tuple[int, str]], count: int) -> list[str]:
    """The last `count` models named, when they are written as one list ("..., while OpenBioLLM and DeepSeek-V3
    scored the lowest (78.2% and 76.5%, respectively)": usmle_seven_llms_amboss_turkmedstudj_abstract.md)."""
    last = models[-count:]
    joined = all(
        re.fullmatch(r",? (?:and |or )?", sentence[a + len(name) : b]) for (a, name), (b, _) in itertools.pairwise(last)
    )
    return [name for _, name in last] if joined and len({n for _, n in last}) == count else []


def _paired_list(sentence: str, numbers: list[Number], metrics: list[tuple[int, int, str]]) -> list[int]:
    """ "AUROC and AUPRC of 0.935 [...] and 0.882 [...]": two metrics joined right before as many values, without
    "respectively" (ioh_abp_eeg_ecg_plos_abstract.md). The indices of those values, or none."""
    for index, (start, _, _, _) in enumerate(numbers[:-1]):
        before = [m for m in metrics if m[1] <= start]
        if len(before) < 2 or start - before[-1][1] > 12:
            continue
        chain = 1  # "sensitivity, specificity, and AUROC of 0.757, 0.902, and 0.8" (sepsis_physiomarkers_*.md)
        while chain < len(before) and re.fullmatch(
            r"(?: ?\([^()\d]{1,30}\))?,? (?:and |or )?", sentence[before[-chain - 1][1] : before[-chain][0]]
        ):
            chain += 1
        if chain >= 2 and len({m[2] for m in before[-chain:]}) == chain and index + chain <= len(numbers):
            return list(range(index, index + chain))
    return []


def _distinct(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _model_list(
    sentence: str, numbers: list[Number], models: list[tuple[int, str]]
) -> dict[int, tuple[str | None, str | None]]:
    """ "the models of KNN, logistic regression, decision tree, random forest, neural network, bagging, and XGBoost
    ... obtained AUCs of 0.806, 0.818, 0.743, 0.819, 0.780, 0.803, and 0.88" without "respectively": a list of three
    or more models and a list of as many values after it pair by position
    (mechanically_ventilated_mortality_ml_mimic3_pmc_abstract.md)."""
    names = _distinct([n for _, n in models])
    if len(names) < 2 or len(names) != len(models):
        return {}
    # two models pair with two values only when the values are what they scored: "GPT-3 and Bard models scored 58%
    # and 47%" (aba_exam_gpt4_gpt3_bard_medrxiv_abstract.md)
    first_value = next((n[0] for n in numbers if n[0] > models[-1][0]), None)
    if len(names) == 2 and (
        first_value is None
        or not re.match(
            r"(?: models?)? (?:scored|achieved|reached|obtained|attained|had|showed)\b[^.;]{0,40}$",
            sentence[models[-1][0] + len(models[-1][1]) : first_value],
        )
    ):
        return {}
    joined = all(
        re.fullmatch(r",? (?:and |or )?", sentence[a + len(name) : b])
        for (a, name), (b, _) in itertools.pairwise(models)
    )
    after = [i for i, n in enumerate(numbers) if n[0] > models[-1][0]]
    if not joined or len(after) != len(names):
        return {}
    gaps = [sentence[numbers[i][1] : numbers[j][0]] for i, j in itertools.pairwise(after)]
    if not all(_LIST_GAP.fullmatch(gap) for gap in gaps):
        return {}
    return {index: (None, name) for index, name in zip(after, names, strict=True)}


# a model's name, then its metric and value: "(AIMS65: AUC=0.693; Charlson: AUC=0.636; GBS: AUC=0.575)"
_LABEL = re.compile(r"(?:(?<=[(;,]) ?|^)((?:[A-Z]|[a-z][A-Z])[\w.+-]{1,30}(?: [A-Za-z0-9][\w.+-]{0,20}){0,2}): ?")
_PART = re.compile(
    r"\b(?:train|training|valid|validation|test|testing|internal|external|development|derivation|cohort|set|overall|"
    r"mean|average|total|male|female|men|women|all|day|hour|year|group)s?\b",
    re.I,
)
_NAME_BRACKET = re.compile(r"(?<![\w.+-])([A-Z][\w.+-]{0,20}(?: [A-Z0-9][\w.+-]{0,20}){0,2}) \($")
_ITEM_BEFORE = re.compile(r"(?:[,;] |\b(?:were|was|and|or) |\(|^)$")
_METRIC_VALUE = re.compile(r"([A-Za-z][\w -]{1,30}?) ?[=:]? ?$")


def labelled(
    sentence: str, numbers: list[Number], metrics: list[tuple[int, int, str]], models: list[tuple[int, str]]
) -> dict[int, str]:
    """Each value of a list whose items are "<name>: <metric> <value>", given to that name, when at least two of the
    names are models the reader knows (nvuprem_nvugib_*_abstract.md: "AUCs (AIMS65: AUC=0.693; Charlson: AUC=0.636;
    GBS: AUC=0.575; GCS: AUC=0.707; NVUPreM: AUC=0.876"); a list of cohorts or subsets ("Internal: AUC=0.85;
    External: AUC=0.80") names no model."""
    known = {p: n for p, n in models}
    items: dict[int, tuple[str, bool]] = {}
    bracketed: dict[int, tuple[str, bool]] = {}
    for index, (start, _, _, _) in enumerate(numbers):
        label = None
        for match in _LABEL.finditer(sentence, max(0, start - 70), start):
            between = sentence[match.end() : start]
            metric = next((m for m in metrics if m[0] == match.end() and m[1] <= start), None)
            if metric and _METRIC_VALUE.fullmatch(sentence[metric[0] : start]) and between.strip():
                label = match
        if label is not None:
            items[index] = (known.get(label.start(1), label.group(1)), label.start(1) in known)
            continue
        # or "<name> (<value>" in a list: "were DT (0.947), RF (0.900), XGBoost (0.887), ... and LR (0.876)"
        # (acute_pancreatitis_icu_mortality_seven_ml_*_abstract.md)
        window = max(0, start - 40)
        named = _NAME_BRACKET.search(sentence[window:start])
        at = window + named.start(1) if named is not None else 0
        if named is not None and _ITEM_BEFORE.search(sentence, max(0, at - 8), at):
            bracketed[index] = (known.get(at, named.group(1)), at in known)
    found = _of_models(items)
    # a bracketed list gives only the names the reader did not know; the known ones it already pairs
    found.update({i: name for i, name in _of_models(bracketed).items() if not bracketed[i][1] and _a_name(name)})
    return found


def _of_models(items: dict[int, tuple[str, bool]]) -> dict[int, str]:
    names = [name for name, _ in items.values()]
    if sum(model for _, model in items.values()) < 2 or any(_PART.search(name) for name in names):
        return {}
    return {index: name for index, (name, _) in items.items()}


def _a_name(name: str) -> bool:
    """An acronym or an inner-capital name, no metric's or benchmark's ("DT", "CatB", not "AUC" or "MedQA")."""
    shaped = re.fullmatch(r"[A-Z]{2,6}|[A-Z][a-z]+[A-Z][\w-]*", name) is not None
    return shaped and not metrics_in(name) and not benchmarks_in(name)

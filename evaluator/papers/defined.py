"""Names a text defines: a model named in full and by an acronym or a common noun ("Hypotension Prediction Index
(HPI)", "(the index)"), and names listed beside recognised models (names.py finds names by their shape)."""

from __future__ import annotations

import re

from evaluator.papers.measures import is_benchmark_or_metric
from evaluator.papers.model_words import GENERIC, METHODS
from evaluator.papers.names import declared_acronyms, is_model_name

_DEFINED = re.compile(
    # the acronym in brackets or square brackets: "Logistic Regression [LR]" (extubation_success_five_ml_*.md)
    r"([A-Z][a-z]{1,20}(?: (?:[A-Z][a-z]{1,20}|and|of|for)){1,6}) [(\[]([A-Z]{2,8})[)\]]"
    r"|\(([A-Z][a-z]{1,20}(?: [A-Z][a-z]{1,20}){1,5}), ([A-Z]{2,8})\)"
)
# a model named in full, then called by a common noun: "The Hypotension Prediction Index (the index) software"
# (hpi_forward_backward_anesthesiology_abstract.md)
_ALIASED = re.compile(
    r"([A-Z][a-z]{1,20}(?: [A-Z][a-z]{1,20}){1,5}) \((?:the|this) (index|model|algorithm|score|system|network)\)"
)
# a tool named in lower-case words and an acronym that ends in their initials: "deep learning (DL)-based early warning
# score (DEWS)" (dews_multicentre_ihca_*_publication.md), "a gradient boosted risk model (GBRM)"; the last word says
# it is a model, not a condition or a measure ("acute kidney injury (AKI)", "area under the curve (AUC)")
_DEFINED_IN_WORDS = re.compile(
    r"(?<![\w-])((?:[a-z][a-z-]{1,20} ){1,5}(?:score|model|index|algorithm|system|network|classifier)) \(([A-Z]{2,8})\)"
)
_METHOD_DEFINED = re.compile(r"(?<![\w-])([a-z][a-z-]{1,20}(?: [a-z][a-z-]{1,20}){0,4}) [(\[]([A-Z]{2,8})[)\]]")
_MODEL_WORD = re.compile(r"\b(?:algorithm|model|index|score|classifier)\b", re.I)
_MODEL_AFTER = re.compile(
    r"^,? (?:(?:is|was) (?:an?|the) )?(?:[\w-]{1,20} ){0,3}"
    r"(?:algorithms?|models?|index|scores?|classifier|networks?)\b",
    re.I,
)
_MODEL_LAST = re.compile(r"\b(?:Index|Score|Model|Algorithm|Network|Classifier)$")


def defined_names(text: str) -> dict[str, str]:
    """Models a text names in full and by an acronym: "Hypotension Prediction Index (HPI) is an algorithm",
    "an algorithm (Hypotension Prediction Index, HPI)" (hpi_*.md), "... Evaluation (APACHE) scores"
    (icu_mortality_calibration_drift_abstract.md), or by a common noun: "Hypotension Prediction Index (the
    index)". Maps the acronym (or "the <noun>") and the full name to the full name."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        full, acronym = match.group(1) or match.group(3), match.group(2) or match.group(4)
        before, after = text[max(0, match.start() - 25) : match.start()], text[match.end() : match.end() + 40]
        named_so = (
            _MODEL_AFTER.match(after)
            or _MODEL_WORD.search(before)
            or _MODEL_LAST.search(full)
            or METHODS.fullmatch(full)
        )
        if acronym[0] == full[0] and named_so and not GENERIC.search(full):
            found[acronym] = found[full] = f"{full} ({acronym})"
    for match in _DEFINED_IN_WORDS.finditer(text):
        words, acronym = re.split(r"[ -]", match.group(1)), match.group(2)
        initials = [word[0].upper() for word in words]
        # and the text goes on to call it so: an acronym written once only describes ("a dynamic early warning score
        # (EWS)" of an XGBoost model: icu_aki_24h_forecast_xgboost_*.md)
        used = len(re.findall(rf"(?<![\w-]){acronym}(?![\w-])", text)) > 1
        if used and any(acronym.endswith("".join(initials[start:])) for start in range(len(initials) - 1)):
            found.setdefault(acronym, acronym)
    for match in _METHOD_DEFINED.finditer(text):
        # a method named in lower-case words and its acronym: "gradient boosting (GB)", "decision tree (DT)", called
        # by the acronym afterwards ("while the GB model achieved": heart_failure_icu_*_soft_voting_*_abstract.md)
        words, acronym = match.group(1).split(" "), match.group(2)
        full = next((" ".join(words[i:]) for i in range(len(words)) if METHODS.fullmatch(" ".join(words[i:]))), "")
        if full and acronym[0] == full[0].upper():
            found.setdefault(acronym, acronym)
    for match in _ALIASED.finditer(text):
        full, noun = match.groups()
        if _MODEL_LAST.search(full) and not GENERIC.search(full):
            found[f"the {noun}"] = found[f"The {noun}"] = found[full] = full
    for name in _hangul_products(text):
        found.setdefault(name, name)
    for name in listed_with_models(text) + declared_acronyms(text):
        found.setdefault(name, name)
    return found


# a product named in Hangul words and a Latin acronym: "루닛 인사이트 CXR은", "루닛 인사이트 MMG는"
# (lunit_insight_*_ko.md); not a Hangul word before a modality, a unit or a measure ("흉부 CT", "심전도 AI")
_HANGUL_PRODUCT = re.compile(r"(?<![\w가-힣])((?:[가-힣]{2,8} ){1,2}[A-Z]{2,5})(?![A-Za-z0-9])")
_NOT_PRODUCT = re.compile(
    r"(?:AI|ML|DL|LLM|CT|MRI|PET|ECG|EKG|EEG|EMR|EHR|ICU|ER|OR|CAD|AUC|AUROC|ROC|PPV|NPV|CI|SD|BMI|USMLE|KMLE|FDA|"
    r"MFDS|WHO|CEO|CTO|IT|SW|GPU|API|PC|TV|KTAS|NEWS|MEWS|SOFA)$"
)


def _hangul_products(text: str) -> list[str]:
    """Hangul-and-acronym names a text writes at least twice, the way Korean news names a product."""
    counts: dict[str, int] = {}
    for match in _HANGUL_PRODUCT.finditer(text[:200_000]):
        name = match.group(1)
        if not _NOT_PRODUCT.match(name.rsplit(" ", 1)[1]):
            counts[name] = counts.get(name, 0) + 1
    return [name for name, count in counts.items() if count >= 2]


# a list of the models compared: "6 LLMs (GPT-3.5, GPT-4, ERNIE Bot, Tongyi Qianwen, Doubao, and DeepSeek)"
# (chinese_nmle_six_llms_mendeley_abstract.md): names of no recognisable shape listed beside recognised ones
_LIST_ITEM = r"[A-Z][\w.+-]{1,30}(?: [A-Z0-9][\w.+-]{0,20}){0,3}"
_MODEL_LIST = re.compile(
    r"\b(?:LLMs|models|chatbots|language models|systems)(?: such as| including|:| \(|,? namely)? ?"
    r"((?:" + _LIST_ITEM + r", ){2,12}(?:and |or )?" + _LIST_ITEM + r")"
)


def listed_with_models(text: str) -> list[str]:
    """The names of a list of models whose other items, at least two and most of them, have a model's shape."""
    found: list[str] = []
    for match in _MODEL_LIST.finditer(text):
        items = [re.sub(r"^(?:and|or) ", "", item).strip() for item in match.group(1).split(", ")]
        shaped = [item for item in items if is_model_name(item)]
        if len(shaped) >= 2 and len(shaped) * 2 >= len(items):
            found += [item for item in items if item not in shaped and not is_benchmark_or_metric(item)]
    return found

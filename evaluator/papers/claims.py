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

from evaluator.papers.attribution import (
    FOR_AFTER,
    NOBODY,
    Context,
    model_for,
    remember_model,
    said_of_people,
    subject_of,
)
from evaluator.papers.lists import labelled, respectively
from evaluator.papers.measures import benchmarks_in, metrics_in
from evaluator.papers.names import models_in
from evaluator.papers.numbers import not_a_result
from evaluator.papers.on_benchmark import bound_to_benchmark, nearest_benchmark
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.scoring import words
from evaluator.papers.value_metric import achieved_metric, metric_for, not_in_names
from evaluator.papers.vocabulary import read_value, resolve_dataset, settings_of

MAX_EVIDENCE = 600
# a value may follow a comma only after a percentage: "69.1%,64.3%,73.9%" (chatgpt_chinese_licensing_*.md)
_NUMBER = re.compile(
    # (a script prints up to 17 decimals: "LightGBM scores 0.40072137437968547": physionet2019_sepsis_*.md)
    r"(?<![\w./#-])(?<![^%],)(-?(?:\d{1,3}(?:,\d{3})+|\d{1,6})(?:\.\d{1,17})?|-?\.\d{1,17})(?![\d,]\d)( ?%)?"
)
# the interval's label as abstracts write it: "(95% CI 0.86-0.88)", "(95% CI: ...)", "(95% confidence interval (CI)
# ...)", "(95% confidence interval, CI, 0.86 to 0.88)" (lepmap_ioh_linear_extrapolation_abstract.md)
_CI = re.compile(
    r"^[ ,;]{0,2}[(\[]? ?(?:(?:95|90|99) ?% ?(?:CI|confidence intervals?)(?: ?\(CI\)|, ?CI,?)? ?[:,=]? ?)?"
    r"(-?\d{1,3}(?:\.\d{1,6})?) ?%? ?(?:-|–|—|to|,) ?(-?\d{1,3}(?:\.\d{1,6})?) ?%? ?[)\]]"
)
_AGGREGATE = re.compile(
    # "AI 챗봇은 ... 최고 85.9%의 정답률" is over several chatbots (dental_exam_chatbots_kollo_ko.md)
    # but not "two separate health systems" (eards_covid_ards_prediction_cord_record.md)
    r"\b(?:LLMs|models|algorithms|methods|(?<!health )(?<!hospital )(?<!care )systems|chatbots)\b(?! (?:of|for|in) )|"
    r"LLM[은는이가]|모델들|"
    # "정답률은 전체 평균 40% 수준" is over all the models tested (womens_health_llm_benchmark_koineu_ko.md)
    r"언어 ?모델[은는이가]|챗봇[은는이가들]|\bmedian\b|전체 ?평균|\bacross (?:all )?(?:the )?(?:\d{1,3} )?models\b",
    re.I,
)


def sentence_claims(sentence: str, context: Context) -> list[ExtractedClaim]:
    """The claims one sentence states."""
    models = list(models_in(sentence, context.defined))
    previous, context.last_metric = context.last_metric, None
    if sentence.count("|") >= 8:
        # cells of a table that could not be cut back into rows ("|| Question Difficulty Level | 1 (n = 7) | 86 |":
        # ophthalmology_gpt35_gpt4_humans_by_difficulty_category_pmc_table.md): no sentence says whose its numbers are
        remember_model(sentence, models, context)
        return []
    spans = [(p, sentence.find(n, p) + len(n) if sentence.find(n, p) == p else p + 1) for p, n in models]
    metrics = (
        not_in_names(metrics_in(sentence), spans)
        or _continued(sentence, previous)
        or _compared(sentence, models, context)
    )
    bound = bound_to_benchmark(sentence)
    if not metrics and not bound and "점" not in sentence:
        # no claim without a metric, but a score in points ("50점") names its own, and a percentage written on a
        # benchmark ("MedQA (89.8% vs 74.9%)") is that benchmark's score
        remember_model(sentence, models, context)
        return []
    numbers = [n for n in _result_numbers(sentence) if not any(s <= n[0] < e for s, e in spans)]
    if bound and not metrics:
        numbers = [n for n in numbers if n[0] in bound]
    if not numbers:
        unvalued = _unvalued(sentence, models, context)
        remember_model(sentence, models, context)
        return unvalued
    aligned = respectively(sentence, numbers, metrics, models)
    for index, name in labelled(sentence, numbers, metrics, models).items():
        aligned[index] = (aligned.get(index, (None, None))[0], name)
    claims: list[ExtractedClaim] = []
    partners: dict[str | None, str] = {}
    people_at: int | None = None
    for index, (start, end, raw, ci) in enumerate(numbers):
        metric, model = aligned.get(index, (None, None))
        metric = metric or metric_for(sentence, start, end, metrics) or achieved_metric(sentence, start, metrics)
        if metric is None and start not in bound:
            continue
        if said_of_people(sentence, start, [p for p, _ in models]) or (
            # and the values after it, until a model is named: "552명 전문가의 판독 결과 민감도는 평균 90%, 특이도는
            # 76%를 기록했다" (lunit_insight_mmg_*_ko.md)
            people_at is not None and not any(people_at < p < start for p, _ in models)
        ):
            people_at = start
            continue
        named_here = (
            model is not None
            or any(p < start for p, _ in models)
            # or named right after it: "the accuracies of the four LLMs were 97.2% for Gemini 2.5 Pro, ..."
            or any(p > end and FOR_AFTER.fullmatch(sentence[end:p]) for p, _ in models)
        )
        if not named_here and _AGGREGATE.search(sentence[max(0, start - 80) : start]):
            # "Machine learning algorithms showed ...", "LLM은 평균 64%", "Most chatbots demonstrated a median ...,
            # while ... a median accuracy of 67%" (cardiology_board_exam_chatbots_smw_summary.md): over many models
            continue
        model = model or model_for(sentence, numbers, index, models, context)
        if model is NOBODY:
            continue
        claim = _claim(sentence, raw, metric, model, start, ci)
        if re.search(r"\bfrom $", sentence[max(0, start - 6) : start]) or (
            index and re.search(r"\bfrom [\d.]{1,10} ?%? to $", sentence[max(0, start - 24) : start])
        ):
            claim = claim.model_copy(update={"notes": [*claim.notes, "one end of a change ('from ... to ...')"]})
        claims.append(claim)
        partner = _both(sentence, start, models) or partners.get(claim.model)
        if partner is not None and words(partner) != words(claim.model):
            # and the values after it are both models' too: "both achieving the same accuracy (82.9%) and
            # precision (54.5%)" (decompensated_cirrhosis_*_abstract.md)
            partners[claim.model] = partner
            claims.append(claim.model_copy(update={"model": partner}))
    context.last_metric = claims[-1].metric if claims else None
    owners = {claim.model for claim in claims}
    context.last_scored = owners.pop() if len(owners) == 1 else None
    remember_model(sentence, models, context)
    return claims


def _both(sentence: str, start: int, models: list[tuple[int, str]]) -> str | None:
    """The first of two models that "both" reached the value: "ChatGPT and Gemini both achieved 91%"."""
    before = [(p, n) for p, n in models if p < start]
    if len(before) < 2:
        return None
    (first_at, first), (second_at, second) = before[-2], before[-1]
    joined = sentence[first_at + len(first) : second_at] == " and "
    both = re.fullmatch(
        r"(?: models?(?: [a-z]{2,12}){0,3})?,? (?:both|each) [a-z]{2,12}(?: an?| the)?(?: [a-z]{2,12}){0,3} \(?"
        r"|\s?\((?:both|each) ",
        sentence[second_at + len(second) : start],
    )  # or "Bing and GPT-4 (both 76% correct answers)" (antwerp_exam_six_chatbots_medrxiv_abstract.md), "Naive Bayes
    # and Random Forest models also performed well, both achieving the same accuracy (82.9%)" (decompensated_*.md)
    return first if joined and both else None


# a value the sentence before measured, risen or fallen to: "정답률은 51.82%를 기록했다. 한의학 용어를 한자로 함께
# 적은 경우 57.59%로 상승했다" (gpt4_korean_medicine_exam_news_ko.md), "... rose to 71.2%"
_CONTINUES = re.compile(
    r"\d ?%(?:로|까지) ?(?:상승|올랐|높아|향상|하락|떨어)|\b(?:rose|rising|increased|improved|fell|dropped) to \d|"
    # "This was higher than that for the deep neural network (0.825; ...)" after "the AUROC was 0.867"
    # (postop_30day_mortality_multipath_cnn_acemap_abstract.md)
    r"^(?:This|That|It|These|Which) (?:was|were|is|are) (?:\w+ )?(?:higher|lower|better|worse|greater|superior|"
    r"inferior|comparable|similar)\b|"
    # "All models outperformed APS-III 0.713 and SAPS-II 0.681" after "XGBoost ... with AUC of 0.873"
    # (s_aki_28day_mortality_xgboost_*_abstract.md): the beaten models' values in the metric just named
    r"\b(?:outperformed|outperforming|surpassed|exceeded|beat) (?:the )?[A-Za-z][\w .+-]{1,30} \(?\d?\.\d",
    re.I,
)


def _continued(sentence: str, previous: str | None) -> list[tuple[int, int, str]]:
    """For a sentence that names no metric, the metric of the claim the sentence before ended with, when its value
    is written as where that result rose or fell to."""
    return [(0, 0, previous)] if previous and _CONTINUES.search(sentence) else []


_PAIRED = re.compile(r"\(\d{1,3}(?:\.\d{1,2})? ?% vs\.? \d{1,3}(?:\.\d{1,2})? ?%")


def _compared(sentence: str, models: list[tuple[int, str]], context: Context) -> list[tuple[int, int, str]]:
    """For a sentence that names no metric, the one metric its text measures with, when it compares two named
    models' percentages: "GPT-4o outperformed GPT-4 Turbo for both image-based (48.2% vs. 41.8%, P = 0.002) and
    text-only questions (77.9% vs. 69.0%)" in an abstract that measured accuracy
    (korean_radiology_in_training_exam_gpt4turbo_gpt4o_*.md)."""
    if context.usual_metric is None or len(models) < 2:
        return []
    # or that writes each model's percentage in brackets after its name: "In Clinical Practice Questions, Gemini 2.5
    # Pro (93.9%) surpassed ChatGPT-4o (57.6%; p = 0.019)" (endodontics_dus_turkiye_eight_llms_*.md)
    bracketed = sum(1 for p, name in models if _OWN_PERCENT.match(sentence, p + len(name)))
    if not _PAIRED.search(sentence) and bracketed < 2:
        return []
    return [(0, 0, context.usual_metric)]


_OWN_PERCENT = re.compile(r" ?\(\d{1,3}(?:\.\d{1,2})? ?%[;,)]")


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
        model = before[-1] if before else subject_of(sentence, context)
        if model is None:
            continue
        claims.append(
            ExtractedClaim(
                model=model,
                dataset=canonical_dataset(name),
                metric=metric_for(sentence, position, position, metrics_in(sentence)),
                setting=settings_of(sentence),
                evidence=_clip(sentence, position),
                notes=["no number read as this result's value" if stated else "no number stated"],
            )
        )
    return claims


def _result_numbers(sentence: str) -> list[tuple[int, int, str, tuple[float, float] | None]]:
    found: list[tuple[int, int, str, tuple[float, float] | None]] = []
    skip_until = -1
    dropped: tuple[int, int, str, tuple[float, float] | None] | None = None
    for match in _NUMBER.finditer(sentence):
        start, end = match.span()
        if start < skip_until:
            continue
        ci = _CI.match(sentence[end : end + 80])
        if ci:
            skip_until = end + ci.end()
        bounds = (float(ci.group(1)), float(ci.group(2))) if ci else None
        number = (start, end, match.group(0).strip(), bounds)
        if not_a_result(sentence, match):
            dropped = number
            continue
        # a value restated in brackets on another scale is the value before it, a result or not: "Expected Mean AUC:
        # 0.703 (70.3%)"; not a list after a bound (">0.98 (0.995, 0.988, ...)": eighteen_llms_*_abstract.md)
        if (found and _restated(sentence, found[-1], match)) or (
            dropped and _restated(sentence, dropped, match, scales=(100.0, 0.01))
        ):
            continue
        found.append(number)
    return found


def _restated(
    sentence: str,
    previous: tuple[int, int, str, tuple[float, float] | None],
    match: re.Match[str],
    scales: tuple[float, ...] = (100.0, 0.01, 1.0),
) -> bool:
    """A value restated in brackets on another scale: "Accuracy: 0.6152 (61.5%)", "AUROC 86.4 (0.864)"
    (mortality_lstm_synthetic_mimic3_technical_report.md): one result, written twice."""
    if not re.fullmatch(r" ?\(~?", sentence[previous[1] : match.start()]):
        return False
    try:
        first, second = float(previous[2].rstrip("% ").replace(",", "")), float(match.group(1).replace(",", ""))
    except ValueError:
        return False
    return any(abs(first * scale - second) <= 0.051 * max(1.0, scale / 10) for scale in scales)


# benchmarks graded by a rubric, whose percentages are scores, not shares answered right (healthbench_*.md)
_RUBRIC = re.compile(r"HealthBench|rubric|MedHELM|win rate", re.I)


def _claim(
    evidence: str, raw: str, metric: str | None, model: str | None, start: int, ci: tuple[float, float] | None
) -> ExtractedClaim:
    if metric == "score" and re.search(
        r"\baverage (?:score )?of $|\bmean (?:score )?of $", evidence[max(0, start - 20) : start]
    ):
        metric = "average score"  # "scoring an average of 96.4" (kmed_ai_snuh_naver_news.md)
    if metric == "score" and "%" in raw and re.match(r" ?\(\d{1,5} ?(?:/|of) ?\d{1,5}\)", evidence[start + len(raw) :]):
        metric = "accuracy"  # "ChatGPT scored 74.9% (143/191)": the share of questions it got right
    if metric == "score" and raw.rstrip().endswith("%") and not _RUBRIC.search(evidence):
        metric = "accuracy"  # a score written as a percentage is the share answered right: "scored highest in
        # Psychiatry (100%)" (taiwan_internal_medicine_exam_*_abstract.md); a rubric's is a score (HealthBench)
    reading = read_value(raw, metric=metric, score=bool(metric and metric.endswith("score")) and "%" not in raw)
    value = reading.value if reading else None
    ci_read = None
    if ci is not None and reading is not None and reading.value is not None:
        scale = 100.0 if ci[1] > 1 and reading.value <= 1 else 1.0
        ci_read = [ci[0] / scale, ci[1] / scale]
    found = benchmarks_in(evidence)
    dataset = nearest_benchmark(found, start, evidence)
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


def _clip(sentence: str, start: int) -> str:
    if len(sentence) <= MAX_EVIDENCE:
        return sentence
    left = max(0, start - MAX_EVIDENCE // 2)
    return sentence[left : left + MAX_EVIDENCE]

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

from evaluator.papers.lists import respectively
from evaluator.papers.names import benchmarks_in, metrics_in, models_in
from evaluator.papers.numbers import in_points, not_a_result, said_of_people
from evaluator.papers.on_benchmark import bound_to_benchmark, nearest_benchmark
from evaluator.papers.record import ExtractedClaim
from evaluator.papers.scoring import words
from evaluator.papers.vocabulary import read_value, resolve_dataset, settings_of

MAX_EVIDENCE = 600
# a value may follow a comma only after a percentage: "69.1%,64.3%,73.9%" (chatgpt_chinese_licensing_*.md)
_NUMBER = re.compile(
    r"(?<![\w./#-])(?<![^%],)(-?(?:\d{1,3}(?:,\d{3})+|\d{1,6})(?:\.\d{1,6})?|-?\.\d{1,6})(?![\d,]\d)( ?%)?"
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
_COMPARED = re.compile(r"\b(?:than|compared (?:with|to)|relative to)\b", re.I)
# "0.98 [0.98-0.98] vs 0.93": an interval may sit between the value and "vs" (aki_severity_rnn_vs_lr_abstract.md)
_VERSUS = re.compile(r"^(?: ?[(\[][^()\[\]]{0,50}[)\]])?[ )\],]{0,60}?\b(?:vs\.?|versus)[ (]{1,3}$", re.I)
# a contrast: the model named after it is not the one the value before it belongs to (but "AUROC (0.856) and AUPRC
# (0.331) were the highest for the admission GBT model": icu_admission_mortality_gbt_bmc_abstract.md)
_CONTRAST = re.compile(r";|\b(?:while|whereas|but|compared|than|vs\.?|versus|unlike)\b|보다|대비|반면")
# the model named right after one of these is what the sentence's subject was compared with
_OUTDONE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|exceed\w*|beat|beats|beating|tops|than|compared (?:with|to)|over|against)\W{0,3}"
    r"(?:the )?$",
    re.I,
)
_NOBODY = "\0"  # _model_for's answer for a value it knows is not the named model's
# words of "the <words> model" that do not tell one model from another
_PLAIN_QUALIFIERS = frozenset(
    re.findall(
        r"\w+",
        "the our this model system algorithm method index variant version newly released recently latest final "
        "proposed best new same developed full base baseline "
        "prediction predictive learning machine deep language large ai",
    )
)
_THE_MODEL = re.compile(
    r"\b(?:the|our|this) (?:[\w-]{1,20} ){0,4}?(?:model|system|algorithm|method|index|variant|version)\b", re.I
)


@dataclass
class Context:
    """What the claim reader knows about the whole document."""

    subjects: list[str]
    defined: dict[str, str] = field(default_factory=dict)
    last_model: str | None = None
    called_model: str | None = None  # the last name written as "<name> model"
    named: list[str] = field(default_factory=list)  # every model named so far, in order
    last_metric: str | None = None  # the metric of the sentence before's last claim


def sentence_claims(sentence: str, context: Context) -> list[ExtractedClaim]:
    """The claims one sentence states."""
    models = list(models_in(sentence, context.defined))
    previous, context.last_metric = context.last_metric, None
    metrics = metrics_in(sentence) or _continued(sentence, previous)
    bound = bound_to_benchmark(sentence)
    if not metrics and not bound and "점" not in sentence:
        # no claim without a metric, but a score in points ("50점") names its own, and a percentage written on a
        # benchmark ("MedQA (89.8% vs 74.9%)") is that benchmark's score
        _remember_model(sentence, models, context)
        return []
    spans = [(p, sentence.find(n, p) + len(n) if sentence.find(n, p) == p else p + 1) for p, n in models]
    numbers = [n for n in _result_numbers(sentence) if not any(s <= n[0] < e for s, e in spans)]
    if bound and not metrics:
        numbers = [n for n in numbers if n[0] in bound]
    if not numbers:
        claims = _unvalued(sentence, models, context)
        _remember_model(sentence, models, context)
        return claims
    aligned = respectively(sentence, numbers, metrics, models)
    claims = []
    for index, (start, end, raw, ci) in enumerate(numbers):
        metric, model = aligned.get(index, (None, None))
        metric = metric or _metric_for(sentence, start, end, metrics)
        if metric is None and start not in bound:
            continue
        if said_of_people(sentence, start, [p for p, _ in models]):
            continue
        named_here = model is not None or any(p < start for p, _ in models)
        if not named_here and _AGGREGATE.search(sentence[max(0, start - 80) : start]):
            # "Machine learning algorithms showed ...", "LLM은 평균 64%", "Most chatbots demonstrated a median ...,
            # while ... a median accuracy of 67%" (cardiology_board_exam_chatbots_smw_summary.md): over many models
            continue
        model = model or _model_for(sentence, numbers, index, models, context)
        if model is _NOBODY:
            continue
        claim = _claim(sentence, raw, metric, model, start, ci)
        if re.search(r"\bfrom $", sentence[max(0, start - 6) : start]) or (
            index and re.search(r"\bfrom [\d.]{1,10} ?%? to $", sentence[max(0, start - 24) : start])
        ):
            claim = claim.model_copy(update={"notes": [*claim.notes, "one end of a change ('from ... to ...')"]})
        claims.append(claim)
    context.last_metric = claims[-1].metric if claims else None
    _remember_model(sentence, models, context)
    return claims


# a value the sentence before measured, risen or fallen to: "정답률은 51.82%를 기록했다. 한의학 용어를 한자로 함께
# 적은 경우 57.59%로 상승했다" (gpt4_korean_medicine_exam_news_ko.md), "... rose to 71.2%"
_CONTINUES = re.compile(
    r"\d ?%(?:로|까지) ?(?:상승|올랐|높아|향상|하락|떨어)|\b(?:rose|rising|increased|improved|fell|dropped) to \d|"
    # "This was higher than that for the deep neural network (0.825; ...)" after "the AUROC was 0.867"
    # (postop_30day_mortality_multipath_cnn_acemap_abstract.md)
    r"^(?:This|That|It|These|Which) (?:was|were|is|are) (?:\w+ )?(?:higher|lower|better|worse|greater|superior|"
    r"inferior|comparable|similar)\b",
    re.I,
)


def _continued(sentence: str, previous: str | None) -> list[tuple[int, int, str]]:
    """For a sentence that names no metric, the metric of the claim the sentence before ended with, when its value
    is written as where that result rose or fell to."""
    return [(0, 0, previous)] if previous and _CONTINUES.search(sentence) else []


# a bracketed value followed by "than" in Korean or English, perhaps after more bracketed values
_COMPARED_AFTER = re.compile(r"%?\)(?:[^()]{0,30}\([\d.]{1,8}%?\)){0,4}[과와 ]{0,2}(?:보다|대비|\s+than\b)")


def _adjacent(sentence: str, model: tuple[int, str], start: int) -> bool:
    return sentence[model[0] + len(model[1]) : start].strip() in ("(", "")


_BRACKETED = re.compile(r"\([^()]{0,200}\)")
_SCORED_VERB = re.compile(r"scored|scoring", re.I)
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
        if not_a_result(sentence, match) or (found and _restated(sentence, found[-1], match)):
            continue
        bounds = (float(ci.group(1)), float(ci.group(2))) if ci else None
        found.append((start, end, match.group(0).strip(), bounds))
    return found


def _restated(sentence: str, previous: tuple[int, int, str, tuple[float, float] | None], match: re.Match[str]) -> bool:
    """A value restated in brackets on another scale: "Accuracy: 0.6152 (61.5%)", "AUROC 86.4 (0.864)"
    (mortality_lstm_synthetic_mimic3_technical_report.md): one result, written twice."""
    if not re.fullmatch(r" ?\(~?", sentence[previous[1] : match.start()]):
        return False
    try:
        first, second = float(previous[2].rstrip("% ").replace(",", "")), float(match.group(1).replace(",", ""))
    except ValueError:
        return False
    return any(abs(first * scale - second) <= 0.051 * max(1.0, scale / 10) for scale in (100.0, 0.01, 1.0))


_VALUES_BETWEEN = re.compile(r"(?: ?%?,? (?:and |or )?-?\d{1,3}(?:\.\d{1,4})?){1,8} ?%? ?")


def _metric_for(sentence: str, start: int, end: int, metrics: list[tuple[int, int, str]]) -> str | None:
    """The metric named nearest before the value in its clause, else right after it ("66.18% accuracy"); a value
    in points is a score."""
    if in_points(sentence, end):
        return "score"
    # a semicolon ends the metric's clause, but not one inside brackets: "(0.825; 95% CI: 0.790-0.860), random forest
    # (0.848; ...)" (postop_30day_mortality_multipath_cnn_acemap_abstract.md)
    before = [m for m in metrics if m[1] <= start and ";" not in _BRACKETED.sub("", sentence[m[1] : start])]
    # "66.18% accuracy"; "61.2%, 55.0% and 70.4% F1 score": a list of values before one metric
    after = [
        m for m in metrics if m[0] >= end and (m[0] - end <= 12 or _VALUES_BETWEEN.fullmatch(sentence[end : m[0]]))
    ]
    if after and (not before or re.match(r"^ ?%? ?\(?$", sentence[end : after[0][0]])):
        return after[0][2]
    if (
        len(before) >= 2
        and _SCORED_VERB.fullmatch(sentence[before[-1][0] : before[-1][1]])
        and "%" in sentence[end - 1 : end + 1]
    ):
        # a percentage after "scored" is the metric named before it: "achieved the highest accuracy (89.3%), ... while
        # OpenBioLLM and DeepSeek-V3 scored the lowest (78.2% ...)" (usmle_seven_llms_amboss_turkmedstudj_*.md); but
        # "scoring an average of 96.4" is a score (kmed_ai_snuh_naver_news.md)
        return before[-2][2]
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
        # "A outperformed B (AUROC 0.817 vs. 0.795)": the second value is B's, the first the sentence subject's;
        # with B not recognised as a model the value is nobody's the reader knows (icu_mortality_gradient_*.md)
        named = [n for p, n in models if p < previous[0]]
        first = named[-2] if len(named) >= 2 else _subject_of(sentence, context)
        return named[-1] if named and not (first and words(first) == words(named[-1])) else _NOBODY
    nxt = numbers[index + 1] if index + 1 < len(numbers) else None
    if nxt and _VERSUS.match(sentence[numbers[index][1] : nxt[0]]) and len(models) >= 1:
        before = [(p, n) for p, n in models if p < start]
        if len(before) >= 2:
            return before[-2][1]
        if before and not _OUTDONE.search(sentence[max(0, before[0][0] - 40) : before[0][0]]):
            # "the index ... respectively was 0.957 (95% CI ...) versus 0.923": one model named, the pair is two
            # ways of measuring it (hpi_forward_backward_anesthesiology_abstract.md)
            return before[0][1]
        # "Outperforms Gemma 3 27B ... MedQA (89.8% vs 74.9%)": the first value is the beaten model's better, the
        # text's subject (medgemma_27b_text_featherless_unsloth_summary.md)
        beaten = words(before[-1][1]) if before else set()
        subject = context.subjects[0] if len(context.subjects) == 1 else None
        if subject and words(subject) != beaten:
            return subject
        return _subject_of(sentence, context) if before else None
    prior = [(p, n) for p, n in models if p < start]
    if _COMPARED_AFTER.match(sentence, numbers[index][1]) and not (prior and _adjacent(sentence, prior[-1], start)):
        # "평균 대치법(0.885)과 MICE(0.827)보다 높은": the values of what the subject beat, written in brackets after
        # names the reader does not know (aitrics_vitalcare_missing_data_digitalchosun_ko.md)
        return _NOBODY
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
    after = [(p, n) for p, n in models if p > start]
    if after and _CONTRAST.search(sentence[numbers[index][1] : after[0][0]]):
        # "X reached 61.2% accuracy, while GPT-4 reached 72.4%": the value is not the later clause's model's but
        # "the model"'s, or a name the reader missed
        return _subject_of(sentence, context) if _THE_MODEL.search(sentence) else _NOBODY
    return _subject_of(sentence, context, start) or (after[0][1] if len(after) == 1 else None)


def _subject_of(sentence: str, context: Context, start: int | None = None) -> str | None:
    """ "The model" is the document's one subject; with none, an unnamed model (not guessed: the scalogram
    preprint's "the model" is neither of the two networks it is built from). A sentence naming no model
    continues the one named last (gpt4_korean_medicine_exam_chosun_ko.md)."""
    described = list(_THE_MODEL.finditer(sentence))
    nearest = [m for m in described if start is not None and m.start() < start]
    the_model = nearest[-1] if nearest else (described[0] if described else None)
    if the_model:
        # "The logistic model showed ..." after "a ... logistic regression model" and "an extreme gradient boosting
        # model": the words before "model" say which of the models named before it is meant
        # (icu_mortality_mimic_eicu_logistic_abstract.md); "the 27B text model" the one sharing most of its words
        # (medgemma_27b_multimodal_zoonop_news.md)
        said = words(the_model.group(0)) - _PLAIN_QUALIFIERS
        shared = [(len(said & words(name)), -k) for k, name in enumerate(reversed(context.named))]
        best = max(shared, default=(0, 0))
        if best[0]:
            return list(reversed(context.named))[-best[1]]
        if any(re.fullmatch(r"\d{1,4}(?:\.\d)?[bm]", word) for word in said):
            return None  # "The 4B variant" of a family whose 4B model the text never names: not guessed
        if len(context.subjects) == 1:
            return context.subjects[0]
        # "the sensitivity and specificity of the model" when one model only has been named
        # (postop_delirium_xgboost_samsung_aminer_abstract.md)
        return context.called_model or (context.named[0] if len(set(context.named)) == 1 else None)
    if len(context.subjects) == 1 and _WE.search(sentence):
        # "By adding mortality prediction as a side-task, we can improve performance further still, resulting in a
        # mean absolute deviation of 1.55 days": what the authors did is their model's (tpc_los_eicu_mimic4_*.md)
        return context.subjects[0]
    return context.last_model or (context.subjects[0] if len(context.subjects) == 1 else None)


_WE = re.compile(r"\b(?:we|our)\b|우리", re.I)
# the model a text's subject was made from is not what its next sentences are about: "This model is a fine-tuned
# version of X on an unknown dataset. It achieves ... Accuracy: 0.4002" (medqa_linkbert_trainer_card_raw.md)
_MADE_FROM = re.compile(
    r"\b(?:fine-?tuned (?:version )?(?:of|from)|based on|built (?:on|upon)|initiali[sz]ed from)\W{0,4}"
    r"(?:[\w.-]{1,40}/)?$",
    re.I,
)


def _remember_model(sentence: str, models: list[tuple[int, str]], context: Context) -> None:
    told = [(p, n) for p, n in models if not _MADE_FROM.search(sentence[max(0, p - 40) : p])]
    if told:
        context.last_model = told[0][1]
    context.named += [name for _, name in models]
    for position, name in models:
        if re.match(r"^[\w.+ -]{0,60}? model\b", sentence[position : position + len(name) + 8]):
            context.called_model = name


def _claim(
    evidence: str, raw: str, metric: str | None, model: str | None, start: int, ci: tuple[float, float] | None
) -> ExtractedClaim:
    if metric == "score" and re.search(
        r"\baverage (?:score )?of $|\bmean (?:score )?of $", evidence[max(0, start - 20) : start]
    ):
        metric = "average score"  # "scoring an average of 96.4" (kmed_ai_snuh_naver_news.md)
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

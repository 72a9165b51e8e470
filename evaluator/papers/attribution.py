"""Whose a value is: the model a sentence's value belongs to, among the models it names, the text's subject and the
models named before (see claims.py for the values themselves)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.papers.measures import metric_of, metrics_in
from evaluator.papers.model_words import METHODS, PEOPLE
from evaluator.papers.scoring import words

# and a verb of beating: "GPT-4 outperformed GPT-3.5 across all units, achieving average accuracies of 66.57%"
# (chinese_nmle_six_llms_mendeley_abstract.md) is GPT-4's, unless a relative clause opens after the beaten model
_COMPARED = re.compile(
    r"\b(?:than|compared (?:with|to)|relative to|outperform(?:s|ed|ing)?|surpass(?:es|ed|ing)?|beat(?:s|ing)?)\b"
    r"(?![^;]{0,80}?\b(?:which|who|whose)\b)",
    re.I,
)
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
NOBODY = "\0"  # _model_for's answer for a value it knows is not the named model's
# words of "the <words> model" that do not tell one model from another
_PLAIN_QUALIFIERS = frozenset(
    re.findall(
        r"\w+",
        "the our this model system algorithm method index variant version newly released recently latest final "
        "proposed best new same developed full base baseline "
        "prediction predictive learning machine deep language large ai",
    )
)
THE_MODEL = re.compile(
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
    usual_metric: str | None = None  # the one metric the text names (an exam study's "accuracy"), if only one
    # the metric the text writes after a word, where only one follows it: "triage accuracy" gives triage -> accuracy
    metric_words: dict[str, str] = field(default_factory=dict)
    base_model: str | None = None  # the model the text's subject was made from, when the text says
    last_scored: str | None = None  # the one model the sentence before's results were all about, if one
    tuned_from: str | None = None  # the model a sentence says was fine-tuned ("to fine-tune Qwen2.5-7B-Instruct")


# a bracketed value followed by "than" in Korean or English, perhaps after more bracketed values
_COMPARED_AFTER = re.compile(r"%?\)(?:[^()]{0,30}\([\d.]{1,8}%?\)){0,4}[과와 ]{0,2}(?:보다|대비|\s+than\b)")


def _adjacent(sentence: str, model: tuple[int, str], start: int) -> bool:
    return sentence[model[0] + len(model[1]) : start].strip() in ("(", "")


# "163/176 (92.6%) for OpenAI o1", and "85.5% (94/110) for GPT-4o" (japanese_public_health_nurse_exam_*.md)
_OTHER_SUBJECT = re.compile(
    r"[,;] (?:while|whereas|but) (?:the )?[A-Z][\w.-]{1,20}(?: [A-Z0-9+][\w.+-]{0,20}){0,3} "
    r"(?:had|has|was|got|[a-z]{2,14}ed)\b"  # "while Command R + lagged with 50%" (turkish_specialty_exam_*.md)
)
# people as the subject of a clause: "pooled physicians performed", "the residents scored", "students averaged"
_PEOPLE_DID = re.compile(
    r"\b(?:(?:pooled|human|practicing|practising|attending|senior|junior|medical|nursing|dental|board-certified) )?"
    r"(?:physicians|clinicians|doctors|residents|students|nurses|experts|humans|participants|examinees|candidates|"
    r"pharmacists|dentists|radiologists|surgeons|anesthesiologists|interns|trainees|postgraduates|graduates|"
    r"specialists|fellows|attendings|emergency physicians) "
    # perhaps with what sets them apart: "Postgraduates with 5+ years of experience scored 43.5±3.03"
    r"(?:\w+ |with [\w+ -]{1,40}? )?(?:performed|had|scored|achieved|obtained|reached|showed|got|answered|averaged)\b",
    re.I,
)
FOR_AFTER = re.compile(
    # the value's interval may come between: "79.3% (95% CI, 72.6%-86%) for Perplexity AI", and "both" after "for":
    # "0.82 for both ARISCAT and SPORC-1" (bps_pharmacy_specialty_*_abstract.md, respire_postoperative_*.md)
    r"%?\)?(?: ?\(\d{1,5} ?(?:/|of|out of) ?\d{1,5}\))?(?: ?[(\[][^()\[\]]{0,60}[)\]])? (?:for|by|with|from) "
    r"(?:both )?(?:the |OpenAI'?s? |Google'?s? )?"
)


def model_for(
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
        first = named[-2] if len(named) >= 2 else subject_of(sentence, context)
        return named[-1] if named and not (first and words(first) == words(named[-1])) else NOBODY
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
        return subject_of(sentence, context) if before else None
    later = [(p, n) for p, n in models if p > start]
    if later and FOR_AFTER.fullmatch(sentence[numbers[index][1] : later[0][0]]):
        # "163/176 (92.6%) for OpenAI o1": the value is the model named after "for" (spanish_mir_2024_*.md)
        return later[0][1]
    # "0.8779(Random Forest), 0.8377(Support Vector Machine)": the model in the bracket after the value is its
    # (colorectal_cancer_chemotherapy_adr_*_abstract.md), when the bracket holds only the name
    if (
        later
        and re.fullmatch(r"%? ?\(", sentence[numbers[index][1] : later[0][0]])
        and sentence.startswith(")", later[0][0] + len(later[0][1]))
    ):
        return later[0][1]
    prior = [(p, n) for p, n in models if p < start]
    metric_bracket = bool(metrics_in(sentence[max(0, start - 30) : start].rstrip(" (")[-30:])) and bool(
        re.search(r"[A-Za-z가-힣] ?\($", sentence[max(0, start - 3) : start])
    )  # "a higher correct response rate (73.8%) than GPT-4 (63.3%)": the metric's value, the subject's
    if (
        _COMPARED_AFTER.match(sentence, numbers[index][1])
        and not (prior and _adjacent(sentence, prior[-1], start))
        and not (metric_bracket and prior and len(prior) == 1)
    ):
        # "평균 대치법(0.885)과 MICE(0.827)보다 높은": the values of what the subject beat, written in brackets after
        # names the reader does not know (aitrics_vitalcare_missing_data_digitalchosun_ko.md)
        return NOBODY
    comparison = _COMPARED.search(sentence, prior[0][0], start) if prior else None
    adjacent = (
        bool(prior)
        and bool(
            re.match(
                r"^[\w.+-]*(?: (?:algorithms?|models?|methods?))? ?\($",
                sentence[prior[-1][0] : start].split(" ", 1)[-1],
            )
            or re.match(r"^\S+ \($|^\S+(?: \S+){0,3} (?:algorithms?|models?) \($", sentence[prior[-1][0] : start])
            # "outperforming the random forest (AUROC: 0.71)": the bracket names the metric before the beaten model's
            # value (pih_ml_bmc_medinform_abstract.md)
            or re.match(
                re.escape(prior[-1][1]) + r" \((?:[A-Za-z][\w-]{1,12}[:=,]? ?)?$", sentence[prior[-1][0] : start]
            )
            # or still inside the bracket opened after it: "compared with SAPS 3 (AUC 0.85 and Brier score 0.109)"
            # (icu_30day_mortality_ann_vs_saps3_sweden_pmc_abstract.md)
            or re.match(re.escape(prior[-1][1]) + r" ?\([^()]{0,80}$", sentence[prior[-1][0] : start])
            # or the model's own, by the possessive: "higher than GPT-4's 74.3%" (jnde_117th_gpt4o_vs_gpt4_*.md)
            or re.match(re.escape(prior[-1][1]) + r"['’′]s (?:[a-z]{2,20} ){0,2}$", sentence[prior[-1][0] : start])
        )
    )
    listed = len(prior) >= 2 and bool(re.search(r"(?:,| and| or) (?:the )?$", sentence[: prior[-1][0]]))
    # each compared model with its own bracketed value: "outperforming the random forest (AUROC: 0.71), XGBoost (AUROC:
    # 0.72), and neural network (AUROC: 0.72)" (pih_ml_bmc_medinform_abstract.md)
    own = adjacent and len(prior) >= 2 and "(" in sentence[prior[-2][0] : prior[-1][0]]
    if comparison is not None and prior[0][0] < comparison.start() and (listed or not adjacent) and not own:
        # "STEP-OP ... had greater AUPRC values than those of the RNN and CNN algorithms (0.716 ...)": the value
        # is the subject's, not the compared models'; but "than that of the logistic regression algorithm
        # (0.673 ...)" gives the one compared model's own value (step_op_ioh_abstract.md)
        prior = [(p, n) for p, n in prior if p < comparison.start()]
    if _PEOPLE_DID.search(sentence, prior[-1][0] + len(prior[-1][1]) if prior else 0, start):
        # "Pooled physicians performed lowest (AUROC 0.65 ...)": people's result, no model's
        # (unplanned_admission_physicians_clmbr_t_llms_vignettes_*.md)
        return NOBODY
    if prior and _OTHER_SUBJECT.search(sentence, prior[-1][0] + len(prior[-1][1]), start):
        # "..., while Le Chat had the lowest accuracy at 79%": a clause of its own about a name the reader does not
        # know (blood_physiology_mcq_six_llms_aiims_raebareli_dimpulse_news.md); the value is not the model's before
        return NOBODY
    if prior:
        return prior[-1][1]
    after = [(p, n) for p, n in models if p > start]
    if after and _CONTRAST.search(sentence[numbers[index][1] : after[0][0]]):
        # "X reached 61.2% accuracy, while GPT-4 reached 72.4%": the value is not the later clause's model's but
        # "the model"'s, or a name the reader missed
        return subject_of(sentence, context) if THE_MODEL.search(sentence) else NOBODY
    return subject_of(sentence, context, start) or (after[0][1] if len(after) == 1 else None)


def subject_of(sentence: str, context: Context, start: int | None = None) -> str | None:
    """ "The model" is the document's one subject; with none, an unnamed model (not guessed: the scalogram
    preprint's "the model" is neither of the two networks it is built from). A sentence naming no model
    continues the one named last (gpt4_korean_medicine_exam_chosun_ko.md)."""
    described = list(THE_MODEL.finditer(sentence))
    nearest = [m for m in described if start is not None and m.start() < start]
    the_model = nearest[-1] if nearest else (described[0] if described else None)
    if the_model and context.tuned_from:
        # "the fine-tuned model achieved 58.0% accuracy compared to the base model's 55.0%", of a text that fine-tunes
        # a model it names in prose (korean_essential_medical_qlora_*_abstract.md)
        stage = re.search(r"\b(base|original|fine-?tuned|tuned|adapted)\b", the_model.group(0), re.I)
        if stage and stage.group(1).lower() in ("base", "original"):
            return context.tuned_from
        if stage:
            made = [s for s in context.subjects if words(s) != words(context.tuned_from)]
            return made[0] if len(made) == 1 else f"fine-tuned {context.tuned_from}"
    if the_model:
        # "The logistic model showed ..." after "a ... logistic regression model" and "an extreme gradient boosting
        # model": the words before "model" say which of the models named before it is meant
        # (icu_mortality_mimic_eicu_logistic_abstract.md); "the 27B text model" the one sharing most of its words
        # (medgemma_27b_multimodal_zoonop_news.md)
        said = words(the_model.group(0)) - _PLAIN_QUALIFIERS
        meant = max(reversed(context.named), key=lambda name: len(said & words(name)), default=None)
        if meant is not None and said & words(meant):  # the latest of those sharing most words
            return meant
        if any(re.fullmatch(r"\d{1,4}(?:\.\d)?[bm]", word) for word in said):
            return None  # "The 4B variant" of a family whose 4B model the text never names: not guessed
        if len(context.subjects) == 1:
            return context.subjects[0]
        description = _described(the_model.group(0), sentence[the_model.end() : the_model.end() + 20])
        if description:
            # "The ensemble ML model achieved an AUC of 0.88" where no model of those words is named: the model is
            # the one the text describes (gpt4_ed_admission_prediction_rag_ml_probabilities_jove_summary.md)
            return description
        # "the sensitivity and specificity of the model" when one model only has been named
        # (postop_delirium_xgboost_samsung_aminer_abstract.md)
        # or, after a sentence whose results were all one model's, that model: "Among multiple models, CatBoost
        # achieved the best performance, with ... External validation ... confirmed the model's robustness, with an
        # AUC of 0.65" (total_hip_arthroplasty_aki_catboost_*_abstract.md)
        return (
            context.called_model
            or (context.named[0] if len(set(context.named)) == 1 else None)
            or (context.last_scored if start is not None else None)
        )
    if len(context.subjects) == 1 and _WE.search(sentence):
        # "By adding mortality prediction as a side-task, we can improve performance further still, resulting in a
        # mean absolute deviation of 1.55 days": what the authors did is their model's (tpc_los_eicu_mimic4_*.md)
        return context.subjects[0]
    return context.last_model or (context.subjects[0] if len(context.subjects) == 1 else None)


def _described(phrase: str, after: str) -> str | None:
    """ "ensemble ML model" of "The ensemble ML model": a model the text names by what it is, when its words say
    which ("the proposed model", "the TAUCs of the implemented model" say nothing of the kind)."""
    start = list(re.finditer(r"\b(?:the|our|this) ", phrase, re.I))[-1].end()
    named = phrase[start:]
    said = [word for word in named.split()[:-1] if word.lower() not in _PLAIN_QUALIFIERS]
    if (
        not said
        or any(_LINKING.fullmatch(word) or metric_of(word) for word in said)
        or _MODEL_AS_ADJECTIVE.match(after)
    ):
        return None
    return None if re.search(r"\b\d{1,4}(?:\.\d)?[bm]\b", named, re.I) else named


# words that link or say how a model did or where it stands, not what it is: "the TAUCs of the implemented model",
# "the best performing model", "the first language model"
_LINKING = re.compile(
    r"of|in|on|for|and|or|with|to|a|an|at|by|from|as|implemented|first|second|third|other|previous|original|current|"
    r"present|performing|best-performing|top|winning|selected|chosen|trained|optimal|optimi[sz]ed|resulting|overall|"
    r"underlying|given|same|corresponding|respective|two|three|four|several|these|those|each|both|between|among|across|"
    r"analysis|analyses",
    re.I,
)
# "model" before the noun it describes: "our correlation analysis between model scores"
_MODEL_AS_ADJECTIVE = re.compile(
    r"s?\s+(?:scores?|performance|outputs?|predictions?|sizes?|results?|parameters|weights|famil(?:y|ies)|training|"
    r"evaluation|comparison|selection|cards?|architecture|calibration|development|accuracy|answers?|responses?)\b",
    re.I,
)
_WE = re.compile(r"\b(?:we|our)\b|우리", re.I)
# the model a text's subject was made from is not what its next sentences are about: "This model is a fine-tuned
# version of X on an unknown dataset. It achieves ... Accuracy: 0.4002" (medqa_linkbert_trainer_card_raw.md)
_MADE_FROM = re.compile(
    # and a card's field: "Finetuned from model: monologg/koelectra-..." (medical_ner_koelectra_kbmc_*.md)
    r"\b(?:fine-?tuned (?:version )?(?:of|from)|finetuned from(?: model)?:?|base model:?|based on|built (?:on|upon)|"
    r"initiali[sz]ed from)\W{0,4}"
    r"(?:[\w.-]{1,40}/)?$",
    re.I,
)


# a model named as the one fine-tuned: "to fine-tune Qwen2.5-7B-Instruct with 4-bit NF4 quantization", "we fine-tuned
# Llama-3-8B on"
_TUNED_BEFORE = re.compile(r"\b(?:fine-?tun(?:e|ed|ing)|LoRA-tun(?:e|ed|ing))(?: the| a)? $", re.I)


def remember_model(sentence: str, models: list[tuple[int, str]], context: Context) -> None:
    # a model "based on" a method is a model of that kind, not one made from another model: "a prediction model based
    # on extreme gradient boosting" (poaf_cardiac_surgery_xgboost_*_abstract.md)
    told = [(p, n) for p, n in models if not _MADE_FROM.search(sentence[max(0, p - 40) : p]) or METHODS.fullmatch(n)]
    if told:
        context.last_model = told[0][1]
    tuned = [n for p, n in models if _TUNED_BEFORE.search(sentence[max(0, p - 30) : p])]
    if tuned and not METHODS.fullmatch(tuned[0]):
        context.tuned_from = context.tuned_from or tuned[0]
    context.named += [name for _, name in models]
    for position, name in models:
        if re.match(
            r"^[\w.+ -]{0,60}? (?:model|classifier|algorithm)\b", sentence[position : position + len(name) + 14]
        ):
            context.called_model = name


def said_of_people(sentence: str, start: int, model_positions: list[int]) -> bool:
    """Whether the clause holding the value at `start` is about people and names no model before it: "분석 결과,
    다수 의료진이 선택한 답안 정확도는 85.0%였고 GPT-4o는 88.4%" (ai_clinical_cases_o1_dailymedi_ko.md)."""
    cut = max(
        (m.end() for m in re.finditer(r"[,;:]\s|\b(?:while|whereas|but)\s|였고\s|이고\s", sentence[:start])), default=0
    )
    clause = sentence[cut:start]
    people = list(PEOPLE.finditer(clause))
    if not people or any(cut <= p < start for p in model_positions):
        return False
    # "실제 의사들의 평균 정답률(79.9%)보다 높은 86.2%": the value is compared with the people's, not theirs
    # (snuh_korean_medical_llm_kmle_news_ko.md)
    return not re.search(r"보다|대비|비교|\bthan\b|\bcompared\b|\bvs\b|\bversus\b", clause[people[-1].end() :], re.I)

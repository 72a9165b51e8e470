"""Numbers that are not results: which numbers of a sentence the claim reader leaves out.

An invented number is the worst error a reader makes, so when the words around a number say it is something other
than a model's result, it is left out. Each class is justified by corpus files (tests/data/reader_corpus):
- sample sizes, counts and times, with a unit word after them (or after the list they end: "5, 10, and 15 min")
  or thousands separators (kormedmcqa_*, step_op_ioh_*,
  mv_mortality_catboost_medrxiv_abstract.md: "25,202 eligible patients", "32 features");
- years, dates, times, versions, ranks, p-values (icu_mortality_calibration_drift_abstract.md), part labels
  ("internal medicine (2)");
- thresholds, pass marks and bounds: "over 85%", "greater than 0.7", "< 96.4%", "passing threshold of 60% accuracy"
  (chatgpt_usmle_plos_digital_health_abstract.md), "95% 기준", "50%대" (snuh_po_aki_hinews_ko.md,
  dental_exam_chatbots_kollo_ko.md);
- ranges: "0.84-0.92", "76~79%" (snuh_po_aki_hinews_ko.md), "80-90%" (usmle_llm_systematic_review_*), both ends of
  "60–64%", "IQR 91–99%", "range from 78% to 100%" (gpt4o_anatomy_*.md, cardiology_board_exam_chatbots_*.md);
- gains and differences: "by 5.3 points", "an improvement of 4.2%", "5.3 points higher", "(+2%)";
- a prior paper's or a baseline's value cited in passing: "an increase from an initial AUROC of 0.821, which was
  the best reported in the literature" (mv_mortality_catboost_medrxiv_abstract.md), "a 36.7% baseline in 2020"
  (medqa_aiwiki_overview.md);
- values of people, not models: doctors' 79.9% (snuh_korean_medical_llm_kmle_news_ko.md), "다수 의료진이 선택한
  답안 정확도는 85.0%" (ai_clinical_cases_o1_dailymedi_ko.md), "응시자 평균 점수(268.7점)"
  (dental_exam_chatbots_kollo_ko.md);
- shares of patients, events or questions and cohort statistics: "38.4% of patients", "81.8% of events",
  "ICU mortality rate was 7%" (icu_admission_mortality_gbt_bmc_abstract.md), "98% clinical vignettes, 2%
  single-fact recall" (medqa_usmle_emergentmind_overview.md);
- prices, settings and operating points: "$50–$200", "temperature=0", "5-shot" (usmle_llm_eval_project_page.md,
  usmle_llm_systematic_review_*), and a sensitivity or specificity fixed to read off another metric ("at 95%
  specificity": an operating point, the same class as the Korean "민감도 및 특이도 95% 기준").
"""

from __future__ import annotations

import re

from evaluator.papers.intervals import interval_level
from evaluator.papers.measures import metric_of
from evaluator.papers.model_words import PEOPLE

_UNIT_AFTER = re.compile(
    r"^[ -]?(?:mm ?Hg|min|minutes?|mins?|s\b|sec|seconds?|h\b|hours?|hrs?|days?|weeks?|months?|years?|[BMK]\b|"
    r"billion|million|patients?|participants|subjects|questions|items|cases|admissions|stays|features|"
    r"measurements|samples|models|LLMs|tokens|languages|tasks|datasets|hospitals|institutions|axes|GB|MB|mg|ml|"
    # counts of a study's runs: "the aggregation of 5 validation sets" (icu_cardiac_arrest_gru_weibull_pmc_abstract.md)
    r"(?:validation |test |training )?(?:sets|folds|splits|runs|seeds|repetitions|iterations)\b|"
    # counts on a model's page: "from 4 benchmark results across 2 sources" (openbiollm_8b_whatmodel_*.md)
    r"benchmarks?\b|sources\b|results\b|votes\b|ratings\b|reviews\b|downloads\b|likes\b|"
    # counts of what a model flagged: "2.5 false positive predictions for each true positive", "12 alarms an hour"
    # (aki_icu_text_lstm_xgboost_*_readme.md)
    r"(?:false |true )?(?:positive |negative )?(?:predictions|alarms|alerts|positives|negatives)\b|"
    r"kg|percentile|x\b|개|건|명|문항|년|월|일|시간|분|초|밀리초|마이크로초|만|천|세|"
    # settings and sizes written with a hyphen: "5-shot", "4-bit", "10-fold", "5-option" (usmle_llm_systematic_*,
    # medqa_aiwiki_overview.md); "50%대", "in the fifties" (dental_exam_chatbots_kollo_ko.md)
    r"shots?\b|bits?\b|fold\b|way\b|options?\b|epochs?\b|layers?\b|USD|dollars|달러|원\b|점대|대(?=[에로의를는가]|$))",
    re.I,
)
# a pass mark named a little before the value in Korean: "통과 기준치는 평균 60점" (chatgpt_usmle_zdnet_ko.md)
_KO_BOUND_BEFORE = re.compile(
    r"(?:합격선|커트라인|과락|기준치?|목표|임계값|임곗값|컷오프)[은는이가인의]? ?(?:평균 ?)?$"
)
_NOT_BEFORE = re.compile(
    r"(?:\bn ?=|\bN ?=|\bp ?[<=>]|#|\bversion|\bv|\bR2|\bR²|\btop-|\bStep|\b(?:over|more than|less than|at least|"
    # a comparison with a bound: "No variable other than MAP had an AUC greater than 0.7" (hpi_forward_backward_*)
    r"(?:greater|higher|lower|smaller|larger|fewer) than|"
    # "achieved the minimum pass rate of 73%" (cardiology_board_exam_chatbots_smw_summary.md); but "a pass rate of
    # 72.3%" is a model's own result (medpalm2_pilot_press.md)
    # and "the typical passing threshold of around 60%" (ai_beats_doctors_medical_exams_opinion_gogoai_news.md)
    r"at most|above|below|under|by|by over|by up to|exceeding|minimum of|"
    r"pass(?:ing)? (?:mark|score|threshold) of(?: around| about| approximately| roughly| nearly)?|"
    r"minimum pass(?:ing)? rate of|"
    # "a cut-off value of 85% carries a sensitivity of 62.4%" (hpi_discrimination_calibration_cardiac_abstract.md)
    r"(?:threshold|cut-?off)(?: value| point| level)?(?: of| at| =| was| is| were)?|"
    # "A passing accuracy threshold was established as 60%" (cnmle_2022_gpt4_gpt35_system_roles_doaj_abstract.md)
    r"(?:threshold|cut-?off|pass mark)s? (?:was |were |is )?(?:set|established|defined|fixed) (?:as|at|to)|"
    # a gain or a difference, not a score: "an improvement of 4.2%", "outperformed ... by 5.3 points", "(+2%)"
    # "a relative improvement 22%" (mimic4_text_features_mortality_arxiv_2510_18103_fishai.md)
    r"target|goal|(?:improvement|gain|increase|decrease|drop|difference|margin|boost|reduction)s?(?: of)?)|"
    # a spread, not a value: "0.89 (± 0.01)" (aki_urine_output_deep_learning_pubmed_abstract.md)
    r"[<>≤≥~∼$€£₩+±]|\br ?=|합격선|과락|기준치?|목표|최대|최소)[ :(]{0,3}$",
    re.I,
)
# the rest of a list of plain numbers: its unit is written once, after the last ("at 5, 10, and 15 min")
_LISTED_AFTER = re.compile(r"^(?:,? (?:and |or )?\d{1,4}(?:\.\d{1,3})?){1,8}")
# a bound, a threshold or a baseline written after the value: "95% 기준", "90% 이상", "36.7% baseline"; a
# difference: "5.3 points higher", "12% more", "a 4% gain"
_BOUND_AFTER = re.compile(
    r"^ ?(?:기준|이상|이하|미만|초과|baseline\b|threshold\b|cut-?off\b|(?:percentage )?(?:points?|pp|pts)?\.? ?"
    r"(?:higher|lower|more|less|better|worse|ahead|behind|above|below|short|improvement|gain|increase|decrease|"
    r"drop)\b)",
    re.I,
)
# both ends of a range: "range from 78% to 100%", "between 0.7 and 0.8", "60–64%", "IQR 91–99%"
# (cardiology_board_exam_chatbots_smw_summary.md, gpt4o_anatomy_german_exam_mdpi_abstract.md)
_RANGE = re.compile(
    r"(?:rang(?:ing|ed|e) (?:from )?|between )(?:-?[\d.]{1,10} ?%? ?(?:to|and|-|–|—) ?)?$|\d ?%? ?[–—~～∼〜] ?$|"
    r"\d ?%? - $",
    re.I,
)
# either end of a span written with "to": "around 51.6 to 63.75" (taiwan_rnle_chatgpt_mdpi_abstract.md), "from 2019
# to 2023"; a change ("improved from 0.87 to 0.89": multimodal_icu_mortality_arxiv_2512_19716.md) gives both ends
_TO_AFTER = re.compile(r"^ ?%? ?to ?-?\.?\d", re.I)
_TO_BEFORE = re.compile(r"\d ?%? ?to ?$", re.I)
_CHANGE = re.compile(
    r"\b(?:improv|increas|ros|rais|boost|went|grew|climb|jump|declin|decreas|dropp|fell|reduc|lower|chang)\w*"
    r"(?: \w+){0,8} from\b",
    re.I,
)
# the scale of a metric explained (icu_cardiac_arrest_hrv_ai_news_ko.md, "값이 1에 가까울수록 성능이 우수")
_SCALE_BEFORE = re.compile(r"\b(?:closer to|close to|approaching|from 0 to|between 0 and)\W{0,3}$", re.I)
_KO_SCALE_AFTER = re.compile(r"^ ?(?:에 가까울 ?수록|에 가까운|에 근접할수록|에 근접한)")
# a share of the cohort or of the items, not a score: "38.4% of patients", "98% clinical vignettes"
_SHARE_AFTER = re.compile(
    r"^ ?(?:of (?:the |all |our )?(?:[\w-]+ ){0,2}(?:patients|participants|subjects|admissions|surgeries|operations|"
    r"cohort|population|respondents|episodes|events|cases|deaths|positives|negatives|alarms|alerts)\b|"
    r"(?:clinical )?(?:vignettes|men|women|males|females|female|male)|"
    # a share of the data: "validated on a 20% test set", "a 30% validation split"
    r"(?:test|training|train|validation|hold-?out|held-out) (?:set|split|data|cohort|sample)\b|"
    # "in 92% of cases" in Korean ("92%의 경우": deepseek_r1_o3mini_diagnosis_haebom_summary_ko.md)
    r"의 경우)",
    re.I,
)
# a share of what something costs or weighs: "at about 10% of DeepSeek R1's cost" (medgemma_27b_multimodal_*.md)
_SHARE_OF_COST = re.compile(
    r"^ ?%? of (?:the )?[\w .-]{0,40}?(?:'s?|’s?)? (?:cost|price|size|parameters|compute|memory|budget)\b", re.I
)
# a spread, or the value a metric has by chance: "Std AUROC = 0.0000", "(std ≈ 0.0000)", "AUROC = 0.5 represents
# random classification" (mortality_lstm_synthetic_mimic3_technical_report.md)
_SPREAD_BEFORE = re.compile(
    r"\b(?:std|s\.?d\.?|standard deviation|variance|stderr|standard error)\b[\w -]{0,30}[=:≈]? ?$", re.I
)
_CHANCE_AFTER = re.compile(
    r"^ ?%? ?(?:\)? ?)?(?:represents?|means?|indicates?|is|corresponds to|equals?) (?:an? |the )?"
    r"(?:random|chance|coin|no (?:better|discrimination|skill)|perfect)",
    re.I,
)
# an error is written in the unit of what is predicted: "a mean absolute deviation of 1.55 days"
# (tpc_los_eicu_mimic4_rocheteau_project_page.md), "an RMSE of 4.2 mmHg"
_ERROR_BEFORE = re.compile(
    r"(?:\b(?:MAE|MAD|RMSE|MSE)|absolute (?:error|deviation)s?|squared error)\b(?:[^.;]|\.\d){0,50}$", re.I
)
# what a number after or before these words is, other than a result: a ratio ("2.31 times more likely", "3-fold"),
# a chance of passing ("an 88% chance of passing the boards"), a decade ("in the high 80's"), a numbered period
# ("1교시 86.0%": the first session), a gap or a difference ("AUC gap of 0.0313", "점수 차이는 0.002")
_OTHER_AFTER = re.compile(
    r"^ ?(?:times\b|-?fold\b)|^ ?%? ?(?:chance|probability|likelihood|odds) (?:of|to|for) |^['’]s\b|"
    # a rubric's points, and a share of a baseline kept: "2 points for a correct final diagnosis" (usmle_step1_*.md),
    # "(97% retention)" (distillnote_*_abstract.md)
    r"^ points? (?:for|if|when|otherwise|per|each)\b|^ ?%? ?(?:retention|retained|of (?:the )?(?:baseline|original))\b|"
    r"^(?:교시|차시|회차|번째|단계)",
    re.I,
)
_OTHER_BEFORE = re.compile(
    r"\b(?:gap|difference|margin|delta) (?:of |was |is |in [a-z]+ of )?$|차이(?:는|가)? ?$|"
    r"\b(?:total )?(?:possible|maximum|max) (?:score|points)(?: [a-z]+){0,3} (?:was|is|of) $",
    re.I,
)
# a bound inside the bracket of an interval: "95% confidence interval (CI): [0.8033 0.8045]"
_IN_INTERVAL = re.compile(r"(?:\bCI\b|confidence interval)\)?:? ?[\[(][^\[\]()]{0,30}$", re.I)
_LABEL_BEFORE = re.compile(
    r"\b(?:unit|part|section|item|question|stage|grade|level|round|cycle|group|arm|cohort|wave|chapter|module|"
    r"paper|session|block|set|task|exam|day|week|month|epoch|step|iteration|fold|layer|version|"
    # "Precision: 0.851139 Experiment 2: BioBERT v1.1 on NCBI" (biobert_v11_*_ner_experiments_readme.md)
    r"experiment|run|trial|scenario|configuration|phase|table|figure|case|setup|variant|"
    r"세트|그룹|군|단계|코호트|차)\s?$",
    re.I,
)
# a whole number before a plural noun, perhaps with a word or two describing it, counts those things; not points,
# marks or percent, which are a score's units
_COUNTED = re.compile(
    r"^ (?:[a-z][a-z-]{1,20} ){0,2}(?!points\b|marks\b|percent|correct\b)[a-z][a-z-]{1,20}(?:s|ies)\b(?! of\b)"
)
_LISTED_DIFFERENCES = re.compile(
    r"^ ?%?(?:,? (?:and |or )?-?\d{1,3}(?:\.\d{1,3})? ?%?){1,6} (?:percentage )?(?:points? )?"
    r"(?:higher|lower|more|less|better|worse|greater|smaller)\b",
    re.I,
)
_LABELS_AFTER_NOUN = re.compile(r"\b([a-z]{3,20}s) (?:\d{1,3}(?:,| and| or)? ){0,6}(?:and |or )?$")
_COUNT_AFTER = re.compile(r"^ (?:of|out of) (?:the |all )?\d")
_COUNT_BEFORE = re.compile(r"(?:\b(?:all|both|first|last|top|only|nearly|almost|every)|\d (?:of|out of)) $", re.I)
_MEASURED_UNIT = re.compile(r"^[ -]?(?:mm ?Hg|min|minutes?|s\b|sec|seconds?|h\b|hours?|days?|weeks?|mg|ml|kg)\b", re.I)
# a statistic of the cohort, not of a model: "the ICU mortality rate was 7%", "mean age of 62", "odds ratio 1.4"
_COHORT_BEFORE = re.compile(
    r"\b(?:aged?|ages|mean age|BMI|body mass index|doses?|weight|height|duration|follow-up|IQR|interquartile range|"
    r"(?-i:SD|a?OR|HR|RR)|standard deviation|odds ratios?|hazard ratios?|relative risk|risk ratios?|incidence|"
    r"prevalence|"
    r"mortality rates?|(?:event|death|readmission|complication|hypotension|discharge) rates?|temperature)"
    r"(?: (?:was|were|is|of|at))? ?[:=(]? ?$",
    re.I,
)
# a prior paper's value cited in passing: "from an initial AUROC of 0.821, which was the best reported in the
# literature" (mv_mortality_catboost_medrxiv_abstract.md)
_PRIOR_BEFORE = re.compile(r"\b(?:initial|previous(?:ly reported)?|prior|earlier|published)\b[\w -]{0,25}$", re.I)
_PRIOR_AFTER = re.compile(
    r"^[^.;]{0,60}?\b(?:reported in (?:the )?literature|in the literature|previously (?:reported|published)|"
    r"in (?:prior|previous|earlier) (?:work|works|studies|study|reports))",
    re.I,
)
# an operating point: "at 95% specificity", "at a specificity of 90%", "민감도 및 특이도 95% 기준"
_OPERATING_BEFORE = re.compile(
    r"\bat (?:an? |the )?(?:fixed |target |set )?(?:(?:sensitivity|specificity|recall|precision|PPV|NPV|FPR|"
    r"false[- ]positive rate)(?: level)?(?: of)? ?)$",
    re.I,
)
_REFERENCE_BEFORE = re.compile(r"\b(?:Table|Figure|Fig\.|Section|Supplementary|Appendix|Eq\.|Equation) ?$", re.I)
# a threshold that "carries" a metric: "a value of 98% has a PPV of 64%" (hpi_discrimination_calibration_*.md)
_CARRIES_AFTER = re.compile(
    r"^ ?(?:has|have|carries|carry|gives|yields) (?:an? |the )?(?:sensitivity|specificity|PPV|NPV|positive|negative)",
    re.I,
)
# a score written in points: "ChatGPT-4는 221점, Claude3-Opus는 235.5점" (dental_exam_chatbots_kollo_ko.md)
# but not a gain: "5점 높은", "3점 차이"
POINTS = re.compile(r"^점(?!대| ?(?:높|낮|차이|상승|하락|향상|더|이상|이하|초과|미만|만점|척도))")
# a gain in Korean, the value (or a list of them) written right before the verb with no particle: "AUROC와 AUPRC
# 수치가 각각 3%, 18% 향상됐다" (vuno_sepsis_12h_gcn_news_ko.md); "57.59%로 상승했다" is where a result rose to
_KO_GAIN_AFTER = re.compile(
    r"^(?:,? ?(?:및 |그리고 )?-?\d{1,4}(?:\.\d{1,3})? ?%?){0,8} ?(?:%p|%포인트|포인트|p)? ?(?:씩 ?)?"
    r"(?:향상|증가|개선|상승|감소|하락|높아|낮아|높은|낮은|늘|줄)"
    # "약 42% 더 정확하게": a margin ("% 더", more), not a score (aitrics_vc_prospective_*_ko.md)
    r"|^ ?%? ?더 "
)
_OPERATING_AFTER = re.compile(r"^ ?(?:sensitivity|specificity|recall|precision|PPV|NPV|FPR)\b", re.I)


# three numbers or more with only spaces between them are cells of a table rendered as text (a trainer card's
# "Training Loss Epoch Step Validation Loss Accuracy" log copied from its page:
# bio_clinicalbert_medicalcondition_trainer_card.md, ontomedqa_medmcqa_trainer_card.md); prose puts words or commas
# between its values
_IN_A_ROW_OF_NUMBERS = re.compile(r"^[ \t]-?\d[\d.]*%?[ \t]-?\.?\d")
_IN_A_ROW_OF_NUMBERS_BEFORE = re.compile(r"\d[ \t]-?\d[\d.]*%?[ \t]$")


_BINARY = re.compile(
    r"\b[01](?:\.00?)? ?(?:or|and|to|/) ?[01](?:\.00?)?(?![\d.])"
    # and a reward's two values: "returns 1.0 if the predicted answer matches, else 0.0" (medmcqa_vf_eval_*.md)
    r"|\b[01](?:\.00?)? if\b[^.;]{0,80}\belse [01](?:\.00?)?(?![\d.])"
)


# a class or a label before its value: "Precision with 0:: 0.8462", "Class 1: 0.66"; a numbered field of a data
# dictionary: "10. slope: The slope of the peak exercise ST segment"; a code view's line number before the next YAML
# key ("- name: Precision 28 type: precision 29") or after a JSON value ('"eval_f1": 0.8789, 20': *_commit_diff.md)
_NUMBERING_AFTER = re.compile(r"^ ?:{1,2} ?-?\.?\d|^\.\s{1,3}[a-z_]{2,30}:|^ (?:- )?[a-z_]{2,20}: ")
_LINE_AFTER = re.compile(r"\":\s?-?\d[\d.eE+-]*,\s?$")


def _enumerator(sentence: str, start: int) -> bool:
    """An item's number in a list written inline: at the start or after a space, its ")" closing no "(" before it
    (cnmle_*_summary.md); "(AUROC 0.91, rank 3)" is no such item."""
    before = sentence[max(0, start - 200) : start]  # bounded: a hostile "1) 1) 1) ..." stays linear
    return (not before or before[-1].isspace()) and before.count("(") <= before.count(")")


def not_a_result(sentence: str, match: re.Match[str]) -> bool:
    """Whether the number `match` (group 1 the digits, group 2 a percent sign) is something other than a result."""
    written, start, end = match.group(1), match.start(), match.end()
    before, after = sentence[max(0, start - 30) : start], sentence[end : end + 30]
    unit = _UNIT_AFTER.match(after) and not (
        _MEASURED_UNIT.match(after) and _ERROR_BEFORE.search(sentence[max(0, start - 60) : start])
    )
    if (
        _OTHER_AFTER.match(after)
        or _OTHER_BEFORE.search(before)
        or _IN_INTERVAL.search(sentence, max(0, start - 60), start)
    ):
        return True
    if written.isdigit() and len(written) <= 2 and after.startswith(")") and _enumerator(sentence, start):
        return True  # an item of a numbered list in running text: "Key findings include: 1) ..., 2) Models like ..."
    if written.isdigit() and match.group(2) is None and (_NUMBERING_AFTER.match(after) or _LINE_AFTER.search(before)):
        return True  # a label, a numbered field or a code view's line number (see _NUMBERING_AFTER)
    if _LABEL_BEFORE.search(before) and written.isdigit():  # "unit 1", "part 3", "round 2": a label, not a value
        return True
    if written.isdigit() and match.group(2) is None and (_COUNT_AFTER.match(after) or _COUNT_BEFORE.search(before)):
        return True  # a count: "passing 2 of 3 Polish versions and all 3 English versions"
    binary = re.fullmatch(r"[01](?:\.00?)?", written) is not None and match.group(2) is None
    if binary and _BINARY.search(sentence, max(0, start - 90), end + 90):
        return True  # the values a score can take, not one it took: "(0 or 1)", "either 1 or 0" (kormed_target_*.md)
    if re.match(r"^(?:st|nd|rd|th)\b|^ ?위", after):  # an ordinal or a percentile rank: "1st: TCN", "92.8th", "1위"
        return True
    if re.match(r"^ ?%? ?(?:포인트|p\b|pp\b|percentage points?\b)", after):  # a difference in points: "5%포인트 앞섰다"
        return True
    if written.isdigit() and match.group(2) is None and re.match(r"^ [A-Za-z0-9][\w.-]{0,60}/[A-Za-z0-9]", after):
        return True  # a rank before a hub id: "2 google/gemma-3-27b-it 0.59" (healthbench_hard_leaderboard_*.md)
    if re.search(r"\b(?:rewards|logps|logits)/\w+[:|]? ?$", before, re.I):
        return True  # a preference trainer's diagnostics ("Rewards/accuracies: 0.4923", every TRL DPO card)
    if re.match(r"^ ?(?:→|->|⇒)", after) or re.search(r"(?:→|->|⇒) ?$", before):
        return True  # a change written with an arrow: "(0.08 → 0.47)" (sepsis_gru_v23_*.md)
    if re.match(r"^ ?[×]|^x\b", after):  # a ratio: "improved 5.9×", "3x better"
        return True
    if re.search(r"\bper $", before):  # the denominator of a rate: "0.4 ventilators per 10 patients"
        return True
    if re.search(r'"\s?:\s?\[?\s?$', before):  # a JSON value ('"n-shot": {"medmcqa": 0}'): results_json reads results
        return True
    if "," in written or unit or _NOT_BEFORE.search(before) or _RANGE.search(before):
        return True
    if (
        _IN_A_ROW_OF_NUMBERS.match(after)
        or _IN_A_ROW_OF_NUMBERS_BEFORE.search(before)
        or (re.search(r"\d %?[ \t]$", before) and re.match(r"^[ \t]-?\.?\d", after))
    ):
        return True  # a table row set out without pipes: "0.8002 1.0 1772 0.6327 0.7759"
    if written.isdigit() and match.group(2) is None and re.search(r"\d\.\d{1,6}%? $", before):
        return True  # a line number or an index after a value: "Acc: 0.44 6 +" (a commit's diff view)
    if _KO_GAIN_AFTER.match(sentence[end : end + 60]):
        return True
    longer = sentence[end : end + 90]
    listed = _LISTED_AFTER.match(longer)  # "5, 10, and 15 min in advance": the unit after the list is each one's
    if listed and _UNIT_AFTER.match(longer[listed.end() :]):
        return True
    if (
        _SHARE_OF_COST.match(sentence[end : end + 70])
        or _SPREAD_BEFORE.search(sentence[max(0, start - 50) : start])
        or _CHANCE_AFTER.match(after)
    ):
        return True
    if _BOUND_AFTER.match(after) or _SHARE_AFTER.match(after) or _COHORT_BEFORE.search(before):
        return True
    if _PRIOR_BEFORE.search(before) or _PRIOR_AFTER.match(sentence[end : end + 90]):
        return True
    if _CARRIES_AFTER.match(after) or _KO_BOUND_BEFORE.search(before):
        return True
    if (_OPERATING_AFTER.match(after) and re.search(r"\bat $", before, re.I)) or _OPERATING_BEFORE.search(before[-28:]):
        return True
    if re.search(r"\b[a-z]+ \d[\d,]* \($", before):
        return True  # the share of a count: "hypotension occurred in 1,234 (23.5%) patients"
    if _REFERENCE_BEFORE.search(before) or (before.endswith("[") and after.startswith("]")):
        return True  # "Table 2", "Fig. 3", a citation "[1]" (medqa_aiwiki_overview.md)
    if written.isdigit() and int(written) < 20 and re.search(r"[A-Za-z] \($", before) and after.startswith(")"):
        return True  # a part or an item label: "internal medicine (2)" (gpt4_knlekmd_arxiv_2303_17807.md)
    if re.match(r"^ ?(?:-|–|~|～)\d|^ ?%? ?[-∼〜~～] ?\d", after):  # a range "0.84-0.92", "76~79%", "20% - 80%"
        return True
    if (_TO_AFTER.match(after) or _TO_BEFORE.search(before)) and not _CHANGE.search(
        sentence[max(0, start - 120) : start]
    ):
        return True
    if _SCALE_BEFORE.search(before) or _KO_SCALE_AFTER.match(after):
        return True  # the scale of a metric, not a result: "the closer to 1", "AUROC 값이 1에 가까울수록"
    if re.match(r"^-[a-z]{3,}", after):  # a count in a compound: "a 100-iteration bootstrap" (apricot_m_*.md)
        return True
    named = re.search(r"\b([A-Z][a-z]{2,20}) $", before)
    if named and match.group(2) is None and re.fullmatch(r"[1-9]\.\d", written) and metric_of(named.group(1)) is None:
        return True  # a version after a name: "the Evidence Inference 2.0 benchmark", "Gemini 2.0" (not "Accuracy 0.9")
    near = re.search(r"([A-Za-z][\w-]{0,30})\s?≈\s?$", before)
    if near and metric_of(near.group(1)) is None:
        return True  # a value only near what a name scored: "(qSOFA ≈ 0.74, SIRS ≈ 0.70)"; "AUROC ≈ 0.867" is one
    labels = _LABELS_AFTER_NOUN.search(before)
    if written.isdigit() and match.group(2) is None and labels and metric_of(labels.group(1)) is None:
        return True  # numbers naming things: "at the prediction gaps 5, 10 and 20", "in cohorts 1 and 2"
    if re.search(
        r"\b(?:target|goal|aim|expected(?! calibration)|projected|anticipated)(?: [A-Za-z-]{2,12}){0,2} ?"
        r"(?:of |at |= ?|: ?|above |over )?$",
        before,
        re.I,
    ):
        return True  # "ALL models exceeded target AUC of 0.85!", "Expected Mean AUC: 0.703" (radiology_ai_*_report.md)
    if re.match(r"^[^.,;]{0,25}?[를을] 목표", sentence[end : end + 30]):
        return (
            True  # a target set, not reached: "90%의 민감도와 70% 특이도를 목표 성능으로 제시" (lunit_*_etoday_ko.md)
        )
    if re.match(r"^\+(?![\d.])", after) or (written.isdigit() and re.match(r"^ in \d", after)):
        return True  # a bound "0.92+ AUC", and a count "1 in 7 flagged patients"
    if written.isdigit() and int(written) <= 10 and before.endswith("(") and re.match(r"^ ?(?:points?|pts?)\)", after):
        return True  # a risk factor's weight in a score: "age ≥70 years (2 points), current smoker (1 point)"
    if written.isdigit() and len(written) == 1 and re.search(r"[A-Z]\)$", before):
        return True  # an acronym's version run on after its bracket: "(SAPS)2"
    if re.search(r"\b(?:not|n't|never|fail(?:ed|s)? to) (?:achieve|reach|get|obtain|reproduce|match)\w{0,3} $", before):
        return True  # a figure someone did not reach: "I do not achieve 0.8544 AUROC" (a reproduction's issue)
    if _LISTED_DIFFERENCES.match(sentence[end : end + 60]):
        return True  # "the sensitivity and specificity were 14% and 15% higher": each value of the list is a margin
    if re.search(r"\b(?:set|fixed) (?:to|at) $", before) or re.match(r"^ ?%? ?(?:으로|로) 설정", after):
        return True  # a setting: "SMOTE 비율을 0.04로 설정", "the ratio was set to 0.04"
    if re.search(
        r"\brandom(?! forest)(?: guessing| chance)?(?: baseline| classifier)?\b[\w ]{0,20}$",
        sentence[max(0, start - 50) : start],
        re.I,
    ):
        return True  # "the random guessing baseline achieved 22.46%": chance, not a model
    if written.isdigit() and match.group(2) is None and _COUNTED.match(after):
        return True  # a count of things: "using 2 prompting strategies", "spans 26 medical specialties"
    if re.search(
        r"\bby (?:almost |nearly |about |approximately |around |up to |over )?(?:-?[\d.]{1,8} ?%?(?:,? (?:and )?"
        r"-?[\d.]{1,8} ?%?){0,6},? (?:and |or )?)?$",
        before,
    ):
        return True  # the rest of a list of differences: "outperforming ... by 13.0% and 10.4%"
    if re.search(r"\d ?(?:[−-]|\^ ?[−-]?)$", before):
        return True  # an exponent: "p <10−15", "10^-5" (icu_30day_mortality_ann_vs_saps3_sweden_pmc_abstract.md)
    if re.match(r"^[A-Z][a-z]", after):  # text run together: "Med-PaLM 285.4Towards" (medqa_usmle_hyperai_*.md)
        return True
    if written.isdigit() and re.match(r"^[A-Za-z]", after):  # part of a name: "the 4C Mortality score", "3D"
        return True
    if interval_level(written, before, after):
        return True
    if re.match(r"^[:\-/]\d", after) or re.search(r"\d[:\-/]$", before):  # a time or a date: 18:17:01, 2025-03-21
        return True
    points = POINTS.match(after) is not None  # "221점": a score on an exam marked out of more than 100
    if written.isdigit() and (
        1900 <= int(written) <= 2100 or (match.group(2) is None and int(written) > 100 and not points)
    ):
        return True
    clause_after = re.split(r"[,;.]", after)[0][:25]
    if re.match(r"^[ )%]{0,3}(?:vs\.?|versus|대|compared|than)\b", clause_after, re.I):
        clause_after = ""  # "o1 94.3% vs 의료진 85.0%": the people are compared with, the value is the model's
    # people named later in the value's clause leave it out too: when the reader cannot tell whose value it is, it
    # reads none (dental_exam_chatbots_kollo_ko.md's "235.5점을 기록해 응시자 평균 점수" is lost to this, by choice)
    return bool(PEOPLE.search(before[-16:]) or PEOPLE.search(clause_after))

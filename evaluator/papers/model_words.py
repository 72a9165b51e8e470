"""The words model names are made of, which names.py finds by their shape: the model families whose bare name is a
model ("Mistral", "Gemini"), the learning methods clinical prediction papers compare ("logistic regression",
"random forest", "soft voting classifier"), the clinical and risk scores prediction models are compared with (SOFA,
APACHE II, LACE, POSSUM), the ways an acronym is named a model ("the TECO model", "scores-OHCA, SWAP and CAHP"), and
the words of a generic noun, a condition or an institution, never of a model's name."""

from __future__ import annotations

import re

FAMILIES = re.compile(
    r"^(?:GPT|ChatGPT|Claude|Gemini|Gemma|MedGemma|Llama|LLaMA|Mistral|Mixtral|Qwen|Phi|PaLM|Med-PaLM|Flan-PaLM|"
    r"Meditron|BioMistral|Yi|SOLAR|InternLM|InternVL|EXAONE|DeepSeek|Falcon|Vicuna|Alpaca|MedAlpaca|ChatDoctor|"
    r"OLMo|Grok|Copilot|HyperCLOVA|Kanana|Bard|LLaVA|BioGPT|PubMedBERT|BERT|BioBERT|XGBoost|LightGBM|CatBoost|"
    # and chatbots named by one word (chinese_nmle_six_llms_mendeley_abstract.md, antwerp_exam_six_chatbots_*.md)
    r"Perplexity|Bing|ERNIE|Hunyuan|Kimi|Doubao|Tongyi|ChatGLM|GLM|Baichuan|Nemotron|Palmyra|Meerkat|Apollo|Aloe|"
    r"BioMedLM|Jasper|Sonar|TabNet|DeepSurv|DeepHit)$",
    re.I,
)
METHODS = re.compile(
    # a network with what kind it is: "the deep neural network", "multipath convolutional neural network", "neural
    # network (AUROC: 0.72)" (postop_mortality_dnn_*.md, postop_30day_mortality_multipath_cnn_*.md, pih_ml_*.md)
    r"(?<![\w-])((?:(?:multipath|deep|artificial|feed-?forward|graph|temporal|hybrid) )?(?:convolutional |recurrent )?"
    # and plurals and hyphenated forms: "Random Forests", "light-gradient boosting machines", "Naïve Bayes"
    # (icu_delirium_labels_clinician_actions_cord_record.md, ppc_ml_two_hospitals_pmc_abstract.md)
    r"neural networks?|extreme[- ]gradient boosting(?: machines?)?|light[- ]gradient boosting machines?|"
    r"gradient boosting(?: machines?)?|logistic regressions?|classification and regression trees?|"
    r"random[ -]forests?(?: classifiers?)?|support vector machines?|multi-?layer perceptrons?|decision trees?|"
    r"na[iï]ve Bayes|k-nearest neighbou?rs?|gated recurrent units?|"
    r"long short-term memory|CNN|RNN|LSTM|GRU|DNN|ANN|MLP|XGB|LGBM|TCN|temporal convolutional networks?|(?-i:RF)|"
    # "the models of KNN, logistic regression, ... bagging, and XGBoost" (mechanically_ventilated_*_abstract.md)
    r"KNN|k-NN|bagging|LASSO(?: regression)?|elastic[- ]net|ridge regression|"
    # "gradient boosted trees (GBT) ... the admission GBT model" (icu_admission_mortality_gbt_bmc_abstract.md)
    r"gradient boosted trees?|GBT|GBM|SVM|"
    # and their short forms in a list of the methods compared: "LGB showed the best ... compared with XGB, CatB,
    # AdaB, LR, MLP and LSTM" (intraop_hemorrhage_seven_ml_lgb_shanghai_bmc_abstract.md); not "LR+", a ratio
    r"(?-i:LGB|GBDT|LR(?![+–-]))|"
    r"1D-CNN(?: ?\+ ?LSTM)?|"
    # and the other classifiers and ensembles they compare ("the final soft voting classifier", "adaptive boosting":
    # late_onset_neonatal_sepsis_*.md, postop_icu_admission_gbm_*.md, older_adult_icu_postop_delirium_*.md)
    r"(?:soft|hard|weighted)[- ]voting (?:classifiers?|ensembles?)|voting classifiers?|stacking ensembles?|"
    r"support[- ]vector (?:classifiers?|regressions?)|extra[- ]trees? classifiers?|extremely randomi[sz]ed trees|"
    r"adaptive boosting|AdaBoost|random survival forests?|linear discriminant analysis|partial least squares|"
    # a linear classifier named by how it is fitted (ami_mortality_sgd_svm_*_bmc_midm_abstract.md), and the other
    # trees, sequence labellers, survival and segmentation models compared (bis_prediction_*_abstract.md,
    # hf_readmission_rnn_crf_*_abstract.md, pneumonia_unet_*_abstract.md)
    r"stochastic gradient descent(?: classifiers?)?|regression trees?|conditional random fields?|(?-i:CRF)|"
    r"Cox (?:proportional[- ]hazards? )?(?:regressions?|models?)|U-?Net(?:\+\+)?|(?:Swin|Vision) Transformers?|"
    r"Bayesian networks?|"
    r"generali[sz]ed linear (?:regression )?models?|"
    # the same methods named in Korean, a particle after them (ed_90day_mortality_survival_models_linnk_ko.md)
    r"로지스틱 ?회귀(?: ?모델)?|랜덤 ?포레스트|랜덤 ?생존 ?숲|그래디언트 ?부스팅|서포트 ?벡터 ?머신|의사 ?결정 ?나무|"
    r"엘라스틱 ?넷 ?Cox(?: ?모델)?|Cox 비례 ?위험 ?모델|단계적 Cox(?: ?모델)?)(?![A-Za-z0-9_-])",
    re.I,
)
# the clinical scores prediction models are compared with, which are models too (apricot_m_mortality_table.md,
# aitrics_prompt_picu_mortality_garamstay_ko.md, cardiac_arrest_8h_vital_signs_*_ko.md): a short fixed vocabulary,
# like the benchmarks', written in capitals
CLINICAL_SCORES = re.compile(
    r"(?<![\w-])(q?SOFA|APACHE(?:[ -]?I{1,3}|[ -]?IV| [234])?|SAPS(?:[ -]?I{1,3}| [23])?|APS[ -]?III|"
    r"MEWS|PIM ?[23]?|PRISM(?: I{1,3}| IV)?|"
    r"KTAS|CURB-65|"
    # and the other early-warning, sepsis, severity and risk scores tables compare models with
    # (ed_triage_sepsis_*.md, ed_pneumonia_*_int_j_em.md, ward_icu_admission_*_moam_abstract.md, poaf_*_thij_*.md)
    r"SIRS|REMS|NEWS ?2?|PELOD(?:-2| 2)?|HATCH|CHA2DS2-VASc|EuroSCORE(?: II)?|MELD|A-DROP|OASIS|LODS|"
    r"Rothman Index|"
    # and the readmission, perioperative and triage scores (hospital_score_international_*.md, unplanned_readmission_*,
    # postop_mortality_prediction_asa_possum_*.md, respire_postoperative_*.md, pancreatitis texts' BISAP)
    r"LACE\+?(?: index)?|HOSPITAL score|P-?POSSUM|POSSUM|ARISCAT|BISAP|RCRI|MPM ?(?:II|III|0)?|ASA[- ]PS|"
    r"STOP-BANG|CRIB(?: II)?|NIHSS|Charlson Comorbidity Index|Elixhauser(?: index)?|"
    # a Korean particle may follow: "MEWS는 60.3%의 정확도" (vuno_dews_cardiac_arrest_*_ko.md)
    r"Surgical Apgar(?: Score)?)(?![A-Za-z0-9_-])"
)
# an acronym named as a model by the noun after it or the list it is in: "The TECO model" (teco_icu_*.md),
# "traditional scores like SOFA and APACHE II" (cvicu_hemodynamic_deterioration_summary.md)
ACRONYM = r"[A-Z]{2,8}(?: (?:II|III|IV))?"
ACRONYM_MODEL = re.compile(
    # and written as a title: "the UPMC Model", "ACC Admission Model" (aki_stage2_non_icu_*.md, acc_admission_*.md)
    r"(?<![\w-])(" + ACRONYM + r"(?: [A-Z][a-z]{2,20})? Model)\b(?! [A-Z])|"
    r"(?<![\w-])(" + ACRONYM + r")(?= (?:model|algorithm|classifier)s?\b)"
    r"|\b(?:scores|models|algorithms|tools|systems) (?:like|such as|including) (" + ACRONYM + r")"
    r"(?:,? (?:and|or) (" + ACRONYM + r"))?(?![\w-])"
)
# or as the items of a list of scores or models: "four conventional prediction scores-OHCA, SWAP, PROLOGUE and CAHP"
# (ohca_neuroprognostication_*_abstract.md), "the iScore and THRIVE scores" (ischaemic_stroke_*_ehj_*.md); not one
# acronym's "score", which may be a scale measured ("the PAED score") or an exam's mark ("the CFPC score")
SCORES_AFTER = re.compile(r"(?<![\w-])(?:\w+ and )?(" + ACRONYM + r") scores\b")
ACRONYM_LIST = re.compile(
    r"\b(?:scores|models|algorithms|tools|systems|indices)(?: (?:like|such as|including|namely)|[:–—-]| \()\s?("
    + ACRONYM
    + r"(?:, "
    + ACRONYM
    + r"){1,8},? (?:and|or) "
    + ACRONYM
    + r")(?!\w)"
)


# words of a generic noun or of a condition, never of a model's name: "Acute Respiratory Distress Syndrome (ARDS)"
# after "an algorithm of early onset" (eards_covid_ards_prediction_cord_record.md)
GENERIC = re.compile(
    r"\b(?:Language|Learning|Intelligence|Unit|Database|Curve|Examination|Test|Trial|Care|Syndrome|Disease|Injury|"
    r"Failure|Infection|Disorder|Arrest|Shock|Distress|Insufficiency|Cancer|"
    # and of an institution: "Seoul National University Hospital (SNUH)" (seed document 001)
    r"Hospital|University|Institute|Center|Centre|College|Foundation|"
    # and of what is measured: "Mean Arterial Pressure (MAP)", "Bispectral Index (BIS)" (vitalnet_vitaldb_*.md)
    r"Pressure|Saturation|Volume|Output|Flow|Temperature|Arterial|Bispectral)\b"
)
METHOD_NAMES = {
    "convolutional neural network": "CNN",
    "recurrent neural network": "RNN",
    "gradient boosted trees": "GBT",
    "gradient boosted tree": "GBT",
}


# a plain capitalised word inside a sentence, then a result verb: "with Pegasus achieving an AUROC of 94.3%" (names.py
# takes it as a model when a metric follows), and the words in that place that name no model
RESULT_SUBJECT = re.compile(
    # or after a section's label: "Results: Mirai achieved 1- and 5-year AUCs of 0.71" (mirai_*_abstract.md); or an
    # acronym that improves on others: "ASTRA consistently improves ..., achieving macro AUC 97.8%" (astra_*.md)
    r"(?<=[a-z,;:] )([A-Z][a-z]{2,20}|[A-Z][a-z]{1,12}[A-Z][A-Za-z]{1,12}|[A-Z]{3,10}) (?:[a-z]{3,15}ly )?"
    r"(?:achieved|achieving|achieves|performed with|scored|reached|attained|obtained|yielded|showed|demonstrated|"
    r"outperformed|outperforms|surpassed|surpasses|improves|improved)"
    r"((?:,? [\w-]{1,20}){0,12}? \d)"
)
NOT_A_SUBJECT = re.compile(
    r"(?:This|That|These|Those|It|Its|Which|Who|Each|Both|All|Overall|Our|We|They|Their|One|Another|Only|None|"
    r"Performance|Results?|Models?|Algorithms?|Systems?|Methods?|Approaches|Validation|Testing|Training|Accuracy|"
    r"Physicians?|Doctors?|Clinicians?|Humans?|Experts?|Residents?|Students?|Participants?|Radiologists?|Nurses?|"
    r"Patients?|Examinees?|Candidates?|Readers?|Specialists?|Surgeons?|Women|Men|Children|Adults|Group|Cohort)$"
)


# words of a model's shape that name none: diseases, tables, companies, units, degrees, formats, methods of features
NOT_MODELS = re.compile(
    r"^(?:COVID-19|SARS-CoV-2|H\d|Top-\d|Step\d|Table|Figure|Fig|Phase|Type|Version|Section|Appendix|Part|"
    # a figure's or table's number run into it ("Fig-5"), and a definition's version ("Sepsis-3")
    r"(?:Fig|Figure|Table|Tab|Eq|Step|Phase)-?\d{1,2}[a-z]?|Sepsis-[1-3]|"
    r"Apache-[\d.]+|CC-BY[\w.-]*|GPL-[\d.]+|GitHub|HuggingFace|OpenAI|DeepMind|PubMed|PhysioNet|PyTorch|TensorFlow|LaTeX|"
    # units of measure written with inner capitals: "MAP less than 65 mmHg" (hpi_forward_backward_*.md)
    r"mmHg|cmH2O|mL|dL|mEq|kDa|kPa|mmol|nmol|µmol|"
    r"JavaScript|YouTube|LinkedIn|BenchToward|BibTeX|LaTeX|CoT|Q\d|T\d|ICD-\d{1,2}|HbA1c|CI|IQR|SD|HR|OR|RR|ROC|AI|ML|LLM|LLMs|API|GPU|CPU|RAM|SQL|URL|PDF|CSV|"
    r"USA|US|UK|EU|Korea|Korean|English|Chinese|Research|Square|Journal|Abstract|Background|Methods?|Results?|"
    r"Conclusions?|Objective|RESULTS|METHODS|BACKGROUND|CONCLUSIONS|OBJECTIVE|arXiv|DOI|PMC|PMID|NCT\d+|"
    # degrees after authors' names (acumen_hpi_single_arm_trial_scribd_abstract.md)
    r"PhD|MD|MSc|MPH|DrPH|BSc|MBBS|FRCA|FRCPC|FANZCA|FRCP\d?|FCICM\d?|MStat|"
    # a company's form, a licence, a link label and a file format on copied pages
    r"GmbH|BY(?:-NC)?(?:-ND|-SA)?|DOIUrl|Safetensors|"
    # methods of features, explanation and resampling, not models (postop_complications_mimic3_*_readme_excerpt.md)
    r"TF-IDF|SHAP|LIME|SMOTE|PCA|t-SNE|UMAP|NLP|EHRs?|SHapley|exPlanations|PHI|"
    # and laboratory measures written with inner capitals: serum creatinine "SCr", "eGFR", "NT-proBNP"
    r"SCr|sCr|eGFR|NT-proBNP|proBNP|PaO2/FiO2|logoLink|"
    # and the parts a network is built with: activations and optimisers ("ReLU", "AdamW")
    r"ReLU|GELU|SiLU|Softmax|Adam|AdamW|SGD|RMSprop|"
    # and statistical tests, named after people ("a McNemar test": pubmedqa_biomistral_cot_vs_direct_readme.md)
    r"McNemar|Wilcoxon|DeLong|Kruskal|Mann-Whitney|Bonferroni|Kaplan-Meier|Bland-Altman|Shapiro-Wilk|Hosmer-Lemeshow|"
    # journals, and gases measured at the bedside (eards_covid_ards_prediction_cord_record.md: "PLoS One", "SpO(2)")
    r"PLoS|JAMA|BMJ|NEJM|JMIR|SpO2?|FiO2|PaO2|PaCO2|EtCO2|NaN|None|null|"
    # number formats of a model's weights: "model_dtype": "float32" (biomistral_7b_bnb8_*.md)
    r"b?float\d{1,2}|fp\d{1,2}|bf16|u?int\d{1,2}|"
    # a file's size on a copied page: "1.99 kB" (bio_clinicalbert_medicalcondition_trainer_card.md)
    r"kB|KiB|MiB|GiB|bytes)$",
    re.I,
)


# people whose results a text reports beside the models'
PEOPLE = re.compile(
    r"(?:physicians?|doctors?|clinicians?|humans?|experts?|residents|students|examinees|test[- ]takers|fellows|"
    r"participants|trainees|"
    r"의사|전문의|전문가|전공의|임상의|의료진|응시자|수험생|연수생|수련의|판독자|판독의|간호사)",
    re.I,
)


# what names an average over models or tasks, not one of them: a harness's "[average] acc: 0.77", a table's "AVG"
# column over the models (flare_med_*_results.md, isic2020_melanoma_*_readme.md)
AVERAGE = re.compile(r"(?:average|avg\.?|mean|overall|all|all models|total)$", re.I)

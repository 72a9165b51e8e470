"""Which models a text is about ("subjects"): the models it releases or announces, read from how texts say so:
"we present / introduce / release X", "Introducing X", "X is an ... model", a "Model Name:" line, a card's title,
an "(ours)" mark, or Hugging Face weights links to the document's own organisation (medalpaca_readme_benchmarks.md,
lingshu_modelcard_textual_qa_html_table.md). And the short names a text then gives its models ("Gemini" for "Gemini
2.0 Pro")."""

from __future__ import annotations

import re
from collections import Counter

from evaluator.papers.identifiers import named_models
from evaluator.papers.measures import is_benchmark_or_metric
from evaluator.papers.names import is_model_name, models_in, never_a_model
from evaluator.papers.scoring import words
from evaluator.papers.segment import Segments, plain

_INTRODUCED = re.compile(
    r"(?:\b[Ww]e (?:present|introduce|release|propose|developed|built|design)|\bIntroducing|\bnamed|\bcalled|"
    # "The model – which we refer to as Temporal Pointwise Convolution (TPC)" (tpc_los_eicu_mimic4_*.md)
    r"\b(?:we )?refer(?:red)? to as|\bknown as|\bdubbed) "
    # a name in quotes, or one led by a small letter: "an algorithm called ‘eARDS’" (eards_covid_ards_*.md)
    # or after what it is and a comma: "we design a novel framework, MedThink" (medthink_*_abstract.md)
    r"(?:the |a |an )?(?:[a-z-]{3,30},? ){0,4}?[(‘'\"“]?"
    r"((?:[A-Z]|[a-z][A-Z])[\w.+-]{1,60}(?: [A-Z0-9][\w.+-]{0,20}){0,2})"
)
_TITLE = re.compile(r"(?m)^# ([^\n]{2,120})$")
# a page's first line as its title, when it is a name and a subtitle: "MedGemma 27B Text-IT: Specialized Medical LLM"
# (medgemma_27b_text_featherless_unsloth_summary.md); a first line that is a sentence has no such separator
_NAMED_IN_WORDS = re.compile(r"(?:[A-Z][a-z-]+ ){1,5}\(([A-Z][A-Za-z0-9-]{1,10})\)")
_FIRST_LINE_TITLE = re.compile(r"\A\s{0,10}([^\n:]{2,60}(?:(?::| [-–—]) [^\n]{2,80})?)\n")  # or a bare name
_OURS = re.compile(r"[(\[](?:ours|proposed)[)\]]", re.I)
# the title of a card the Hugging Face trainer wrote: "# <name>" then "This model is a fine-tuned version of ..."
# (medqa_l3_sft_trainer_card.md, medqa_l3_dpo_trainer_card.md)
# and of a merge: "Chimera_MedLlama-3-8B" then "This is a merge of pre-trained language models created using mergekit"
# (med_chimera_llama3_8b_sherp_card_multimedqa_lm_eval.md)
_TRAINER_TITLE = re.compile(
    r"(?m)^#{0,2} ?([A-Za-z0-9][\w.-]{1,95})[ \t]*\n*This (?:model )?is a (?:fine-tuned version of|merge of)"
)
# the name a Hugging Face card's metadata gives its model ("model-index:\n  - name: medqa_fine_tuned"), in YAML front
# matter, in the page's rendered "metadata" block or in a card copied as one line (the trainer cards in the corpus)
# a README's field naming the one model it uses: "- **Model**: `microsoft/BiomedNLP-PubMedBERT-base-...`"
# (pubmedbert_pubmedqa_bm25_readme_table.md), "Model: GPT-4o"
# or a script's line that loads it: 'model = "johnsnowlabs/JSL-Med-Sft-Llama-3-8B"' (jsl_med_sft_llama3_8b_*.md)
_MODEL_FIELD = re.compile(
    r"(?mi)^[ \t]{0,4}(?:[-*+][ \t]{1,3})?\**(?:model|model name|model id|model_id|model_name)\**[ \t]*"
    # after "=" only a quoted string names it: "model = PeftModel.from_pretrained(base, ...)" is code, not a name
    r"(?::\**[ \t]*[`\"']?|=[ \t]*[`\"'])([^`\"'\n]{2,100})"
)
# a merge's recipe lists the models merged, not the card's own: "slices: - sources: - model: X" (mergekit)
_MERGED_FROM = re.compile(r"\b(?:sources|slices|models|merge_method|layer_range)\s?:", re.I)


def subjects_of(
    body: str, flat: str, parts: Segments, ids: list[str], links: list[tuple[str, str]], meta: str = ""
) -> list[str]:
    """The models the text (`flat`: its plain text; `meta`: a card's front matter) releases or announces (see the
    module docstring)."""
    names = list(ids) + [n for n in named_models(flat) if not (is_benchmark_or_metric(n) or never_a_model(n))]
    for intro in _INTRODUCED.finditer(flat):  # "We release Meditron-7B and Meditron-70B, which ..."
        clause = re.split(r"[,.;:]\s|\s(?:which|that|a|an|the)\s", flat[intro.start(1) : intro.start(1) + 120])[0]
        named = [name for _, name in models_in(clause)]
        # a name given in words and an acronym: "which we refer to as Temporal Pointwise Convolution (TPC)"
        acronym = _NAMED_IN_WORDS.match(clause)
        names += named or ([acronym.group(1)] if acronym else [])
    names += [m.group(1) for m in _TRAINER_TITLE.finditer(body)]
    names += [
        m.group(1).strip()
        for m in _MODEL_FIELD.finditer(body)
        if is_model_name(m.group(1).strip()) and not _MERGED_FROM.search(body[max(0, m.start() - 160) : m.start()])
    ][:1]
    names += _titled(body, card=bool(_CARD_META.search(meta)))
    for mark in _OURS.finditer(body):  # found from the rare mark backwards: linear in the text
        label = re.split(r"[|\n]", body[max(0, mark.start() - 80) : mark.start()])[-1].strip(" *|")
        if is_model_name(label):
            names.append(label)
    orgs = Counter(org for org, _ in links)
    if orgs:
        own, count = orgs.most_common(1)[0]
        if count >= 2 and list(orgs.values()).count(count) == 1:
            names += _labels_linked_to(body, own) or [f"{org}/{name}" for org, name in links if org == own]
    if not names and len(ids) == 0 and len({f"{o}/{n}" for o, n in links}) == 1:
        names.append("/".join(links[0]))
    return unique([n.strip(" *|`") for n in names if n.strip(" *|`")])


_CARD_META = re.compile(r"^(?:base_model|pipeline_tag|library_name|model-index):", re.M)


def _titled(body: str, card: bool = False) -> list[str]:
    """The model a README or card is titled with: a first heading that is one model name, perhaps followed by a
    subtitle ("# BioLLama LLM: Medical Reasoning Adapter": biollama_adapter_readme.md); a heading that is a
    sentence or a benchmark names no subject."""
    title = _TITLE.search(body[:3000]) or _FIRST_LINE_TITLE.match(body)
    if title is None:
        return []
    phrase = re.split(r":\s| [-–—] ", plain(title.group(1)), maxsplit=1)[0].strip(" *_")
    # the Hugging Face card template's title names the model whatever its shape: "Model Card for medical-ner-koelectra"
    templated = re.fullmatch(r"model card (?:for|of)\s+([A-Za-z0-9][\w./-]{1,100})", phrase, flags=re.I)
    if templated:
        return [templated.group(1)]
    if card and re.fullmatch(r"[A-Z][\w.+]*(?:-[\w.+]+){1,6}", phrase):
        # a card's title, with the hub's metadata before it, names its model in one hyphenated token: "# Clinical-Deid:
        # Clinical Text De-identification" (clinical_deid_*_hrygt_model_card.md)
        return [] if is_benchmark_or_metric(phrase) else [phrase]
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+){1,8}", phrase) and "_" in phrase:
        # a repository's name as a card's title: "Dr_Samantha_7b_mistral" (dr_samantha_7b_mistral_card_*.md)
        return [phrase] if re.search(r"\d|[a-z][A-Z]", phrase) and not is_benchmark_or_metric(phrase) else []
    found = models_in(phrase)
    # a fine-tuning project titled with what it makes: "# Nemotron-3-Nano Medical LoRA Fine-tuning" makes
    # "Nemotron-3-Nano Medical LoRA" (nemotron3_nano_medmcqa_lora_readme_by_subject.md)
    rest = phrase[len(found[0][1]) :].strip() if found and found[0][0] == 0 else ""
    tuned = re.fullmatch(r"((?:[A-Z][\w-]{1,20} ){1,3})(?:[Ff]ine-?[Tt]uning|SFT)", rest)
    if tuned:
        return [f"{found[0][1]} {tuned.group(1).strip()}"]
    if len(found) != 1 or found[0][0] != 0:
        return []
    return [found[0][1]] if re.fullmatch(r"(?:(?:large )?language model|LLM|model)?", rest, re.I) else []


def _labels_linked_to(body: str, org: str) -> list[str]:
    """Labels of Markdown links to the organisation's model repos ("[MedAlpaca 7b](https://huggingface.co/...)")."""
    pattern = re.compile(r"\[([^\]\n]{1,80})\]\((?:https?://)?(?:huggingface\.co|hf\.co)/" + re.escape(org) + r"/")
    return [m.group(1) for m in pattern.finditer(body) if is_model_name(m.group(1))]


def unique(names: list[str]) -> list[str]:
    seen: dict[frozenset[str], str] = {}
    for name in names:
        seen.setdefault(words(name) or frozenset([name.lower()]), name)
    return list(seen.values())


def short_names(models: list[str], text: str) -> dict[str, str]:
    """The models a text names in full and then by the first word alone ("ChatGPT o3 Mini High, Gemini 2.0 Pro,
    Claude-Sonnet 3.7 ... Mean scores were 3.44 for Gemini, 2.99 for ChatGPT": ophthalmology_patient_faq_*.md), each
    short name mapped to the one full name it begins; not a name with a version of its own ("GPT-4" beside "GPT-4
    Turbo") nor one the text writes alone before the full name ("ChatGPT and ChatGPT-4" are two models)."""
    longer: dict[str, set[str]] = {}  # each first word, and the longer names it begins (linear in the names)
    for name in set(models):
        head = re.match(r"([A-Za-z]{2,20})[ -]\S", name)
        if head:
            longer.setdefault(head.group(1), set()).add(name)
    full = {short: next(iter(longer[short])) for short in set(models) if len(longer.get(short, ())) == 1}
    first_full: dict[str, int] = {}
    first_alone: dict[str, int] = {}
    for word in _WORD.finditer(text) if full else ():  # one pass: where each is first written in full, and alone
        short = word.group()
        if short not in full:
            continue
        if text.startswith(full[short], word.start()):
            first_full.setdefault(short, word.start())
        elif not _VERSIONED.match(text, word.end()):
            first_alone.setdefault(short, word.start())
    return {s: full[s] for s in first_alone if s in first_full and first_full[s] < first_alone[s]}


_WORD = re.compile(r"(?<![\w-])[A-Za-z]{2,20}(?!\w)")
_VERSIONED = re.compile(r" ?\d| [A-Z0-9][\w.]{0,10}\d|-\w")  # "Gemini 2", "Claude 3 Opus", "Claude-Instant"

"""The rule-based reader on texts written for these tests: a press release without weights, an abstract
without numbers, a README whose results are in a CSV, an HTML page, IOH abstracts with matching and
differing definitions, the value normalisation rules, and sentences with a contrast or a gain."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evaluator.papers import NOT_RELEASED, PaperRecord, RuleExtractor, read_paper
from evaluator.papers.vocabulary import read_value

DATA = Path(__file__).parent / "data" / "papers"


def read(path: Path | list[Path]) -> PaperRecord:
    return asyncio.run(read_paper(path))


def read_text(text: str) -> PaperRecord:
    return asyncio.run(RuleExtractor().extract(text, source="inline"))


def test_press_release_without_weights_says_not_released_and_maps_its_clinicalqa_claim() -> None:
    record = read(DATA / "written_press_release_medimind.md")
    subject = record.models[0]
    assert (subject.name, subject.role, subject.weights, subject.provider) == (
        "MediMind-7B",
        "subject",
        NOT_RELEASED,
        "Acme Health",
    )
    clinicalqa = next(c for c in record.claims if c.model == "MediMind-7B" and c.dataset == "ClinicalQA")
    assert (clinicalqa.value, clinicalqa.raw_value, clinicalqa.setting) == (0.812, "81.2%", "zero-shot")
    assert clinicalqa.mapping.task == "clinicalqa@0"
    assert "ClinicalQA" in clinicalqa.mapping.reason


def test_press_release_comparator_sentence_is_attributed_to_the_comparator() -> None:
    record = read(DATA / "written_press_release_medimind.md")
    gpt = next(c for c in record.claims if c.model == "GPT-4o")
    assert (gpt.dataset, gpt.value) == ("ClinicalQA", 0.79)
    assert {m.name: m.role for m in record.models}["GPT-4o"] == "comparator"


def test_press_release_kmle_score_keeps_its_unit_and_year_and_is_not_mapped() -> None:
    record = read(DATA / "written_press_release_medimind.md")
    kmle = next(c for c in record.claims if c.dataset == "KMLE")
    assert (kmle.value, kmle.unit, kmle.task_variant, kmle.metric) == (88.0, "score", "2024", "average score")
    assert kmle.mapping.task is None
    assert "KMLE" in kmle.mapping.reason


def test_abstract_without_numbers_gives_claims_whose_values_are_null() -> None:
    record = read(DATA / "written_abstract_no_numbers.txt")
    assert {(c.dataset, c.value, c.mapping.task) for c in record.claims} == {
        ("ClinicalQA", None, "clinicalqa@0"),
        ("KorMedMCQA", None, None),
    }
    assert all("no number stated" in c.notes for c in record.claims)
    model = record.models[0]
    assert (model.name, model.weights, model.base_model, model.license) == (
        "CliniKo",
        "https://huggingface.co/example-lab/CliniKo-8B",
        "Qwen/Qwen3-8B",
        "Apache-2.0",
    )


def test_readme_and_results_csv_are_joined_into_one_record_with_the_readme_model() -> None:
    folder = DATA / "written_readme_split"
    record = read([folder / "README.md", folder / "results.csv"])
    model = record.models[0]
    assert (model.name, model.license, model.base_model) == (
        "example-lab/OpenKoMed-3B",
        "MIT",
        "Qwen/Qwen3-4B-Base",
    )
    claims = {(c.model, c.dataset, c.task_variant): c for c in record.claims}
    assert set(claims) == {
        ("example-lab/OpenKoMed-3B", "ClinicalQA", None),
        ("example-lab/OpenKoMed-3B", "KorMedMCQA", "doctor"),
    }  # the "n/a" row gives no claim: an absent number is not guessed
    clinicalqa = claims[("example-lab/OpenKoMed-3B", "ClinicalQA", None)]
    assert (clinicalqa.value, clinicalqa.setting, clinicalqa.mapping.task) == (
        0.715,
        "zero-shot",
        "clinicalqa@0",
    )
    kormed = claims[("example-lab/OpenKoMed-3B", "KorMedMCQA", "doctor")]
    assert (kormed.value, kormed.setting, kormed.mapping.task) == (0.655, "5-shot", None)
    assert "clinicalqa@0" in kormed.mapping.reason


def test_html_page_table_gives_claims_and_ignores_script_text() -> None:
    record = read(DATA / "written_leaderboard_page.html")
    cells = {(c.model, c.dataset): c for c in record.claims}
    assert set(cells) == {("KoDoc-2", "ClinicalQA"), ("KoDoc-2", "KMLE"), ("gpt-oss-20b", "ClinicalQA")}
    assert cells[("KoDoc-2", "ClinicalQA")].value == 0.684
    assert cells[("KoDoc-2", "ClinicalQA")].setting == "zero-shot"
    assert cells[("KoDoc-2", "KMLE")].task_variant == "2024"
    assert all(c.value != 0.999 for c in record.claims)
    subject = record.models[0]
    assert (subject.name, subject.weights, subject.license) == (
        "KoDoc-2",
        "https://huggingface.co/example-org/KoDoc-2",
        "MIT",
    )


def test_ioh_claim_on_vitaldb_with_the_same_definition_maps_to_vitaldb_ioh() -> None:
    record = read(DATA / "written_ioh_vitaldb_abstract.md")
    assert {(c.metric, c.value, c.mapping.task) for c in record.claims} == {
        ("auroc", 0.91, "vitaldb-ioh@0"),
        ("auprc", 0.62, "vitaldb-ioh@0"),
    }
    assert record.models[0].weights == "https://huggingface.co/example-lab/HypoNet-2"


IOH_TEMPLATE = (
    "We trained IOHNet-1, a model for intraoperative hypotension, on the VitalDB dataset. Hypotension was "
    "defined as MAP {definition}, predicted {horizon} minutes ahead. IOHNet-1 reached an AUROC of 0.88."
)


@pytest.mark.parametrize(
    ("definition", "horizon", "expected"),
    [
        ("< 65 mmHg for at least 1 min", 5, None),
        ("< 65 mmHg for at least 1 min", 15, "different horizon (15 min)"),
        ("< 60 mmHg for at least 1 min", 5, "different hypotension definition (MAP < 60 mmHg for ≥ 60 s)"),
        ("< 65 mmHg for at least 3 min", 5, "different hypotension definition (MAP < 65 mmHg for ≥ 180 s)"),
        ("below 65 mmHg", 5, "different hypotension definition (MAP < 65 mmHg, duration not stated)"),
    ],
)
def test_ioh_claims_map_only_when_threshold_duration_and_horizon_all_match(
    definition: str, horizon: int, expected: str | None
) -> None:
    claim = read_text(IOH_TEMPLATE.format(definition=definition, horizon=horizon)).claims[0]
    if expected is None:
        assert claim.mapping.task == "vitaldb-ioh@0"
    else:
        assert claim.mapping.task is None
        assert expected in claim.mapping.reason


def test_ioh_claim_on_data_not_named_vitaldb_is_not_mapped() -> None:
    text = IOH_TEMPLATE.format(definition="< 65 mmHg for at least 1 min", horizon=5).replace("the VitalDB", "our")
    claim = read_text(text).claims[0]
    assert claim.mapping.task is None
    assert "not stated to be VitalDB" in claim.mapping.reason


def test_a_wide_table_with_models_as_rows_and_metric_columns() -> None:
    text = (
        "## Results on ClinicalQA (zero-shot)\n\n"
        "| Model | Accuracy | F1 | Params |\n|---|---|---|---|\n"
        "| Alpha-1 | 0.70 | 0.66 | 8 |\n| Beta-2 | 72.5% | - | 27 |\n"
    )
    claims = {(c.model, c.metric): c for c in read_text(text).claims}
    assert set(claims) == {("Alpha-1", "accuracy"), ("Alpha-1", "f1"), ("Beta-2", "accuracy")}
    assert claims[("Beta-2", "accuracy")].value == 0.725
    assert all(c.dataset == "ClinicalQA" and c.setting == "zero-shot" for c in claims.values())
    assert claims[("Alpha-1", "f1")].mapping.task == "clinicalqa@0"
    assert "the claim reports f1" in claims[("Alpha-1", "f1")].mapping.reason


def test_a_fenced_csv_block_in_a_readme_is_read_as_a_table() -> None:
    text = "Results:\n\n```csv\nmodel,dataset,metric,value\nGamma-3,ClinicalQA,accuracy,0.61\n```\n"
    (claim,) = read_text(text).claims
    assert (claim.model, claim.value, claim.mapping.task) == ("Gamma-3", 0.61, "clinicalqa@0")


def test_a_sentence_naming_an_unknown_model_is_not_attributed_to_the_documents_model() -> None:
    text = "Model Name: `lab/Delta-1`\n\nFor reference, the GPT-4 baseline reached 60.0% accuracy on ClinicalQA."
    (claim,) = read_text(text).claims
    assert claim.model == "GPT-4"


def test_identifiers_arxiv_doi_and_hugging_face_urls_are_collected() -> None:
    text = (
        "See arXiv:2403.01469v3 and https://arxiv.org/abs/2501.00001, doi 10.1000/xyz(1)2.\n"
        "Weights: https://huggingface.co/lab/Model-7B; data: https://huggingface.co/datasets/lab/Set.\n"
        "Docs: https://huggingface.co/docs/transformers. Also DOI 10.48550/arXiv.2402.00002."
    )
    identifiers = read_text(text).identifiers
    assert identifiers.arxiv == ["2403.01469v3", "2501.00001", "2402.00002"]
    assert identifiers.dois == ["10.1000/xyz(1)2", "10.48550/arXiv.2402.00002"]
    assert identifiers.hf_models == ["lab/Model-7B"]
    assert identifiers.hf_datasets == ["lab/Set"]


@pytest.mark.parametrize(
    ("raw", "metric", "percent_hint", "expected"),
    [
        ("76.78%", "accuracy", False, (0.7678, "fraction")),
        ("0.7678", "accuracy", False, (0.7678, "fraction")),
        ("0.7678", "accuracy", True, (0.7678, "fraction")),
        ("76.78", "accuracy", False, (0.7678, "fraction")),
        ("**0.94**", "auroc", False, (0.94, "fraction")),
        ("81.2 ± 1.1", None, True, (0.812, "fraction")),
        ("96.4", None, False, (96.4, None)),
        ("150", "accuracy", False, (None, None)),
        ("120%", "accuracy", False, (None, None)),
    ],
)
def test_values_are_normalised_without_guessing(
    raw: str, metric: str | None, percent_hint: bool, expected: tuple[float | None, str | None]
) -> None:
    reading = read_value(raw, metric=metric, percent_hint=percent_hint)
    assert reading is not None
    assert (reading.value, reading.unit) == expected


@pytest.mark.parametrize("raw", ["n/a", "—", "", "-", "TBD"])
def test_cells_without_a_number_give_no_value(raw: str) -> None:
    assert read_value(raw, metric="accuracy") is None


def test_scored_with_a_percent_sign_is_a_fraction_and_each_model_gets_its_own_number() -> None:
    text = "Llama-3-8B scored 61.0% on ClinicalQA while Foo-2 scored 66.0 on the 2024 KMLE."
    llama, foo = read_text(text).claims
    assert (llama.model, llama.value, llama.unit, llama.mapping.task) == (
        "Llama-3-8B",
        0.61,
        "fraction",
        "clinicalqa@0",
    )
    assert (foo.model, foo.value, foo.unit, foo.task_variant) == ("Foo-2", 66.0, "score", "2024")


def test_a_change_between_two_numbers_gives_both_ends_each_marked_as_one_end_of_a_change() -> None:
    # Both numbers are results (before and after a change, as in multimodal_icu_mortality_arxiv_2512_19716.md
    # of the reader corpus); each is kept, and marked so that a reviewer sees which end it is.
    before, after = read_text("Model Name: `a/Foo-1`\n\nAccuracy on ClinicalQA improved from 70.1% to 75.3%.").claims
    assert (before.value, after.value) == (0.701, 0.753)
    assert all("one end of a change ('from ... to ...')" in claim.notes for claim in (before, after))


def test_a_value_before_a_contrast_is_not_given_to_the_model_named_after_it() -> None:
    # the value of a name the reader does not know is left out, never handed to the model of the later clause
    record = read_text("Korvana reached 61.2% accuracy on MedMCQA, while GPT-4 reached 72.4%.")
    assert [(c.model, c.value) for c in record.claims] == [("GPT-4", 0.724)]
    record = read_text("The model reached 61.2% accuracy on MedMCQA, whereas GPT-4 reached 72.4%.")
    assert [(c.model, c.value) for c in record.claims] == [(None, 0.612), ("GPT-4", 0.724)]


@pytest.mark.parametrize(
    "sentence",
    [
        "GPT-4 showed an improvement of 4.2% in accuracy over GPT-3.5.",
        "GPT-4 was 5.3 points higher in accuracy than GPT-3.5.",
        "GPT-4 gave a +2% accuracy gain over GPT-3.5.",
        "GPT-4 outperformed GPT-3.5 by 5.3 points in accuracy.",
    ],
)
def test_a_gain_or_a_difference_is_not_read_as_a_score(sentence: str) -> None:
    assert [c.value for c in read_text(sentence).claims if c.value is not None] == []

"""A fine-tuning README compares its model with the model it was made from: "Base" and "Fine-tuned" columns stand for
the base model the card names ("- **Base Model**: ...", "| **Base Model** | ... |") and the model the project makes
(its one subject, or what its title says it fine-tunes); written here in forms the corpus does not hold."""

from __future__ import annotations

from tests.papers_support import found, read_text


def test_base_and_fine_tuned_columns_are_the_cards_base_model_and_the_model_its_title_makes() -> None:
    text = (
        "# Phi-4-mini Cardiology QLoRA Fine-tuning\n\nFine-tuning Phi-4-mini on cardiology questions.\n\n"
        "| | |\n|---|---|\n| **Base Model** | [microsoft/Phi-4-mini-instruct](https://huggingface.co/microsoft/"
        "Phi-4-mini-instruct) |\n| **Method** | QLoRA |\n\n"
        "| Metric | Base Model | Fine-tuned QLoRA | Improvement |\n|---|---|---|---|\n"
        "| **Accuracy** | 41.20% | 58.90% | +17.70 pp |\n\n"
        "| Topic | Base | Fine-tuned | Change |\n|---|---|---|---|\n| Arrhythmia | 38.00% | 61.50% | +23.5 pp |\n"
    )
    assert found(read_text(text)) == {
        ("microsoft/Phi-4-mini-instruct", "accuracy", 0.412),
        ("Phi-4-mini Cardiology QLoRA", "accuracy", 0.589),
        ("microsoft/Phi-4-mini-instruct", "accuracy", 0.38),
        ("Phi-4-mini Cardiology QLoRA", "accuracy", 0.615),
    }


def test_a_metric_corner_over_base_and_full_and_lora_columns_reads_the_base_model_of_a_labelled_line() -> None:
    text = (
        "# med-summarizer\n\n- **Base Model**: [Gemma-3-1B](https://example.org/gemma-3-1b)\n\n"
        "| Evaluation Metric | Base Model | Full Parameter Fine-tuned Model | Change |\n|---|---|---|---|\n"
        "| **ROUGE-L** | 0.1011 | 0.1876 | +85% |\n"
    )
    claims = found(read_text(text))
    assert ("Gemma-3-1B", "rouge-l", 0.1011) in claims
    assert 0.1876 in {value for _, _, value in claims}


def test_a_column_headed_base_model_beside_values_is_a_model_when_no_base_model_is_named() -> None:
    text = (
        "## Ablation\n\n| **Base Model** | **0.925** (0.913-0.936) |\n\n"
        "| Metric | Base Model | No-Lactate |\n|---|---|---|\n| AUROC | 0.9248 | 0.8207 |\n"
    )
    claims = found(read_text(text))
    assert ("Base Model", "auroc", 0.9248) in claims and ("No-Lactate", "auroc", 0.8207) in claims


def test_columns_of_ways_of_running_a_cards_one_model_are_its_settings() -> None:
    text = (
        "# MedX-7B\n\nWe release MedX-7B, a medical model fine-tuned from Qwen2.5-7B.\n\n"
        "| Benchmark | Zero-shot | 5-shot |\n|---|---|---|\n| MedQA | 61.2 | 64.0 |\n| PubMedQA | 72.4 | 74.8 |\n"
    )
    claims = {(c.model, c.value, c.setting) for c in read_text(text).claims}
    assert claims == {
        ("MedX-7B", 0.612, "zero-shot"),
        ("MedX-7B", 0.64, "5-shot"),
        ("MedX-7B", 0.724, "zero-shot"),
        ("MedX-7B", 0.748, "5-shot"),
    }


def test_a_fraction_under_a_table_whose_text_above_has_percentages_stays_a_fraction() -> None:
    text = (
        "# SOAP-Mistral\n\nSOAP-Mistral is our fine-tuned model; few-shot prompting gave a +11.9% uplift.\n\n"
        "| Metric | SOAP-Mistral | Mistral-7B-Instruct-v0.2 |\n|---|---|---|\n| **BERTScore** | 0.894 | 0.799 |\n"
    )
    assert found(read_text(text)) == {
        ("SOAP-Mistral", "bertscore", 0.894),
        ("Mistral-7B-Instruct-v0.2", "bertscore", 0.799),
    }

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.scorer import match
from inspect_ai.solver import generate


def record_to_sample(record):
    options = "\n".join(f"{letter}. {text}" for letter, text in zip("ABCDE", record["choices"], strict=False))
    prompt = f"{record['question']}\n\n{options}\n\nAnswer with the letter of the best option."
    return Sample(id=record["id"], input=prompt, target=record["target"])


@task
def clinicalqa_demo_items():
    return Task(dataset=json_dataset("items.jsonl", record_to_sample), solver=generate(), scorer=match(location="any"))

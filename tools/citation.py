"""BibTeX for a result: it cites the result (run id, task, model, URL, date) and asks for the dataset too."""

from __future__ import annotations

import re

SPECIAL = re.compile(r"([\\{}%&$#_^~])")


def escape(text: str) -> str:
    """Make user-supplied text inert inside a BibTeX field."""
    replacements = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}
    return SPECIAL.sub(lambda m: replacements.get(m.group(1), "\\" + m.group(1)), " ".join(text.split()))


def result_bibtex(
    *,
    run_id: str,
    run_key: str,
    model_name: str,
    model_slug: str,
    task_ref: str,
    task_title: str,
    spec_hash: str,
    eval_date: str,
    url: str,
    dataset_citation: str,
) -> str:
    year = eval_date[:4]
    return (
        f"@misc{{benchtoward_{run_id},\n"
        f"  title = {{{escape(model_name)} ({escape(model_slug)}) on {escape(task_title)} "
        f"({escape(task_ref)}): BenchToward result {run_id}}},\n"
        f"  author = {{{{BenchToward}}}},\n"
        f"  year = {{{year}}},\n"
        f"  howpublished = {{\\url{{{url}}}}},\n"
        f"  note = {{Run key {run_key}; task spec sha256 {spec_hash}; evaluated {eval_date}. "
        f"Please also cite the dataset: {escape(dataset_citation)}}}\n"
        f"}}\n"
    )

"""The model of tests/test_kinds_third.py, run as `--command`: `python short_answer_command.py INPUT OUTPUT`.

It reads the short-answer instances (JSONL), works out weight-based doses ("weighs 70 kg ... 2 mg/kg" → "140"),
and answers "liver" to every other question; one line {"instance_id", "answer"} per instance."""

from __future__ import annotations

import json
import re
import sys

DOSE = re.compile(r"weighs (?P<kg>[0-9.]+) kg and the dose is (?P<per>[0-9.]+) mg/kg")


def answer(question: str) -> str:
    found = DOSE.search(question)
    if found is None:
        return "Liver."
    total = float(found["kg"]) * float(found["per"])
    return f"{total:g}"


def main(source: str, target: str) -> None:
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8") as out:
        for line in lines:
            instance = json.loads(line)
            out.write(
                json.dumps({"instance_id": instance["instance_id"], "answer": answer(instance["question"])}) + "\n"
            )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

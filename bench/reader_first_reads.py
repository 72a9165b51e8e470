"""How the rule reader did on blind texts the first time it read them: for each blind set (a fresh split or a dev
batch), check out the commit it was first read at into a temporary git worktree, read the set's texts with that
commit's reader, and sort every claim read with a value: right, a value no gold claim has, the wrong model, or the
wrong metric. Prints the figures the closing notes quote beside the whole (claims without a metric or a benchmark,
claims whose "model" is a table's word, claims without a model).

    .venv/bin/python bench/reader_first_reads.py            # the eleven sets of 2026-12-02 (a few minutes)
    .venv/bin/python bench/reader_first_reads.py --set fc6cda2:fresh_test_8,fresh_test_9

Needs the git history (a clone, not an archive). Gold is today's gold; the reader is the one of each commit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.papers.names import a_tables_word  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "reader_corpus"
# the commit each blind set was first read at (bench/README.md's table of first reads)
SETS = {
    "e2bfb8d": ["fresh_test_5", "fresh_test_6", "fresh_test_7"],
    "fc6cda2": ["fresh_test_8", "fresh_test_9", "fresh_test_10"],
    "05bf044": ["fresh_test_13"],
    "ca93cdc": ["dev_batch_30", "dev_batch_31"],
    "ec4f806": ["dev_batch_32", "dev_batch_33"],
}
# run inside the old commit's tree: its reader, today's gold and scorer rules passed in as JSON
CHILD = r"""
import asyncio, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from evaluator.papers import read_paper
from evaluator.papers.scoring import same_metric, same_model, same_value
corpus, names = Path(sys.argv[2]), json.loads(sys.argv[3])
gold = {row["file"]: row for row in map(json.loads, (corpus / "gold.jsonl").read_text().splitlines()) if row}
out = []
async def main():
    for name in names:
        claims = gold[name]["claims"]
        free = list(range(len(claims)))
        for c in (await read_paper(corpus / name)).claims:
            if c.value is None:
                continue
            hit = next((i for i in free if same_value(c.value, float(claims[i]["value"]))
                        and same_metric(c.metric, claims[i]["metric"])
                        and same_model(c.model, claims[i]["model"])), None)
            if hit is not None:
                free.remove(hit); why = "right"
            else:
                values = [g for g in claims if same_value(c.value, float(g["value"]))]
                why = ("value not in gold" if not values else "wrong model"
                       if not any(same_model(c.model, g["model"]) for g in values) else "wrong metric")
            out.append({"file": name, "why": why, "model": c.model, "metric": c.metric, "dataset": c.dataset})
asyncio.run(main())
print(json.dumps(out))
"""


def first_reads(commit: str, lists: list[str]) -> list[dict[str, object]]:
    names = [n for lst in lists for n in json.loads((CORPUS / f"{lst}.json").read_text(encoding="utf-8"))["files"]]
    with tempfile.TemporaryDirectory(prefix="benchtoward-first-reads-") as folder:
        tree = Path(folder) / commit
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree), commit], check=True)
        try:
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(tree), str(CORPUS), json.dumps(names)],
                capture_output=True,
                text=True,
                check=True,
            )
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def share(rows: list[dict[str, object]]) -> str:
    right = sum(row["why"] == "right" for row in rows)
    return f"{right:5d} right of {len(rows):5d}" + (f" ({right / len(rows):6.1%})" if rows else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", default=[], help="COMMIT:LIST,LIST (list files without .json)")
    args = parser.parse_args()
    sets = {s.split(":", 1)[0]: s.split(":", 1)[1].split(",") for s in args.set} if args.set else SETS
    rows: list[dict[str, object]] = []
    for commit, lists in sets.items():
        read = first_reads(commit, lists)
        print(f"{commit} {'+'.join(lists):45} {share(read)}")
        rows += read
    print(f"\nall first reads                                       {share(rows)}")
    print("wrong, by kind:", dict(Counter(str(row["why"]) for row in rows if row["why"] != "right")))
    no_measure = [r for r in rows if r["metric"] is None and r["dataset"] is None]
    tables_word = [r for r in rows if isinstance(r["model"], str) and a_tables_word(r["model"])]
    no_model = [r for r in rows if r["model"] is None]
    print(f"no metric and no benchmark                            {share(no_measure)}   (rule: not a claim)")
    print(f"'model' a table's word (Training, Test, Overall, ...) {share(tables_word)}   (rule: not a claim)")
    print(f"no model                                              {share(no_model)}   (kept)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

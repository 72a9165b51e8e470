"""Harness overhead: 1,045 ClinicalQA-format items against a loopback endpoint with a fixed 100 ms latency,
at concurrency 32, through `tools.evaluate.evaluate` (claim, per-item cache writes, parsing, bootstrap,
predictions file, result row). Compared with the ideal 1,045 x 0.1 / 32 s; target <= 1.2 x ideal. Two runs with
their own run keys in one process: the first also pays the one-time imports, the second is a worker's steady state.

Then, when the llama.cpp engine is installed (`make engine`), a run against it (bench/engine_run.py): the harness's
wall time on a few demo items against the engine's own throughput measured alone (tokens/s x the tokens the run
needed); target <= 1.2 x. Its rounds alternate the engine alone and the harness, and each prints the engine's own
account of the work (its log) and the harness's phases (evaluator/timing.py) beside the ratio.

    .venv/bin/python bench/harness_bench.py [--items 1045] [--latency 0.1] [--concurrency 32]
        [--engine-items 8] [--engine-max-tokens 32] [--engine-concurrency 4] [--engine-rounds 3]
        [--engine-nice 10] [--no-engine | --engine-only]

The items are synthetic (bench data, written to a temp folder, never stored as a result anywhere else).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servers import ROOT, free_port

from evaluator.timing import Timings
from store import Store
from tools.eval_plan import EvalRequest
from tools.evaluate import evaluate
from tools.registry import Registry
from tools.seed import sync_specs


def write_items(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for index in range(count):
            options = {letter: f"보기 {letter} {index}" for letter in "ABCDE"}
            handle.write(
                json.dumps(
                    {
                        "question_id": index,
                        "question": f"벤치마크 문항 {index}",
                        "exam": "",
                        "options": options,
                        "answer": "ABCDE"[index % 5],
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


async def run(db: Path, data: Path, url: str, concurrency: int) -> list[tuple[float, str, Timings]]:
    """Two runs in one process, each its own run key: the first pays the process's one-time imports (numpy,
    pyarrow and the pandas it loads, aiohttp and its TLS context); the second is what a long-lived worker pays."""
    store = await Store.open(db)
    await sync_specs(store)
    registry = Registry(store=store, public_url="http://127.0.0.1", artifacts_dir=db.parent / "artifacts")
    timings = []
    try:
        for model in ("bench/fixed-latency", "bench/fixed-latency-again"):
            started = time.perf_counter()
            clock = Timings()
            outcome = await evaluate(
                registry,
                EvalRequest(
                    model=model,
                    task="clinicalqa@0",
                    data=data,
                    endpoint=url,
                    model_id="fixed",
                    concurrency=concurrency,
                ),
                timings=clock,
            )
            timings.append((time.perf_counter() - started, outcome.outcome, clock))
        return timings
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1045)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--engine-items", type=int, default=8)
    parser.add_argument("--engine-max-tokens", type=int, default=32)
    parser.add_argument("--engine-concurrency", type=int, default=4)
    parser.add_argument("--engine-rounds", type=int, default=3, help="Harness passes, each between two engine-alone.")
    parser.add_argument(
        "--engine-nice", type=int, default=10, help="The engine's CPU priority (yield on shared cores)."
    )
    parser.add_argument("--no-engine", action="store_true", help="Skip the run against the llama.cpp engine.")
    parser.add_argument("--engine-only", action="store_true", help="Only the run against the llama.cpp engine.")
    args = parser.parse_args()
    if not args.engine_only:
        fixed_latency_runs(args)
    if not args.no_engine:
        from engine_run import engine_runs

        engine_runs(
            args.engine_items, args.engine_max_tokens, args.engine_concurrency, args.engine_rounds, args.engine_nice
        )


def fixed_latency_runs(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="benchtoward-harness-"))
    data = folder / "test.jsonl"
    write_items(data, args.items)
    port = free_port()
    fake = ROOT / "bench" / "fake_endpoint.py"
    endpoint = subprocess.Popen([sys.executable, str(fake), str(port), str(args.latency)])
    try:
        time.sleep(1.5)  # the endpoint has no GET route to poll; give uvicorn a moment
        timings = asyncio.run(run(folder / "bench.db", data, f"http://127.0.0.1:{port}/v1", args.concurrency))
    finally:
        endpoint.terminate()
        endpoint.wait(timeout=30)
    ideal = args.items * args.latency / args.concurrency
    latency = f"{args.latency * 1000:.0f} ms latency"
    print(f"{args.items} items, {latency}, concurrency {args.concurrency}; ideal {ideal:.2f} s")
    for label, (wall, outcome, clock) in zip(
        ("first run in a fresh process", "next run, same process"), timings, strict=True
    ):
        print(f"  {label:<30} {outcome}: wall {wall:.2f} s, ratio {wall / ideal:.2f} (target <= 1.2)")
        for line in clock.summary():
            print(f"      {line}")


if __name__ == "__main__":
    main()

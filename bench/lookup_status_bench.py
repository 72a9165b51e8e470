"""Lookup throughput by answer: requests/s of /v1/lookup when it finds a published result (the hot path), when it
answers not_evaluated for a registered model (the answer is cached; the running-claims index is read on every call,
because claims heart-beat without moving the cache), for a model nobody registered (model_known false), and of
the trivial route, from one BenchToward process in the same run.

    .venv/bin/python bench/lookup_status_bench.py [--models 20] [--seconds 4] [--connections 32]

Target (issue 11): every lookup answer >= 0.7 x the trivial route. wrk is the load generator (one thread); on a
2-core machine it shares the CPU with the server, so compare figures of one run, not across runs.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from servers import benchtoward, ensure_database, requests_per_second

TARGET = 0.7


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp(prefix="benchtoward-lookup-")) / "bench.db"
    ensure_database(db, args.models, ["clinicalqa@0"])
    with benchtoward(db) as url:
        routes = {
            "trivial /healthz": f"{url}/healthz",
            "lookup: evaluated": f"{url}/v1/lookup?model=model-007&task=clinicalqa@0",
            "lookup: not_evaluated, registered": f"{url}/v1/lookup?model=model-007&task=clinicalqa-upstream-demo@0",
            "lookup: not_evaluated, unknown model": f"{url}/v1/lookup?model=nobody/new-7b&task=clinicalqa@0",
        }
        figures = {name: requests_per_second(target, args.connections, args.seconds) for name, target in routes.items()}
    trivial = figures["trivial /healthz"]
    for name, value in figures.items():
        ratio = value / trivial
        verdict = (
            "" if name.startswith("trivial") else f"   (target >= {TARGET} x: {'met' if ratio >= TARGET else 'MISSED'})"
        )
        print(f"  {name:40s} {value:9,.0f} req/s   {ratio:5.2f} x trivial{verdict}")


if __name__ == "__main__":
    main()

"""The long Schemathesis run: every operation of /v1/openapi.json, all checks, all phases (examples, coverage,
fuzzing, stateful), against `benchtoward serve` on a database of N models x the shipped tasks built through
the import path. CI runs a bounded version (tests/test_api_schemathesis.py, fixed seed).

    .venv/bin/python bench/fuzz_api.py [--models 20] [--max-examples 500] [--max-time 900] [--seed N]

Exit status 0 when nothing was found; Schemathesis prints each failure with a curl line to reproduce it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servers import benchtoward, ensure_database

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
TASKS = ["clinicalqa@0", "vitaldb-ioh@0", "clinicalqa-upstream-demo@0"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--max-examples", type=int, default=500)
    parser.add_argument("--max-time", type=int, default=900, help="Time budget of the whole run, seconds.")
    parser.add_argument("--seed", type=int, default=None, help="Default: a new random seed (printed).")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="benchtoward-fuzz-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "fuzz.db"
    ensure_database(db, args.models, TASKS)
    with benchtoward(db) as url:
        command = [
            str(SCHEMATHESIS),
            "--config-file",
            str(Path(__file__).parent.parent / "tests" / "schemathesis.toml"),
            "run",
            f"{url}/v1/openapi.json",
            "--max-examples",
            str(args.max_examples),
            "--max-time",
            str(args.max_time),
            "--no-color",
            "--request-timeout",
            "20",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--generation-database",
            "none",
        ]
        if args.seed is not None:
            command += ["--seed", str(args.seed)]
        started = time.perf_counter()
        status = subprocess.run(command, cwd=workdir).returncode
    print(
        f"schemathesis exit status {status} after {time.perf_counter() - started:.0f} s "
        f"({args.models} models x {len(TASKS)} tasks, --max-examples {args.max_examples})"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())

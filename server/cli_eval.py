"""`benchtoward eval`, `models add`, `data check` and `demo`: the evaluator's commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from server.cli_support import add_settings, run_with_registry
from server.progress import ProgressBar
from server.settings import Settings
from tools import data_check
from tools.eval_plan import EvalOutcome, EvalRequest
from tools.evaluate import evaluate
from tools.models import ModelSpec, add_model
from tools.registry import Registry
from web.bodies import validate

DEMO_RUNS = (
    ("baseline/majority", "clinicalqa-upstream-demo@0"),
    ("baseline/random", "clinicalqa-upstream-demo@0"),
    ("baseline/prevalence", "vitaldb-ioh-synthetic@0"),
    ("baseline/last-map", "vitaldb-ioh-synthetic@0"),
    ("baseline/logistic", "vitaldb-ioh-synthetic@0"),
)
EXIT_CODES = {"computed": 0, "existing": 0, "in_progress": 0, "stale": 3, "failed": 4}


def request_of(args: argparse.Namespace, settings: Settings) -> EvalRequest:
    return EvalRequest(
        model=args.model,
        task=args.task,
        data=settings.data,
        cache_root=settings.data_cache,
        endpoint=args.endpoint,
        model_id=args.model_id,
        api_key_env=args.api_key_env,
        concurrency=args.concurrency,
        timeout_seconds=args.timeout,
        max_retries=args.max_retries,
        limit=args.limit,
        allow_partial=args.allow_partial,
        resume=args.resume,
        command=args.command,
        tier=args.tier,
        publish=args.publish,
    )


def show(outcome: EvalOutcome, as_json: bool) -> None:
    if as_json:
        body: Any = (
            outcome.result.model_dump(mode="json")
            if outcome.result
            else {
                "outcome": outcome.outcome,
                "run_id": outcome.run_id,
                "run_key": outcome.run_key,
                "message": outcome.message,
            }
        )
        print(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())
        return
    print(outcome.message)
    if outcome.result is not None:
        result = outcome.result
        for metric in result.metrics:
            interval = "" if metric.ci_low is None else f" (95% CI {metric.ci_low:.4f}-{metric.ci_high:.4f})"
            value = "undefined" if metric.value is None else f"{metric.value:.4f}"
            print(f"  {metric.name}: {value}{interval}")
        print(f"  n={result.n} units={result.bootstrap.n_units} status={result.status} url={result.url}")


def eval_command(args: argparse.Namespace, settings: Settings) -> int:
    request = request_of(args, settings)
    progress = ProgressBar(f"{args.model} on {args.task}") if not args.json else None

    async def work(registry: Registry) -> EvalOutcome:
        return await evaluate(registry, request, progress or (lambda done, total: None))

    outcome = run_with_registry(settings, work)
    show(outcome, args.json)
    return EXIT_CODES[outcome.outcome]


def models_add(args: argparse.Namespace, settings: Settings) -> int:
    fields = {
        "slug": args.slug,
        "name": args.name or args.slug.strip().rsplit("/", 1)[-1],
        "type": args.type,
        "provider": args.provider,
        "provider_model_id": args.provider_model_id,
        "aliases": args.alias or [],
        "version": args.version or "",
        "endpoint": args.endpoint,
        "price_input_per_mtok": args.price_input,
        "price_output_per_mtok": args.price_output,
    }
    spec = validate(ModelSpec, fields)  # a malformed slug is bad_request (exit 2), not a traceback
    model = run_with_registry(settings, lambda registry: add_model(registry, spec))
    print(f"registered {model.slug} ({model.type}, version {model.version or 'unversioned'})")
    return 0


def data_check_command(args: argparse.Namespace, settings: Settings) -> int:
    async def work(registry: Registry) -> data_check.DataCheck:
        request = EvalRequest(model="-", task=args.task, data=settings.data, cache_root=settings.data_cache)
        return await data_check.check(registry, request, deep=args.deep)

    report = run_with_registry(settings, work)
    print(orjson.dumps(report.model_dump(), option=orjson.OPT_INDENT_2).decode() if args.json else report.describe())
    return 0 if report.ok else 1


def data_fetch_command(args: argparse.Namespace, settings: Settings) -> int:
    """Fetch VitalDB cases into --data (default ./vitaldb-data) for vitaldb-ioh tasks; online only."""
    from evaluator.specs import load_task_files
    from evaluator.vitaldb.definition import definition_from_spec
    from evaluator.vitaldb.fetch import fetch_cases

    spec = next(f.spec for f in load_task_files() if f.spec.task == args.task)
    definition = definition_from_spec(spec)
    directory = settings.data or Path("vitaldb-data")
    caseids = [int(c) for c in args.caseids.split(",")] if args.caseids else None
    summary = fetch_cases(
        directory,
        track=definition.track,
        min_age=definition.min_age,
        api_url=args.api_url,
        caseids=caseids,
        limit=args.limit,
        progress=ProgressBar(f"fetch {args.dataset}"),
    )
    print(
        f"{directory}: fetched {len(summary.fetched)}, already present {len(summary.skipped_present)}, "
        f"without {definition.track} {len(summary.without_track)}"
    )
    return 0


def demo_command(args: argparse.Namespace, settings: Settings) -> int:
    """Seed the demo tasks by running our baselines on them (a no-op for runs already stored)."""

    async def work(registry: Registry) -> list[EvalOutcome]:
        outcomes = []
        for model, task in DEMO_RUNS:
            request = EvalRequest(
                model=model, task=task, data=settings.data, cache_root=settings.data_cache, publish=True
            )
            outcomes.append(await evaluate(registry, request))
        return outcomes

    outcomes = run_with_registry(settings, work)
    for (model, task), outcome in zip(DEMO_RUNS, outcomes, strict=True):
        print(f"{model} on {task}: {outcome.message}", file=sys.stderr if args.quiet else sys.stdout)
    return max(EXIT_CODES[o.outcome] for o in outcomes)


def add_eval_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser("eval", help="Evaluate a model on a task once (looks up the run key first).")
    parser.add_argument("--model", required=True, help="Model slug, provider model id, or a baseline/… slug.")
    parser.add_argument("--task", required=True, help="slug@version or slug.")
    parser.add_argument("--endpoint", help="OpenAI-compatible base URL (registers an unknown slug as an llm).")
    parser.add_argument("--model-id", help="The model id the endpoint expects (default: the slug's name).")
    parser.add_argument("--api-key-env", help="Name of the environment variable that holds the API key.")
    parser.add_argument("--concurrency", type=int, default=16, help="Requests in flight (default 16).")
    parser.add_argument("--timeout", type=float, default=120.0, help="Seconds per request before a retry.")
    parser.add_argument("--max-retries", type=int, default=5, help="Retries of a 429, 5xx or timeout (default 5).")
    parser.add_argument("--limit", type=int, help="Only the first N instances (a partial run).")
    parser.add_argument("--allow-partial", action="store_true", help="Run on data that differs from the spec.")
    parser.add_argument("--resume", action="store_true", help="Finish a failed or stale run of the same key.")
    parser.add_argument("--command", help="An external command: CMD INPUT.jsonl OUTPUT.jsonl.")
    parser.add_argument("--tier", choices=["standard", "agent", "baseline", "official"], help="Override the tag.")
    parser.add_argument("--publish", action="store_true", help="Publish at once instead of waiting in review.")
    parser.add_argument("--json", action="store_true", help="Print the result as /v1/results/{run_id} returns it.")
    add_settings(parser, ["db", "public_url", "artifacts", "data", "log_level"])
    parser.set_defaults(handler=eval_command)

    models = commands.add_parser("models", help="Register models.").add_subparsers(dest="models_command", required=True)
    add = models.add_parser("add", help="Register or update a model.")
    add.add_argument("slug", help="provider/name, or a Hugging Face repo id (any case; a registered one is updated)")
    add.add_argument("--name")
    add.add_argument("--type", default="llm", choices=["llm", "tabular", "timeseries", "baseline"])
    add.add_argument("--provider")
    add.add_argument("--provider-model-id")
    add.add_argument("--alias", action="append")
    add.add_argument("--version", help="Version or weights revision (part of every run key).")
    add.add_argument("--endpoint", help="OpenAI-compatible base URL.")
    add.add_argument("--price-input", type=float, help="USD per million input tokens.")
    add.add_argument("--price-output", type=float, help="USD per million output tokens.")
    add_settings(add, ["db", "log_level"])
    add.set_defaults(handler=models_add)

    data = commands.add_parser("data", help="Check or fetch local task data.").add_subparsers(
        dest="data_command", required=True
    )
    check = data.add_parser("check", help="Verify local data against a task spec and say exactly what differs.")
    check.add_argument("task")
    check.add_argument("--json", action="store_true")
    check.add_argument(
        "--deep", action="store_true", help="Read every record of every case file (time-series tasks; slower)."
    )
    add_settings(check, ["db", "data", "log_level"])
    check.set_defaults(handler=data_check_command)

    fetch = data.add_parser("fetch", help="Download open data (VitalDB cases) through the vitaldb package.")
    fetch.add_argument("dataset", choices=["vitaldb"])
    fetch.add_argument("--task", default="vitaldb-ioh@0", help="The task whose track and case rules apply.")
    fetch.add_argument("--limit", type=int, help="At most N adult cases (default: all).")
    fetch.add_argument("--caseids", help="Comma-separated case ids to fetch.")
    fetch.add_argument("--api-url", default="https://api.vitaldb.net", help="VitalDB API base URL.")
    add_settings(fetch, ["data", "log_level"])
    fetch.set_defaults(handler=data_fetch_command)

    demo = commands.add_parser("demo", help="Seed the demo tasks by running the baselines (idempotent).")
    demo.add_argument("--quiet", action="store_true")
    add_settings(demo, ["db", "public_url", "artifacts", "data", "log_level"])
    demo.set_defaults(handler=demo_command)

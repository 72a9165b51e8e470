"""`benchtoward maintainer`, `papers read`, `review`, `tasks` and `worker`: the maintainers' commands.

The command line acts with the database directly, so whoever runs it is trusted like the server's operator; its
actions are audited as `cli:<user>`, or as a maintainer named with `--as NAME`.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel

from server.cli_support import add_settings, run_with_registry
from server.runtime import load_secret, paper_llm
from server.settings import Settings
from store import maintainers as maintainer_store
from tools import audit, publishing, reading, review
from tools.auth import Keys
from tools.errors import BadRequest, FetchFailed, PayloadTooLarge
from tools.jobs import JobWorker
from tools.maintainers import Actor, add_maintainer, list_maintainers, revoke_maintainer
from tools.registry import Registry
from web.bodies import validate

REVIEW_SETTINGS = [
    "review_workers",
    "offline",
    "paper_llm_endpoint",
    "paper_llm_model",
    "paper_llm_key_env",
    "endpoint_key_envs",
    "endpoint_hosts",
]
STORE = ["db", "public_url", "artifacts", "log_level"]
ENDPOINT_RULES = ["endpoint_key_envs", "endpoint_hosts"]  # which key variables an approved run may send, where
T = TypeVar("T")


def print_json(value: BaseModel | list[Any] | dict[str, Any]) -> None:
    body = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    print(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())


def actor(registry: Registry, name: str | None) -> Actor:
    """The maintainer named by --as, else the operator as cli:<user>."""
    if name is None:
        return Actor(f"cli:{getpass.getuser()}")
    maintainer = maintainer_store.get_by_name(registry.store, name)
    if maintainer is None or not maintainer.active:
        raise BadRequest(f"--as {name!r} is not an active maintainer (benchtoward maintainer list)")
    return Actor(maintainer.name, maintainer.id)


def with_actor(settings: Settings, args: argparse.Namespace, work: Callable[[Registry, Actor], Awaitable[T]]) -> T:
    return run_with_registry(settings, lambda registry: work(registry, actor(registry, args.as_maintainer)))


# maintainer ------------------------------------------------------------------------------------------------------


def maintainer_add(args: argparse.Namespace, settings: Settings) -> int:
    keys = Keys(load_secret(settings.secret_file))
    maintainer, token = with_actor(settings, args, lambda r, a: add_maintainer(r, keys, args.name, a))
    print(token)
    print(
        f"maintainer {maintainer.name}: the token above is shown once and only its hash is stored; keep it "
        "secret. Use it as 'Authorization: Bearer TOKEN' or at /review/login.",
        file=sys.stderr,
    )
    return 0


def maintainer_list(args: argparse.Namespace, settings: Settings) -> int:
    async def work(registry: Registry) -> list[Any]:
        return [m.model_dump() for m in list_maintainers(registry)]

    for row in run_with_registry(settings, work):
        revoked = f"\trevoked {row['revoked_at']}" if row["revoked_at"] else ""
        print(f"{row['name']}\tadded {row['created_at']}{revoked}")
    return 0


def maintainer_revoke(args: argparse.Namespace, settings: Settings) -> int:
    revoked = with_actor(settings, args, lambda r, a: revoke_maintainer(r, args.name, a, args.why or ""))
    print(f"{args.name}: {'revoked' if revoked else 'not an active maintainer (nothing changed)'}")
    return 0 if revoked else 1


# papers ----------------------------------------------------------------------------------------------------------


def local_document(path: Path) -> tuple[bytes, str]:
    try:
        size = path.stat().st_size
    except OSError as error:
        raise BadRequest(f"cannot read {path}: {error.strerror}") from None
    if size > reading.MAX_DOCUMENT_BYTES:
        raise PayloadTooLarge(f"{path.name} is {size} bytes, over the limit of {reading.MAX_DOCUMENT_BYTES}")
    return path.read_bytes(), path.name


async def document(source: str, settings: Settings) -> tuple[bytes, str]:
    if source.startswith(("http://", "https://")):
        if settings.offline:
            raise FetchFailed("offline (--offline / BENCHTOWARD_OFFLINE): give a file instead of a URL")
        return await reading.fetch_document(source)
    return local_document(Path(source))


def describe_record(record: Any) -> None:
    for model in record.models:
        print(
            f"model {model.name} ({model.role}): weights {model.weights or 'not stated'}; base "
            f"{model.base_model or '-'}; licence {model.license or '-'}"
        )
    for claim in record.claims:
        print(
            f"claim {claim.model or '?'} | {claim.dataset or '?'} {claim.task_variant or ''} | {claim.metric} "
            f"{claim.raw_value or 'n/a'} {claim.setting or ''} -> {claim.mapping.task or 'not mapped'}: "
            f"{claim.mapping.reason}"
        )


def papers_read(args: argparse.Namespace, settings: Settings) -> int:
    llm = paper_llm(settings)
    if not args.propose:

        async def just_read() -> Any:
            content, name = await document(args.source, settings)
            return await reading.read_record(content, name, llm)

        record = asyncio.run(just_read())
        print_json(record) if args.json else describe_record(record)
        return 0

    async def work(registry: Registry, who: Actor) -> reading.PaperReading:
        content, name = await document(args.source, settings)
        return await reading.read_and_propose(registry, who, content, name, llm=llm, data=settings.data)

    found = with_actor(settings, args, work)
    if args.json:
        print_json(found)
        return 0
    describe_record(found.record)
    for item in found.items:
        label = "already evaluated — reuse" if item.action == "reuse" else item.action.replace("_", " ")
        where = f" item {item.proposal_id}" if item.proposal_id else (f" {item.run_id}" if item.run_id else "")
        print(f"{label}: {item.kind} {item.model}{' on ' + item.task if item.task else ''}{where}: {item.reason}")
    print(f"reading {found.reading_id}: {found.proposed} new review item(s)")
    return 0


# review ----------------------------------------------------------------------------------------------------------


def show_item(item: review.ReviewItem) -> None:
    job = f" job {item.job.id} {item.job.status}" if item.job else ""
    task = f" on {item.task} (run {item.run_id}, {item.tier})" if item.task else ""
    print(f"#{item.id} {item.status} {item.kind} {item.model}{task}{job}")


def review_list(args: argparse.Namespace, settings: Settings) -> int:
    queue = run_with_registry(settings, lambda r: review.review_queue(r, review.QueueQuery(status=args.status)))
    if args.json:
        print_json(queue)
    else:
        for item in queue.items:
            show_item(item)
    return 0


def review_show(args: argparse.Namespace, settings: Settings) -> int:
    item = run_with_registry(settings, lambda r: review.get_item(r, review.ItemQuery(item_id=args.id)))
    if args.json:
        print_json(item)
        return 0
    show_item(item)
    print(f"why: {item.reason}\nfrom the text:\n{item.excerpt}")
    if item.job and item.job.message:
        print(f"job: {item.job.message}")
    return 0


def review_approve(args: argparse.Namespace, settings: Settings) -> int:
    body = validate(
        review.ApproveRequest, {"why": args.why or "", "endpoint": args.endpoint, "api_key_env": args.api_key_env}
    )
    item = with_actor(settings, args, lambda r, a: review.approve(r, a, args.id, body))
    show_item(item)
    if item.job is not None:
        print("queued: a server with --review-workers, or `benchtoward worker`, runs it", file=sys.stderr)
    return 0


def review_reject(args: argparse.Namespace, settings: Settings) -> int:
    body = validate(review.RejectRequest, {"why": args.why})
    item = with_actor(settings, args, lambda r, a: review.reject(r, a, args.id, body))
    show_item(item)
    return 0


def review_publish(args: argparse.Namespace, settings: Settings) -> int:
    body = validate(publishing.DecisionRequest, {"why": args.why or ""})
    result = with_actor(settings, args, lambda r, a: publishing.publish_result(r, a, args.run_id, body))
    print(f"{result.run_id} {result.status}: {result.url}")
    return 0


def review_withdraw(args: argparse.Namespace, settings: Settings) -> int:
    body = validate(publishing.WithdrawRequest, {"why": args.why})
    result = with_actor(settings, args, lambda r, a: publishing.withdraw_result(r, a, args.run_id, body))
    print(f"{result.run_id} {result.status}: {result.status_reason}")
    return 0


def review_results(args: argparse.Namespace, settings: Settings) -> int:
    waiting = run_with_registry(settings, lambda r: publishing.results_in_review(r, publishing.InReviewQuery()))
    if args.json:
        print_json(waiting)
    for result in [] if args.json else waiting.results:
        print(
            f"{result.run_id} {result.model.slug} on {result.task}: {result.primary_metric} "
            f"{result.metrics[0].value} (n={result.n}, {result.tier})"
        )
    return 0


def review_withdrawals(args: argparse.Namespace, settings: Settings) -> int:
    found = run_with_registry(settings, lambda r: publishing.withdrawal_requests(r, publishing.WithdrawalsQuery()))
    if args.json:
        print_json(found)
    for request in [] if args.json else found.requests:
        print(f"#{request.id} {request.run_id} {request.created_at}: {request.reason[:200]}")
    return 0


def review_log(args: argparse.Namespace, settings: Settings) -> int:
    entries = run_with_registry(settings, lambda r: audit.audit_log(r, audit.AuditQuery(limit=args.limit)))
    if args.json:
        print_json(entries)
    for entry in [] if args.json else entries.entries:
        print(f"{entry.id}\t{entry.at}\t{entry.actor}\t{entry.action}\t{entry.target}\t{entry.why}")
    return 0


# tasks -----------------------------------------------------------------------------------------------------------


def tasks_add(args: argparse.Namespace, settings: Settings) -> int:
    body = validate(
        publishing.NewTaskVersion,
        {
            "task_file": publishing.task_file_json(local_document(args.file)[0]),
            "note": args.note,
            "why": args.why or "",
        },
    )
    task = with_actor(settings, args, lambda r, a: publishing.add_task_version(r, a, body))
    print(f"{task.task} recorded ({task.status}), spec hash {task.spec_hash}")
    return 0


def tasks_status(args: argparse.Namespace, settings: Settings, status: str | None = None) -> int:
    body = validate(
        publishing.TaskStatusRequest, {"status": status or args.status, "note": args.note, "why": args.why or ""}
    )
    task = with_actor(settings, args, lambda r, a: publishing.set_task_status(r, a, args.task, body))
    print(f"{task.task} is {task.status.replace('_', ' ')}; change note: {task.change_note}")
    return 0


def tasks_publish(args: argparse.Namespace, settings: Settings) -> int:
    return tasks_status(args, settings, "published")


# worker ----------------------------------------------------------------------------------------------------------


def worker_command(args: argparse.Namespace, settings: Settings) -> int:
    """Run approved jobs in this process until stopped (SIGINT or SIGTERM hand the running jobs back)."""

    async def work(registry: Registry) -> None:
        worker = JobWorker(registry, data=settings.data, cache_root=settings.data_cache, slots=args.slots)
        main = asyncio.current_task()
        assert main is not None
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, main.cancel)
        try:
            await (worker.drain() if args.exit_when_idle else worker.run_forever())
        except asyncio.CancelledError:
            print("worker stopped; running jobs were handed back", file=sys.stderr)

    run_with_registry(settings, work)
    return 0


# the parser ------------------------------------------------------------------------------------------------------


def command(
    parent: Any, name: str, help_text: str, handler: Callable[..., int], settings: list[str], acting: bool = False
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = parent.add_parser(name, help=help_text)
    add_settings(parser, settings)
    if acting:
        parser.add_argument("--as", dest="as_maintainer", help="Act (and be audited) as this maintainer.")
    parser.set_defaults(handler=handler)
    return parser


def add_review_commands(commands: Any) -> None:
    group = commands.add_parser("maintainer", help="Maintainers and their tokens.").add_subparsers(
        dest="maintainer_command", required=True
    )
    command(
        group, "add", "Add a maintainer (or issue a new token); prints the token once.", maintainer_add, STORE, True
    ).add_argument("name")
    command(group, "list", "List maintainers.", maintainer_list, STORE)
    revoke = command(group, "revoke", "Revoke a maintainer's token.", maintainer_revoke, STORE, True)
    revoke.add_argument("name")
    revoke.add_argument("--why")

    papers = commands.add_parser("papers", help="The paper reader.").add_subparsers(
        dest="papers_command", required=True
    )
    read = command(
        papers,
        "read",
        "Read a paper or model card (file or URL) into a structured record.",
        papers_read,
        [*STORE, "data", "offline", "paper_llm_endpoint", "paper_llm_model", "paper_llm_key_env"],
        True,
    )
    read.add_argument("source", help="A file (PDF, HTML, Markdown, CSV, text) or an http(s) URL.")
    read.add_argument("--json", action="store_true", help="Print the record (and proposals) as JSON.")
    read.add_argument("--propose", action="store_true", help="Also queue the missing models and runs for review.")

    queue = commands.add_parser("review", help="The review queue.").add_subparsers(dest="review_command", required=True)
    listing = command(queue, "list", "List review items.", review_list, STORE)
    listing.add_argument("--status", default="pending", choices=["pending", "approved", "rejected", "all"])
    listing.add_argument("--json", action="store_true")
    show = command(queue, "show", "Show one review item.", review_show, STORE)
    show.add_argument("id", type=int)
    show.add_argument("--json", action="store_true")
    approve = command(
        queue,
        "approve",
        "Approve an item (a run is queued for the worker).",
        review_approve,
        [*STORE, *ENDPOINT_RULES],
        True,
    )
    approve.add_argument("id", type=int)
    approve.add_argument("--why")
    approve.add_argument("--endpoint", help="OpenAI-compatible base URL serving the model (runs).")
    approve.add_argument("--api-key-env", help="Name of the variable holding the endpoint's API key.")
    reject = command(queue, "reject", "Reject an item.", review_reject, STORE, True)
    reject.add_argument("id", type=int)
    reject.add_argument("--why", required=True)
    publish = command(queue, "publish", "Publish a result in review.", review_publish, STORE, True)
    publish.add_argument("run_id")
    publish.add_argument("--why")
    withdraw = command(
        queue, "withdraw", "Withdraw a result (it stays visible with the reason).", review_withdraw, STORE, True
    )
    withdraw.add_argument("run_id")
    withdraw.add_argument("--why", required=True)
    for name, help_text, handler in (
        ("results", "Results waiting in review.", review_results),
        ("withdrawals", "Open withdrawal requests.", review_withdrawals),
    ):
        command(queue, name, help_text, handler, STORE).add_argument("--json", action="store_true")
    log = command(queue, "log", "The audit log, newest first.", review_log, STORE)
    log.add_argument("--limit", type=int, default=50)
    log.add_argument("--json", action="store_true")

    tasks = commands.add_parser("tasks", help="Task versions.").add_subparsers(dest="tasks_command", required=True)
    add = command(tasks, "add", "Record an accepted change as a new task version (building).", tasks_add, STORE, True)
    add.add_argument("file", type=Path, help="A task file {meta, spec}.")
    add.add_argument("--note", required=True, help="What changed.")
    add.add_argument("--why")
    publish_task = command(tasks, "publish", "Publish a task version with its change note.", tasks_publish, STORE, True)
    publish_task.add_argument("task", help="slug@version")
    publish_task.add_argument("--note", required=True)
    publish_task.add_argument("--why")
    status = command(tasks, "status", "Move a task version to building or in_review.", tasks_status, STORE, True)
    status.add_argument("task", help="slug@version")
    status.add_argument("status", choices=["building", "in_review"])
    status.add_argument("--note")
    status.add_argument("--why")

    worker = command(
        commands,
        "worker",
        "Run approved evaluation jobs (a separate evaluator process).",
        worker_command,
        [*STORE, "data", *ENDPOINT_RULES],
    )
    worker.add_argument("--slots", type=int, default=1, help="Jobs at once (default 1).")
    worker.add_argument("--exit-when-idle", action="store_true", help="Stop when no job is left.")

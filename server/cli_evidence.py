"""`benchtoward evidence import` and `evidence list`: results other harnesses computed, kept as evidence."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import orjson

from server.cli_review import with_actor
from server.cli_support import add_settings, run_with_registry
from server.settings import Settings
from tools.evidence import ListEvidenceQuery, import_evidence, list_evidence


def evidence_import(args: argparse.Namespace, settings: Settings) -> int:
    imported = with_actor(
        settings,
        args,
        lambda registry, who: import_evidence(
            registry, args.file, args.model, args.samples, actor=who, data=settings.data
        ),
    )
    if args.json:
        print(orjson.dumps(imported.model_dump(mode="json")).decode())
        return 0
    for row in imported.stored:
        items = f", {row.items} items" if row.items else ""
        print(f"{imported.model}: {row.harness} {row.task_name} {row.metric} ({row.filter}) = {row.value:g}{items}")
    if imported.already_stored:
        print(f"{imported.already_stored} metrics of this file were stored already (unchanged)")
    if imported.reading_id is not None:
        print(
            f"reading {imported.reading_id}: the evaluator agent read it as claims; {imported.proposed} new review "
            "item(s) (benchtoward review queue)"
        )
    return 0


def evidence_list(args: argparse.Namespace, settings: Settings) -> int:
    found = run_with_registry(settings, lambda registry: list_evidence(registry, ListEvidenceQuery(model=args.model)))
    print(orjson.dumps(found.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode())
    return 0


def add_evidence_commands(commands: Any) -> None:
    parser = commands.add_parser(
        "evidence", help="External evidence: lm-eval and Inspect results attached to a model (never ranked)."
    )
    evidence_commands = parser.add_subparsers(dest="evidence_command", required=True)

    import_parser = evidence_commands.add_parser(
        "import", help="Attach an lm-eval results_*.json (with --samples) or an Inspect log (.json, .eval) to a model."
    )
    import_parser.add_argument("file", type=Path, metavar="FILE")
    import_parser.add_argument("--model", required=True, help="BenchToward model slug or provider model id.")
    import_parser.add_argument("--samples", type=Path, default=None, help="lm-eval's samples_<task>_*.jsonl.")
    import_parser.add_argument("--json", action="store_true", help="Print what was stored as JSON.")
    import_parser.add_argument(
        "--as", dest="as_maintainer", default=None, help="Record the import as this maintainer (default cli:<user>)."
    )
    add_settings(import_parser, ["db", "artifacts", "data", "log_level"])
    import_parser.set_defaults(handler=evidence_import)

    list_parser = evidence_commands.add_parser("list", help="Print a model's external evidence as JSON.")
    list_parser.add_argument("--model", required=True)
    add_settings(list_parser, ["db", "artifacts", "log_level"])
    list_parser.set_defaults(handler=evidence_list)

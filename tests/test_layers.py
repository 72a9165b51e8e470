"""The package layering of STYLE.md §1, held mechanically: imports flow server → web → tools → evaluator → store,
and SQL is written only in `store/`."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "web", "tools", "evaluator", "store")
# What each package may import from the project (any lower layer, never a higher one).
ALLOWED: dict[str, set[str]] = {
    "server": {"web", "tools", "evaluator", "store"},
    "web": {"tools", "evaluator", "store"},
    "tools": {"evaluator", "store"},
    "evaluator": {"store"},
    "store": set(),
}
SQL = re.compile(
    r"^\s*(SELECT\s.+\sFROM\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|"
    r"CREATE\s+(TABLE|INDEX|TRIGGER|VIEW|VIRTUAL)\s|DROP\s+(TABLE|INDEX|TRIGGER)\s|PRAGMA\s+\w+|BEGIN(\s+IMMEDIATE)?\s*$)",
    re.DOTALL,  # SQL keywords are written in capitals here, which tells a statement from an English sentence
)


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imported_packages(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(PACKAGES)


def wrong_way_imports(package: str) -> list[str]:
    problems = []
    for path in modules(package):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target in sorted(imported_packages(tree) - ALLOWED[package] - {package}):
            problems.append(f"{path.relative_to(ROOT)} imports {target}")
    return problems


def sql_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}: {node.value[:60]!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value)
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_only_flow_to_lower_layers(package: str) -> None:
    assert wrong_way_imports(package) == []


@pytest.mark.parametrize("package", [p for p in PACKAGES if p != "store"])
def test_no_sql_is_written_outside_store(package: str) -> None:
    assert [line for path in modules(package) for line in sql_strings(path)] == []


def test_the_sql_check_sees_sql_and_ignores_prose(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'a = "SELECT run_id FROM results WHERE run_key = ?"\n'
        'b = "INSERT OR REPLACE INTO t(x) VALUES (?)"\n'
        'c = "Select a model from the list"\n'
        'd = "update the page"\n'
    )
    found = sql_strings(sample)
    assert len(found) == 2, found


def test_the_sql_check_finds_the_statements_of_store() -> None:
    assert len([line for path in modules("store") for line in sql_strings(path)]) > 50


def test_the_import_check_sees_an_upward_import(tmp_path: Path) -> None:
    tree = ast.parse("from server.app import build_app\nimport web.pages\nfrom . import sibling\n")
    assert imported_packages(tree) == {"server", "web"}

"""README.md and llms.txt document every route, MCP tool, error code and setting the code has."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.routing import Route

from server.app import build_app
from server.capabilities import OPERATIONS
from server.settings import Settings, operator_settings, setting_fields
from tools.errors import all_error_codes

ROOT = Path(__file__).resolve().parent.parent
DOCS = {name: (ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "llms.txt")}
PUBLIC_PREFIXES = ("/v1/", "/artifacts/", "/llms.txt", "/mcp")


def public_routes() -> set[str]:
    app = build_app(Settings())
    return {r.path for r in app.routes if isinstance(r, Route) and r.path.startswith(PUBLIC_PREFIXES)}


@pytest.mark.parametrize("doc", sorted(DOCS))
@pytest.mark.parametrize("path", sorted(public_routes()))
def test_every_public_route_is_documented(doc: str, path: str) -> None:
    assert path in DOCS[doc], f"{path} is missing from {doc}"


@pytest.mark.parametrize("doc", sorted(DOCS))
@pytest.mark.parametrize("tool", sorted(op.name for op in OPERATIONS if op.mcp))
def test_every_mcp_tool_is_documented(doc: str, tool: str) -> None:
    assert f"`{tool}`" in DOCS[doc]


@pytest.mark.parametrize("doc", sorted(DOCS))
@pytest.mark.parametrize("code", sorted(all_error_codes()))
def test_every_error_code_is_documented(doc: str, code: str) -> None:
    assert f"`{code}`" in DOCS[doc]


OPERATOR_DOCS = "".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md")))


@pytest.mark.parametrize("doc", sorted(DOCS))
@pytest.mark.parametrize(("name", "flag", "env"), [(n, f, e) for n, f, e, _ in setting_fields()])
def test_every_setting_is_documented_with_flag_and_environment_variable(
    doc: str, name: str, flag: str, env: str
) -> None:
    """Every setting in README.md; in llms.txt those agents and users need, the operator's own in docs/ instead."""
    text = OPERATOR_DOCS if doc == "llms.txt" and name in operator_settings() else DOCS[doc]
    assert f"`{flag}`" in text and f"`{env}`" in text


def test_every_readme_curl_example_names_a_served_route() -> None:
    served = public_routes()
    for line in DOCS["README.md"].splitlines():
        if line.startswith("curl "):
            path = line.split("http://127.0.0.1:8000", 1)[1].split("?")[0].rstrip('"')
            path = path.replace("<run_id>", "{run_id}").replace("clinicalqa", "{slug}").replace("medbench", "{id}")
            assert path in served, line

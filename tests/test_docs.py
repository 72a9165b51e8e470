"""README.md documents every route, MCP tool, error code and setting the code has; llms.txt (for agents, short)
every agent route, tool and the codes an agent can meet; docs/maintainers.md the review routes, the settings and
every code."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.routing import Route

from server.app import build_app
from server.capabilities import OPERATIONS
from server.settings import Settings, setting_fields
from tools.errors import all_error_codes

ROOT = Path(__file__).resolve().parent.parent
DOCS = {name: (ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "llms.txt", "docs/maintainers.md")}
PUBLIC_PREFIXES = ("/v1/", "/artifacts/", "/llms.txt", "/mcp")
MAINTAINER_PREFIXES = ("/v1/review/", "/v1/beacon")  # not for agents: maintainers' routes and the pages' beacon
# Codes only a maintainer's call can meet (paper reading, review items, sessions and forms).
MAINTAINER_CODES = {
    "unauthorized",
    "forbidden",
    "proposal_not_found",
    "withdrawal_not_found",
    "bad_document",
    "extractor_failed",
    "fetch_failed",
}
LLMS_MAX_CHARS = 8000


def public_routes() -> set[str]:
    app = build_app(Settings())
    return {r.path for r in app.routes if isinstance(r, Route) and r.path.startswith(PUBLIC_PREFIXES)}


def agent_routes() -> set[str]:
    return {path for path in public_routes() if not path.startswith(MAINTAINER_PREFIXES)}


def maintainer_routes() -> set[str]:
    return public_routes() - agent_routes()


@pytest.mark.parametrize("path", sorted(public_routes()))
def test_every_public_route_is_in_the_readme(path: str) -> None:
    assert path in DOCS["README.md"], f"{path} is missing from README.md"


@pytest.mark.parametrize("path", sorted(agent_routes()))
def test_every_agent_route_is_in_llms_txt(path: str) -> None:
    assert path in DOCS["llms.txt"], f"{path} is missing from llms.txt"


@pytest.mark.parametrize("path", sorted(maintainer_routes()))
def test_every_maintainer_route_is_in_the_maintainers_guide(path: str) -> None:
    assert path in DOCS["docs/maintainers.md"], f"{path} is missing from docs/maintainers.md"


def test_llms_txt_is_short_for_agents_and_links_the_maintainers_guide() -> None:
    text = DOCS["llms.txt"]
    assert len(text) <= LLMS_MAX_CHARS, len(text)
    assert "docs/maintainers.md" in text
    assert not any(path in text for path in maintainer_routes() if path.startswith("/v1/review/"))
    for status in ("not_evaluated", "requested", "queued", "evaluating", "in_review", "evaluated", "withdrawn"):
        assert f"`{status}`" in text, status
    for word in ("`cursor`", "`next`", "`total`", "POST /v1/requests", "`request_evaluation`", "few seconds"):
        assert word in text, word


@pytest.mark.parametrize("doc", ["README.md", "llms.txt"])
@pytest.mark.parametrize("tool", sorted(op.name for op in OPERATIONS if op.mcp))
def test_every_mcp_tool_is_documented(doc: str, tool: str) -> None:
    assert f"`{tool}`" in DOCS[doc]


@pytest.mark.parametrize("doc", ["README.md", "docs/maintainers.md"])
@pytest.mark.parametrize("code", sorted(all_error_codes()))
def test_every_error_code_is_documented(doc: str, code: str) -> None:
    assert f"`{code}`" in DOCS[doc]


@pytest.mark.parametrize("code", sorted(set(all_error_codes()) - MAINTAINER_CODES))
def test_every_error_code_an_agent_can_meet_is_in_llms_txt(code: str) -> None:
    assert f"`{code}`" in DOCS["llms.txt"]


@pytest.mark.parametrize("doc", ["README.md", "docs/maintainers.md"])
@pytest.mark.parametrize(("name", "flag", "env"), [(n, f, e) for n, f, e, _ in setting_fields()])
def test_every_setting_is_documented_with_flag_and_environment_variable(
    doc: str, name: str, flag: str, env: str
) -> None:
    """Every setting in README.md and in the maintainers' and operators' guide (llms.txt is for agents)."""
    assert f"`{flag}`" in DOCS[doc] and f"`{env}`" in DOCS[doc]


def test_every_readme_curl_example_names_a_served_route() -> None:
    served = public_routes()
    for line in DOCS["README.md"].splitlines():
        if line.startswith("curl "):
            path = line.split("http://127.0.0.1:8000", 1)[1].split("?")[0].rstrip('"')
            path = path.replace("<run_id>", "{run_id}").replace("clinicalqa", "{slug}").replace("medbench", "{id}")
            assert path in served, line

"""Maintainers on the website: the login form that exchanges a token for a signed session cookie, the checks
every review page and form makes, and logout. Visitors never get a cookie: only a successful login sets one.

The cookie is HttpOnly, SameSite=Strict, limited to /review, Secure when the public URL is https, and expires
with the session it signs (8 hours). Every state-changing form carries a CSRF token bound to the session, and a
request whose Origin (or Sec-Fetch-Site) says it came from another site is refused before anything is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import quote

from starlette.requests import HTTPConnection, Request
from starlette.responses import RedirectResponse, Response

from evaluator.papers import LLMConfig
from store.maintainers import Maintainer
from tools.auth import Keys, Session
from tools.errors import Forbidden, Unauthorized
from tools.maintainers import Actor, actor_of, log_in, log_out, session_maintainer
from tools.ratelimit import Limiters
from tools.registry import Registry
from tools.usage import Visitor
from web.bodies import FORM_LIMIT, read_form
from web.pages import render

COOKIE = "bt_session"
COOKIE_PATH = "/review"
LOGIN_PURPOSE = "login"


class ReviewSite(Protocol):
    """What the review pages need from the running server."""

    @property
    def registry(self) -> Registry: ...

    @property
    def keys(self) -> Keys: ...

    @property
    def limiters(self) -> Limiters: ...

    @property
    def origin(self) -> str: ...

    @property
    def secure_cookies(self) -> bool: ...

    @property
    def data(self) -> Path | None: ...

    @property
    def offline(self) -> bool: ...

    @property
    def paper_llm(self) -> LLMConfig | None: ...

    def visitor(self, connection: HTTPConnection) -> Visitor: ...

    def wake_worker(self) -> None: ...


@dataclass(frozen=True)
class SignedIn:
    """A maintainer on a page: who, their session, and the CSRF token their forms carry."""

    maintainer: Maintainer
    session: Session
    csrf: str

    @property
    def actor(self) -> Actor:
        return actor_of(self.maintainer)


def signed_in(site: ReviewSite, request: Request) -> SignedIn | None:
    session = site.keys.read_session(request.cookies.get(COOKIE))
    maintainer = session_maintainer(site.registry, site.keys, session)
    if maintainer is None or session is None:
        return None
    return SignedIn(maintainer, session, site.keys.csrf_token(session))


def login_redirect(request: Request) -> Response:
    return RedirectResponse(f"/review/login?next={quote(request.url.path)}", status_code=303)


def check_same_site(site: ReviewSite, request: Request) -> None:
    """Refuse a form posted from another site: by the browser's Sec-Fetch-Site, else by its Origin. Our pages
    send `Referrer-Policy: no-referrer`, under which browsers post our own forms with `Origin: null`, so "null"
    proves nothing either way; the session-bound CSRF token and the SameSite=Strict cookie still stand."""
    fetch_site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if fetch_site is not None:
        if fetch_site not in ("same-origin", "none"):
            raise Forbidden("this form must be sent from BenchToward's own pages")
    elif origin not in (None, "null", site.origin):
        raise Forbidden("this form must be sent from BenchToward's own pages")


async def form_action(site: ReviewSite, request: Request, limit: int = FORM_LIMIT) -> tuple[SignedIn, dict[str, str]]:
    """A maintainer's form post: same site, a valid session, then a CSRF token bound to it; else refused and
    nothing read beyond the form."""
    check_same_site(site, request)
    who = signed_in(site, request)
    if who is None:
        raise Unauthorized("log in at /review/login first (the session is missing, expired or not ours)")
    form = await read_form(request, limit)
    if not site.keys.csrf_matches(who.session, str(form.get("csrf", "")) or None):
        raise Forbidden("the form's CSRF token is missing or wrong; reload the page and try again")
    return who, {key: value for key, value in form.items() if isinstance(value, str)}


def safe_next(target: str | None) -> str:
    """Only a local review page is a place to return to after logging in."""
    if target and target.startswith("/review") and "//" not in target and "\\" not in target:
        return target
    return "/review"


def login_page(site: ReviewSite, request: Request, status: int = 200, error: str = "") -> Response:
    return render(
        "review_login.html",
        status=status,
        title="Maintainer login",
        error=error,
        form_token=site.keys.form_token(LOGIN_PURPOSE),
        next=safe_next(request.query_params.get("next")),
    )


async def login(site: ReviewSite, request: Request) -> Response:
    """POST /review/login: a token for a session cookie. The token is checked first, so a valid one always
    gets in; failures count towards the failed-login limits (per visitor and per key id)."""
    check_same_site(site, request)
    form = await read_form(request, 4096)
    if not site.keys.form_token_valid(LOGIN_PURPOSE, str(form.get("form_token", "")) or None):
        raise Forbidden("the login form expired or was not ours; reload it and try again")
    token = str(form.get("token", "")).strip()
    try:
        _, cookie = await log_in(site.registry, site.keys, token)
    except Unauthorized:
        await site.limiters.login_failed(site.visitor(request).hash, token)
        return login_page(site, request, 401, "That token is not valid.")
    response = RedirectResponse(safe_next(str(form.get("next", ""))), status_code=303)
    response.set_cookie(
        COOKIE,
        cookie,
        max_age=site.keys.session_seconds,
        path=COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=site.secure_cookies,
    )
    return response


async def logout(site: ReviewSite, request: Request) -> Response:
    who, _ = await form_action(site, request)
    await log_out(site.registry, who.maintainer)
    response = RedirectResponse("/review/login", status_code=303)
    response.delete_cookie(COOKIE, path=COOKIE_PATH, httponly=True, samesite="strict", secure=site.secure_cookies)
    return response

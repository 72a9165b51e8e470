"""The maintainers' pages: the review queue (/review), one item, a paper's reading, the audit log, and the form
posts that approve, reject, publish, withdraw and move task versions. Each is a thin adapter over tools/; every
post goes through `form_action` (same site, session, CSRF) and answers with a redirect to the page it changed.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from urllib.parse import quote

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from tools import audit, publishing, reading, review
from tools.errors import BadRequest, Forbidden, Unauthorized
from tools.schemas import ROW_ID_MAX
from web.bodies import read_upload, read_upload_form, validate
from web.pages import render
from web.review_auth import (
    ReviewSite,
    SignedIn,
    check_same_site,
    form_action,
    login,
    login_page,
    login_redirect,
    logout,
    signed_in,
)

Page = Callable[[Request], Awaitable[Response]]


# The banners a form's redirect may show: a known code and the id it is about, never text from the URL, so a
# link to a maintainer page cannot make it say anything else ("your token expired, paste it at ...").
NOTICES = {
    "approved": "item {} approved",
    "rejected": "item {} rejected",
    "published": "result {} published",
    "withdrawn": "result {} withdrawn",
    "declined": "withdrawal request {} declined",
    "building": "{} is now building",
    "in_review": "{} is now in review",
    "task_published": "{} is now published",
}
SUBJECT = re.compile(r"^[A-Za-z0-9@._-]{1,80}$")  # an item, request or run id, or a task reference


def back(path: str, notice: str, subject: str | int) -> Response:
    return RedirectResponse(f"{path}?notice={notice}&subject={quote(str(subject))}", status_code=303)


def notice_of(request: Request) -> str:
    """The banner for a known notice code and a well-formed subject; anything else shows nothing."""
    template = NOTICES.get(request.query_params.get("notice", ""))
    subject = request.query_params.get("subject", "")
    return template.format(subject) if template is not None and SUBJECT.match(subject) else ""


def maintainer_page(site: ReviewSite, page: Callable[[Request, SignedIn], Awaitable[Response]]) -> Page:
    """A page for signed-in maintainers; anyone else is sent to the login form."""

    async def handle(request: Request) -> Response:
        who = signed_in(site, request)
        if who is None:
            return login_redirect(request)
        return await page(request, who)

    return handle


def review_routes_for(site: ReviewSite) -> list[BaseRoute]:
    async def queue(request: Request, who: SignedIn) -> Response:
        registry = site.registry
        pending = await review.review_queue(registry, review.QueueQuery(status="pending"))
        jobs = await review.list_jobs(registry, review.JobsQuery(limit=20))
        waiting = await publishing.results_in_review(registry, publishing.InReviewQuery())
        requests = await publishing.withdrawal_requests(registry, publishing.WithdrawalsQuery())
        unpublished = publishing.unpublished_tasks(registry)
        return render(
            "review_queue.html",
            title="Review",
            who=who,
            items=pending.items,
            jobs=jobs.jobs,
            results=waiting.results,
            requests=requests.requests,
            tasks=unpublished,
            readings=reading.recent_readings(registry, 10),
            notice=notice_of(request),
        )

    async def item_page(request: Request, who: SignedIn) -> Response:
        query = validate(review.ItemQuery, {"item_id": request.path_params["item_id"]})
        item = await review.get_item(site.registry, query)
        return render(
            "review_item.html",
            title=f"Review item {item.id}",
            who=who,
            item=item,
            notice=notice_of(request),
        )

    async def reading_page(request: Request, who: SignedIn) -> Response:
        found = reading.get_reading(site.registry, int(request.path_params["reading_id"]))
        return render("review_reading.html", title=f"Reading {found.reading_id}", who=who, reading=found)

    async def log_page(request: Request, who: SignedIn) -> Response:
        before = request.query_params.get("before", "")
        older = int(before) if before.isdigit() and 0 < int(before) <= ROW_ID_MAX else None  # else: the newest
        query = audit.AuditQuery(limit=100, before=older)
        entries = await audit.audit_log(site.registry, query)
        return render("review_log.html", title="Audit log", who=who, entries=entries.entries)

    async def approve(request: Request) -> Response:
        who, form = await form_action(site, request)
        item_id = validate(review.ItemQuery, {"item_id": request.path_params["item_id"]}).item_id
        body = validate(
            review.ApproveRequest,
            {k: v for k, v in form.items() if k in {"why", "endpoint", "api_key_env"} and v.strip()},
        )
        await review.approve(site.registry, who.actor, item_id, body)
        site.wake_worker()
        return back(f"/review/items/{item_id}", "approved", item_id)

    async def reject(request: Request) -> Response:
        who, form = await form_action(site, request)
        item_id = validate(review.ItemQuery, {"item_id": request.path_params["item_id"]}).item_id
        await review.reject(site.registry, who.actor, item_id, validate(review.RejectRequest, {"why": form.get("why")}))
        return back(f"/review/items/{item_id}", "rejected", item_id)

    async def publish(request: Request) -> Response:
        who, form = await form_action(site, request)
        run_id = request.path_params["run_id"][:64]
        body = validate(publishing.DecisionRequest, {"why": form.get("why", "")})
        await publishing.publish_result(site.registry, who.actor, run_id, body)
        return back("/review", "published", run_id)

    async def withdraw(request: Request) -> Response:
        who, form = await form_action(site, request)
        run_id = request.path_params["run_id"][:64]
        body = validate(publishing.WithdrawRequest, {"why": form.get("why", "")})
        await publishing.withdraw_result(site.registry, who.actor, run_id, body)
        return back("/review", "withdrawn", run_id)

    async def decline(request: Request) -> Response:
        who, form = await form_action(site, request)
        request_id = validate(publishing.RequestIdPath, {"request_id": request.path_params["request_id"]}).request_id
        body = validate(publishing.WithdrawRequest, {"why": form.get("why", "")})
        await publishing.decline_withdrawal(site.registry, who.actor, request_id, body)
        return back("/review", "declined", request_id)

    async def task_status(request: Request) -> Response:
        who, form = await form_action(site, request)
        ref = request.path_params["task"][:80]
        body = validate(
            publishing.TaskStatusRequest,
            {k: v for k, v in form.items() if k in {"status", "note", "why"} and v.strip()},
        )
        await publishing.set_task_status(site.registry, who.actor, ref, body)
        return back("/review", "task_published" if body.status == "published" else body.status, ref)

    async def read_paper(request: Request) -> Response:
        check_same_site(site, request)
        who = signed_in(site, request)
        if who is None:
            raise Unauthorized("log in at /review/login first")
        form = await read_upload_form(request)  # the CSRF token is one of its fields: the form is read first
        try:
            if not site.keys.csrf_matches(who.session, str(form.get("csrf", "")) or None):
                raise Forbidden("the form's CSRF token is missing or wrong; reload the page and try again")
            content, name = await uploaded(form.get("file"), str(form.get("url", "")).strip())
        finally:
            await form.close()
        found = await reading.read_and_propose(
            site.registry, who.actor, content, name, llm=site.paper_llm, data=site.data
        )
        return RedirectResponse(f"/review/readings/{found.reading_id}", status_code=303)

    async def uploaded(upload: object, url: str) -> tuple[bytes, str]:
        if isinstance(upload, UploadFile) and upload.filename:
            return await read_upload(upload)
        if not url:
            raise BadRequest("choose a file or give a URL")
        return await reading.fetch_paper(validate(reading.PaperUrl, {"url": url}).url, offline=site.offline)

    async def login_form(request: Request) -> Response:
        return login_page(site, request)

    async def login_post(request: Request) -> Response:
        return await login(site, request)

    async def logout_post(request: Request) -> Response:
        return await logout(site, request)

    return [
        Route("/review", maintainer_page(site, queue), methods=["GET"], name="review"),
        Route("/review/login", login_form, methods=["GET"], name="review_login"),
        Route("/review/login", login_post, methods=["POST"], name="review_login_post"),
        Route("/review/logout", logout_post, methods=["POST"], name="review_logout"),
        Route("/review/log", maintainer_page(site, log_page), methods=["GET"], name="review_log"),
        Route("/review/items/{item_id:int}", maintainer_page(site, item_page), methods=["GET"], name="review_item"),
        Route("/review/items/{item_id:int}/approve", approve, methods=["POST"], name="review_approve"),
        Route("/review/items/{item_id:int}/reject", reject, methods=["POST"], name="review_reject"),
        Route(
            "/review/readings/{reading_id:int}",
            maintainer_page(site, reading_page),
            methods=["GET"],
            name="review_reading",
        ),
        Route("/review/papers", read_paper, methods=["POST"], name="review_papers"),
        Route("/review/results/{run_id}/publish", publish, methods=["POST"], name="review_publish"),
        Route("/review/results/{run_id}/withdraw", withdraw, methods=["POST"], name="review_withdraw"),
        Route("/review/withdrawals/{request_id:int}/decline", decline, methods=["POST"], name="review_decline"),
        Route("/review/tasks/{task}/status", task_status, methods=["POST"], name="review_task_status"),
    ]

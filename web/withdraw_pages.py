"""Authors' rights on the website: the public form that asks the maintainers to withdraw a result while it is
checked. No account and no cookie; the form is dated and signed (it expires), size-limited, refused from other
sites, and rate-limited by the daily visitor hash. Nothing about the sender is stored but what they type."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from tools import publishing
from tools.errors import Forbidden
from web.bodies import read_form, validate
from web.pages import render
from web.review_auth import ReviewSite, check_same_site

PURPOSE = "withdrawal"


def withdraw_routes(site: ReviewSite) -> list[BaseRoute]:
    async def form_page(request: Request) -> Response:
        run_id = request.query_params.get("run_id", "")[:12]
        return render(
            "withdraw.html", title="Ask for a withdrawal", run_id=run_id, form_token=site.keys.form_token(PURPOSE)
        )

    async def submit(request: Request) -> Response:
        check_same_site(site, request)
        form = await read_form(request)
        if not site.keys.form_token_valid(PURPOSE, str(form.get("form_token", "")) or None):
            raise Forbidden("the form expired or was not ours; reload it and try again")
        wanted = {key: str(form.get(key, "")).strip() for key in ("run_id", "reason", "contact")}
        wanted_request = validate(publishing.NewWithdrawalRequest, wanted)
        visitor = site.visitor(request).hash
        # counted by request_withdrawal, only once the form token proved the form was ours
        receipt = await publishing.request_withdrawal(site.registry, wanted_request, site.limiters, visitor)
        return render("withdraw_done.html", status=202, title="Request received", receipt=receipt)

    return [
        Route("/withdraw", form_page, methods=["GET"], name="withdraw"),
        Route("/withdraw", submit, methods=["POST"], name="withdraw_post"),
    ]

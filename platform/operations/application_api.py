"""The partner area's application calls under /api/partner/ (docs/partner-api.md): the list
with paging, ordering, filters and search; one application in detail; bulk moves and the
single-deal assignment; the CSV export of the same filters; the filters' choices."""

from __future__ import annotations

import csv
import datetime
from collections.abc import Iterator
from typing import Any, Literal

from django.db import transaction
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from ninja import Field, Query, Router, Schema, Status

from common.downloads import download_answer
from common.i18n import request_language
from common.partner_config import PartnerConfig
from common.schemas import DetailOut
from common.text import CleanMultiline
from operations import application_selectors as selectors
from operations import errors as ops_errors
from operations.application_services import (
    MAX_IDS,
    deal_ceiling_refusals,
    money_move_text,
    money_moves_asked,
    partner_applications_deal_assign,
    partner_applications_move,
)
from operations.attribution import DEAL_CEILING
from operations.errors import OperationsError
from operations.models import SingleDeal
from quota import review_selectors as review
from quota.admin import _Echo, csv_cell, in_schema
from quota.models import QuotaStatus
from quota.schemas import ApplicationDetailOut, ApplicationRowOut, PartnerFiltersOut
from quota.services import MONEY_MOVE, registry_conflict_notice, vehicle_claims_move
from registrations.errors import CorrectionRefused
from registrations.services import registration_field_correct
from staff.audit import audit_record
from staff.auth import staff_auth, staff_role
from staff.errors import NOT_FOUND, StaffError
from staff.models import StaffMember
from tenants.middleware import request_partner
from tenants.models import Partner

router = Router(tags=["partner"])
writers = staff_role(StaffMember.Role.BACK_OFFICE, StaffMember.Role.PARTNER_ADMIN)
REFUSALS: dict[int | str, Any] = {401: DetailOut, 403: DetailOut, 404: DetailOut}
CSV_CHUNK_ROWS = 500
Ordering = Literal[tuple(selectors.ORDERING_CHOICES)]  # type: ignore[valid-type]


def _partner(request: HttpRequest) -> tuple[Partner, PartnerConfig]:
    partner = request_partner(request)
    assert partner is not None  # staff_auth answers 404 on a host without a partner
    return partner, PartnerConfig.model_validate(partner.config)


class ApplicationFilterQuery(Schema):
    status: list[QuotaStatus] = Field(default_factory=list, description="One or more; repeat the parameter")
    legislation_year: int | None = Field(None, ge=2000, le=2100)
    vehicle_class: str | None = Field(None, pattern=r"^[A-Za-z0-9]{1,10}$")
    sub_partner: int | None = Field(None, ge=1)
    single_deal: int | None = Field(None, ge=1)
    created_from: datetime.date | None = None
    created_to: datetime.date | None = None
    q: str | None = Field(None, max_length=100, description="Registration number, VIN or owner name")
    changed_since: datetime.datetime | None = Field(
        None,
        description="Only applications changed at or after this moment (ISO 8601; without offset: Berlin time)",
    )
    reference: str | None = Field(None, max_length=100, description="The partner's own reference (exact)")

    def filters(self) -> selectors.ApplicationFilters:
        return selectors.ApplicationFilters(
            statuses=[str(s) for s in self.status],
            legislation_year=self.legislation_year,
            vehicle_class=(self.vehicle_class or "").upper(),
            sub_partner=self.sub_partner,
            single_deal=self.single_deal,
            created_from=self.created_from,
            created_to=self.created_to,
            q=" ".join((self.q or "").split()),
            changed_since=(
                timezone.make_aware(self.changed_since)
                if self.changed_since is not None and timezone.is_naive(self.changed_since)
                else self.changed_since
            ),
            reference=" ".join((self.reference or "").split()),
        )


class ApplicationListQuery(ApplicationFilterQuery):
    page: int = Field(1, ge=1, le=100_000)
    page_size: int = Field(25, ge=1, le=100)
    ordering: Ordering = "-created_at"  # type: ignore[valid-type]


class ApplicationPageOut(Schema):
    count: int
    count_exact: bool = Field(
        description="false: more than 10,000 match and `count` is the database's estimate (rounded to hundreds)"
    )
    page: int
    page_size: int
    results: list[ApplicationRowOut]


class MoveIn(Schema):
    ids: list[int] = Field(min_length=1, max_length=MAX_IDS)
    status: QuotaStatus | None = None
    reason: CleanMultiline = Field("", max_length=500)
    single_deal: int | None = Field(
        None, description="Assign this single deal instead of moving; null removes it"
    )


class MoveResultOut(Schema):
    id: int
    ok: bool
    detail: str | None = None
    error_code: str | None = None
    notice: str | None = Field(
        None, description="Set after a move past review that found a possible double registration"
    )


class MovesOut(Schema):
    results: list[MoveResultOut]


@router.get(
    "/quota_applications/",
    auth=staff_auth,
    response={200: ApplicationPageOut, **REFUSALS},
    operation_id="quota_partner_api_partner_application_list",
)
def partner_application_list(request: HttpRequest, query: Query[ApplicationListQuery]) -> Any:
    _, config = _partner(request)
    language = request_language(request)
    found = selectors.application_page(
        filters=query.filters(), ordering=query.ordering, page=query.page, page_size=query.page_size
    )
    return {
        "count": found.count,
        "count_exact": found.count_exact,
        "page": query.page,
        "page_size": query.page_size,
        "results": selectors.application_rows(found, config=config, language=language),
    }


@router.get(
    "/quota_applications/filters/",
    auth=staff_auth,
    response={200: PartnerFiltersOut, **REFUSALS},
    operation_id="quota_partner_api_partner_application_filters",
)
def partner_application_filters(request: HttpRequest) -> Any:
    return selectors.application_filters(language=request_language(request))


@router.get(
    "/quota_applications/{int:application_id}/",
    auth=staff_auth,
    response={200: ApplicationDetailOut, **REFUSALS},
    operation_id="quota_partner_api_partner_application_detail",
)
def partner_application_detail(request: HttpRequest, application_id: int) -> Any:
    partner, config = _partner(request)
    application = selectors.application_get(application_id)
    if application is None:
        raise StaffError(NOT_FOUND, status=404)
    return selectors.application_detail(
        application, partner=partner, config=config, language=request_language(request)
    )


ReviewCode = Literal[review.REVIEW_CODES]  # type: ignore[valid-type]


class ReviewQuery(Schema):
    page: int = Field(1, ge=1, le=100_000)
    page_size: int = Field(25, ge=1, le=100)
    field: ReviewCode | None = Field(None, description="Only this field code")  # type: ignore[valid-type]


class ReviewFieldOut(Schema):
    code: str
    value: str | None
    confidence: float | None
    unread: bool
    decided_by: str = Field(description="The reader's rule, or why it left the field unread; empty: none")
    box: list[float] | None = Field(
        description="[x0, y0, x1, y1] as shares of the display picture's width and height"
    )


class ReviewRowOut(Schema):
    id: int
    sequence: int
    status: str
    status_label: str
    created_at: str
    owner_name: str
    vin: str
    image_url: str = Field(description="The display copy (holder blacked out), token-bound")
    fields: list[ReviewFieldOut]


class ReviewPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[ReviewRowOut]


class ReviewReportRowOut(Schema):
    code: str
    rule: str
    stored: int = Field(description="Registrations whose field this rule decided (or left unread)")
    corrected: int = Field(description="Of those, how many the back office changed")
    share: float | None


class ReviewReportOut(Schema):
    results: list[ReviewReportRowOut]


@router.get(
    "/quota_applications/review/",
    auth=staff_auth,
    response={200: ReviewPageOut, **REFUSALS},
    operation_id="quota_partner_api_partner_review_list",
)
def partner_review_list(request: HttpRequest, query: Query[ReviewQuery]) -> Any:
    """The applications whose fields the reader left unread or read unsure (confidence below
    0.8), oldest first, each with those fields, their rule and their place on the picture."""
    partner, _ = _partner(request)
    found = review.review_page(
        partner=partner,
        language=request_language(request),
        code=query.field,
        page=query.page,
        page_size=query.page_size,
    )
    return {"count": found.count, "page": query.page, "page_size": query.page_size, "results": found.results}


@router.get(
    "/quota_applications/review/report/",
    auth=staff_auth,
    response={200: ReviewReportOut, **REFUSALS},
    operation_id="quota_partner_api_partner_review_report",
)
def partner_review_report(request: HttpRequest) -> Any:
    """Which field and which rule the back office corrects most."""
    _partner(request)
    return {"results": review.review_report()}


class CorrectionIn(Schema):
    field: str = Field(
        max_length=5, description="The form's field code: E, B, I, J, 10, P.3, D.1, D.3, A, 2.1"
    )
    value: str = Field(max_length=100)


@router.post(
    "/quota_applications/{int:application_id}/corrections/",
    auth=writers,
    response={200: ApplicationDetailOut, 400: dict[str, Any], **REFUSALS},
    operation_id="quota_partner_api_partner_application_correct",
)
def partner_application_correct(request: HttpRequest, application_id: int, payload: CorrectionIn) -> Any:
    """The back office corrects one field the reader read: the reader's rules apply, the
    correction is kept in the registration's history and audited; answers the detail."""
    partner, config = _partner(request)
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    language = request_language(request)
    application = selectors.application_get(application_id)
    if application is None:
        raise StaffError(NOT_FOUND, status=404)
    try:
        with transaction.atomic():
            correction = registration_field_correct(
                registration=application.registration,
                code=payload.field.strip(),
                value=payload.value,
                actor=member.user,
                actor_name=member.name or member.user.email,
            )
            audit_record(
                actor=member, action="registration.correct", obj=application,
                before={"field": correction.code, "value": correction.before},
                after={"field": correction.code, "value": correction.after},
            )  # fmt: skip
            # the VIN, its field 3 or the make (what decides whether the VIN may claim) changed
            if correction.code in {"E", "3", "D.1"} and correction.before != correction.after:
                vehicle_claims_move(registration=application.registration)
    except CorrectionRefused as refused:
        return Status(400, refused.body(language))
    return selectors.application_detail(application, partner=partner, config=config, language=language)


@router.post(
    "/quota_applications/moves/",
    auth=writers,
    response={200: MovesOut, 400: dict[str, Any], **REFUSALS},
    operation_id="quota_partner_api_partner_application_moves",
)
def partner_application_moves(request: HttpRequest, payload: MoveIn) -> Any:
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    language = request_language(request)
    assigning = "single_deal" in payload.model_fields_set
    if (payload.status is None) == (not assigning):
        raise OperationsError(ops_errors.MOVE_BODY)
    if assigning:
        deal = None
        if payload.single_deal is not None:
            deal = SingleDeal.objects.filter(pk=payload.single_deal).first()
            if deal is None:
                raise OperationsError(ops_errors.DEAL_UNKNOWN, field="single_deal")
            # The deal's price per vehicle within the platform's ceiling of each vehicle's class
            # and year (issue 46): refused whole, before anything is assigned.
            above = deal_ceiling_refusals(deal=deal, ids=payload.ids)
            if above:
                return Status(
                    400,
                    {
                        "single_deal": {
                            "error_code": DEAL_CEILING,
                            "message": above[0]["detail"],
                            "details": {"ids": [row["id"] for row in above], "applications": above},
                        }
                    },
                )
        results = partner_applications_deal_assign(
            member=member, ids=payload.ids, single_deal=deal, language=language
        )
    else:
        assert payload.status is not None
        # Money states are the settlement batches' alone (issue 46): refused whole, for every
        # role, before anything moves.
        money = money_moves_asked(ids=payload.ids, status=str(payload.status))
        if money:
            return Status(
                400,
                {
                    "detail": money_move_text(language),
                    "error_code": MONEY_MOVE,
                    "ids": money,
                },
            )
        results = partner_applications_move(
            member=member,
            ids=payload.ids,
            status=str(payload.status),
            reason=payload.reason,
            language=language,
        )
        for result in results:  # the review is where a partner learns of a registry conflict
            if result.get("ok"):
                notice = registry_conflict_notice(
                    application_id=result["id"], status=str(payload.status), language=language
                )
                if notice:
                    result["notice"] = notice
    return {"results": results}


@router.get(
    "/quota_applications/export.csv",
    auth=writers,
    response={200: None, **REFUSALS},
    openapi_extra=download_answer("CSV (UTF-8 with BOM, `;`)", "text/csv"),
    operation_id="quota_partner_api_partner_application_export",
)
def partner_application_export(request: HttpRequest, query: Query[ApplicationFilterQuery]) -> Any:
    partner, config = _partner(request)
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    filters = query.filters()
    # Personal data leaves the system: who exported what is recorded.
    audit_record(
        actor=member, action="quota_application.export", object_type="quota.quotaapplication",
        after={key: value for key, value in query.dict().items() if value not in (None, [], "")},
    )  # fmt: skip
    rows = selectors.application_csv_rows(filters, config=config)
    writer = csv.writer(_Echo(), delimiter=";")

    def chunks() -> Iterator[str]:
        # A few hundred rows per chunk: one write per row would cost more than the rows.
        yield "\ufeff" + writer.writerow(selectors.CSV_HEADER)
        lines: list[str] = []
        for row in rows:
            lines.append(writer.writerow([csv_cell(value) for value in row]))
            if len(lines) == CSV_CHUNK_ROWS:
                yield "".join(lines)
                lines = []
        if lines:
            yield "".join(lines)

    stamp = timezone.localdate().isoformat()
    return StreamingHttpResponse(
        in_schema(partner.schema_name, chunks()),
        content_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="antraege-{stamp}.csv"',
            "Cache-Control": "private, no-store",
        },
    )

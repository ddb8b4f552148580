"""The applications export as XLSX (issue 49) beside the CSV (operations.application_api): the same
filters, the same columns (application_selectors.APPLICATION_COLUMNS), the same roles and audit
entry; written with openpyxl's write-only mode into a spooled temporary file (common.tables)."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse, HttpRequest
from django.utils import timezone
from ninja import Query, Router

from common.downloads import download_answer
from common.partner_config import PartnerConfig
from common.tables import XLSX_CONTENT_TYPE, xlsx_file
from operations import application_selectors as selectors
from operations.application_api import REFUSALS, ApplicationFilterQuery, writers
from staff.audit import audit_record
from staff.models import StaffMember
from tenants.middleware import request_partner

router = Router(tags=["partner"])


@router.get(
    "/quota_applications/export.xlsx",
    auth=writers,
    response={200: None, **REFUSALS},
    openapi_extra=download_answer("XLSX, one sheet", XLSX_CONTENT_TYPE),
    operation_id="quota_export_api_partner_application_export_xlsx",
)
def partner_application_export_xlsx(request: HttpRequest, query: Query[ApplicationFilterQuery]) -> Any:
    partner = request_partner(request)
    assert partner is not None  # staff_auth answers 404 on a host without a partner
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    # Personal data leaves the system: who exported what is recorded (as for the CSV).
    audit_record(
        actor=member, action="quota_application.export", object_type="quota.quotaapplication",
        after={
            "format": "xlsx",
            **{key: value for key, value in query.dict().items() if value not in (None, [], "")},
        },
    )  # fmt: skip
    rows = selectors.application_export_rows(
        query.filters(), config=PartnerConfig.model_validate(partner.config)
    )
    target = xlsx_file(selectors.APPLICATION_COLUMNS, rows, title="Anträge")
    response = FileResponse(target, content_type=XLSX_CONTENT_TYPE)
    stamp = timezone.localdate().isoformat()
    response["Content-Disposition"] = f'attachment; filename="antraege-{stamp}.xlsx"'
    response["Cache-Control"] = "private, no-store"
    return response

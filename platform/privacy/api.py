"""The portal's privacy calls: export (Art. 15/20) and erasure (Art. 17) of the owner's data."""

from __future__ import annotations

from typing import Any

from django.core.files.storage import default_storage
from django.http import FileResponse, HttpRequest, JsonResponse
from ninja import Router, Status

from accounts.tokens import partner_auth
from common.downloads import download_answer
from common.schemas import DetailOut
from privacy import services
from privacy.errors import PrivacyError
from privacy.schemas import (
    ErasureConfirmIn,
    PartnerErasureIn,
    PartnerErasureLookupIn,
    PartnerErasureOut,
    PartnerErasureOwnerOut,
    PrivacyErrorOut,
)
from staff.auth import staff_role
from staff.models import StaffMember
from tenants.middleware import partner_site_url, request_partner
from tenants.models import Partner

router = Router(tags=["portal"])

EXPORT_QUEUED = (
    "Wir stellen Ihre Daten zusammen und schicken Ihnen in wenigen Minuten einen Link per E-Mail. "
    "Er ist 24 Stunden gültig."
)
ERASURE_CODE_SENT = "Wir haben Ihnen einen Bestätigungscode per E-Mail geschickt."
ERASED = "Ihr Konto und Ihre Daten wurden gelöscht."


def _partner(request: HttpRequest) -> Partner:
    partner = request_partner(request)
    assert partner is not None  # partner_auth refuses requests without one
    return partner


def _error(error: PrivacyError) -> JsonResponse:
    response = JsonResponse({"detail": error.message, "error_code": error.code}, status=error.status)
    if error.retry_after is not None:
        response["Retry-After"] = str(error.retry_after)
    return response


@router.post(
    "/end_user_portal/data_export/",
    auth=partner_auth,
    response={202: DetailOut, 403: PrivacyErrorOut, 429: PrivacyErrorOut},
    summary="Ask for a ZIP of all of the owner's data, mailed as a one-time link (24 h)",
)
def data_export_request(request: HttpRequest) -> Any:
    partner = _partner(request)
    user = request.auth  # type: ignore[attr-defined]
    try:
        services.data_export_request(partner=partner, user=user, site_url=partner_site_url(partner, request))
    except PrivacyError as error:
        return _error(error)
    return Status(202, {"detail": EXPORT_QUEUED})


@router.get(
    "/end_user_portal/data_export/{key}/",
    auth=None,
    response={200: None, 404: PrivacyErrorOut},
    summary="The mailed export link: the ZIP, once, within 24 hours",
    openapi_extra=download_answer("The owner's data (GDPR Art. 15/20) as a ZIP", "application/zip"),
)
def data_export_download(request: HttpRequest, key: str) -> Any:
    if request_partner(request) is None:
        return Status(404, {"detail": "Not found.", "error_code": "PRIV002"})
    try:
        export = services.data_export_claim(key=key)
        handle = default_storage.open(export.file, "rb")
    except PrivacyError as error:
        return _error(error)
    except FileNotFoundError:
        return Status(404, {"detail": "Not found.", "error_code": "PRIV002"})
    response = FileResponse(
        handle, content_type="application/zip", as_attachment=True, filename="meine-daten.zip"
    )
    response["Cache-Control"] = "private, no-store"
    return response


@router.post(
    "/end_user_portal/erasure/",
    auth=partner_auth,
    response={200: DetailOut, 403: PrivacyErrorOut, 429: PrivacyErrorOut},
    summary="Ask for the erasure of the account: a confirmation code is mailed",
)
def erasure_request(request: HttpRequest) -> Any:
    try:
        services.erasure_request(partner=_partner(request), user=request.auth)  # type: ignore[attr-defined]
    except PrivacyError as error:
        return _error(error)
    return {"detail": ERASURE_CODE_SENT}


@router.post(
    "/end_user_portal/erasure/confirm/",
    auth=partner_auth,
    response={200: DetailOut, 400: PrivacyErrorOut, 403: PrivacyErrorOut, 429: PrivacyErrorOut},
    summary="Confirm the erasure with the mailed code: the account and its data are deleted",
)
def erasure_confirm(request: HttpRequest, payload: ErasureConfirmIn) -> Any:
    try:
        services.erasure_confirm(partner=_partner(request), user=request.auth, code=payload.code.strip())  # type: ignore[attr-defined]
    except PrivacyError as error:
        return _error(error)
    return {"detail": ERASED}


# ---------------------------------------------------------------- partner area (partner admins)

admin_only = staff_role(StaffMember.Role.PARTNER_ADMIN)
PARTNER_REFUSALS: dict[int | str, Any] = {401: DetailOut, 403: PrivacyErrorOut, 404: PrivacyErrorOut}
PARTNER_ERASED = "Das Kundenkonto und seine Daten wurden gelöscht."


@router.post(
    "/partner/privacy/erasure/preview/",
    auth=admin_only,
    tags=["partner"],
    response={200: PartnerErasureOwnerOut, **PARTNER_REFUSALS},
    summary="What an erasure of the owner with this e-mail address would delete and keep",
)
def partner_erasure_preview(request: HttpRequest, payload: PartnerErasureLookupIn) -> Any:
    try:
        return services.partner_erasure_preview(email=payload.email)
    except PrivacyError as error:
        return _error(error)


@router.post(
    "/partner/privacy/erasure/",
    auth=admin_only,
    tags=["partner"],
    response={200: PartnerErasureOut, **PARTNER_REFUSALS},
    summary="Erase an owner on a request received by mail (GDPR Art. 17); audited",
)
def partner_erasure(request: HttpRequest, payload: PartnerErasureIn) -> Any:
    try:
        counts = services.partner_erasure(
            partner=_partner(request),
            member=request.auth,  # type: ignore[attr-defined]
            email=payload.email,
            reference=payload.reference,
        )
    except PrivacyError as error:
        return _error(error)
    return {"detail": PARTNER_ERASED, "counts": counts}

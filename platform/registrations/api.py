"""Scan intake, lock and device data of the registration flow."""

from __future__ import annotations

from typing import Any

from django.core.files.storage import default_storage
from django.http import FileResponse, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Router, Schema, Status
from pydantic import Field

from accounts.tokens import PartnerAccessToken, partner_auth
from common.client import client_ip
from common.downloads import download_answer
from common.errors import FieldError
from common.partner_config import PartnerConfig
from common.text import CleanText, form_text_check
from registrations import errors, files, schemas, services
from registrations.errors import ScanRejected
from registrations.models import BevRegistration
from tenants.middleware import request_partner
from tenants.quota_years import allowed_registration_years, year_closed_message

router = Router(tags=["registrations"])

YEARS_INVALID = "Bitte wählen Sie ein angebotenes Quotenjahr."
FILE_MISSING = "Bitte laden Sie ein Bild oder PDF Ihres Fahrzeugscheins hoch."


def _login_session(request: HttpRequest) -> str:
    """The login this access token belongs to: its session start survives token refreshes,
    so a refusal before a silent refresh still counts; the token id where it is missing."""
    raw = request.headers.get("Authorization", "").partition(" ")[2]
    token = PartnerAccessToken(raw)  # partner_auth validated this very header
    return str(token.get("session_start") or token.get("jti"))


@router.get("/system_constraints/", auth=None, response=schemas.SystemConstraintsOut)
def system_constraints(request: HttpRequest) -> dict[str, Any]:
    limits = services.scan_limits()
    return {
        "bev_registration": {
            "zlb_scan_constraints": {"min_size": limits.min_size, "max_pixels": limits.max_pixels}
        }
    }


def _years(raw: str, config: PartnerConfig, source: str) -> list[int]:
    if source == services.B2B_SOURCE:
        return []
    today = timezone.localdate()
    allowed = allowed_registration_years(config, today)
    try:
        years = sorted({int(part) for part in raw.split(",") if part.strip()})
    except ValueError:
        raise FieldError("registration_years", YEARS_INVALID) from None
    if not years:
        raise FieldError("registration_years", YEARS_INVALID)
    closed = [year for year in years if year not in allowed]
    if closed:
        # A year the calendar or the partner does not take today: the message names the next open one.
        raise FieldError("registration_years", year_closed_message(closed[0], today, config))
    return years


@router.post(
    "/bev_registrations/",
    auth=partner_auth,
    response={201: list[schemas.RegistrationCreatedOut], 400: dict, 413: dict, 429: dict, 503: dict},
    openapi_extra=schemas.UPLOAD_BODY,
)
def bev_registration_create(request: HttpRequest) -> Any:
    partner = request_partner(request)
    assert partner is not None
    owner = request.auth  # type: ignore[attr-defined]
    try:
        services.upload_budget_take(partner=partner, owner_id=owner.pk, client_ip=client_ip(request))
    except services.UploadThrottled as throttled:
        response = JsonResponse(
            {"detail": errors.UPLOAD_THROTTLED_MESSAGE, "error_code": errors.UPLOAD_THROTTLED}, status=429
        )
        response["Retry-After"] = str(throttled.retry_after)
        return response
    limits = services.scan_limits()
    # Refused before the body is read: nothing of an oversized upload is parsed or stored.
    declared = int(request.META.get("CONTENT_LENGTH") or 0)
    if declared > limits.max_bytes + 64 * 1024:
        return Status(
            413,
            {"zlb_scan": {"error_code": services.FILE_TOO_LARGE, "details": {"max_bytes": limits.max_bytes}}},
        )
    form_text_check(request.POST, ("partner", "source", "registration_years", "skip_classifier"))
    if request.POST.get("partner", "").strip().lower() != partner.subdomain:
        raise FieldError("partner", "Dieser Partner passt nicht zu dieser Website.")
    upload = request.FILES.get("zlb_scan")
    if upload is None:
        raise FieldError("zlb_scan", FILE_MISSING)
    if upload.size is not None and upload.size > limits.max_bytes:
        return Status(
            413,
            {"zlb_scan": {"error_code": services.FILE_TOO_LARGE, "details": {"max_bytes": limits.max_bytes}}},
        )
    source = (
        services.B2B_SOURCE
        if request.POST.get("source") == services.B2B_SOURCE
        else BevRegistration.Source.B2C
    )
    config = PartnerConfig.model_validate(partner.config)
    years = _years(request.POST.get("registration_years", ""), config, source)
    skip = request.POST.get("skip_classifier", "").strip().lower() == "true"
    try:
        registration = services.registration_create(
            partner=partner,
            owner=owner,
            data=upload.read(),
            source=source,
            registration_years=years,
            skip_classifier=skip,
            login=_login_session(request),
            background=False,
        )
    except services.OcrBusy as busy:
        # The document check's pool is full (registrations.ocr_pool): the upload is not kept;
        # the client sends it again after Retry-After.
        response = JsonResponse(
            {"detail": errors.CHECK_BUSY_MESSAGE, "error_code": errors.CHECK_BUSY}, status=503
        )
        response["Retry-After"] = str(busy.retry_after)
        return response
    except ScanRejected as rejected:
        return Status(400, {"zlb_scan": {"error_code": rejected.code, "details": rejected.details}})
    return Status(
        201, [{"id": registration.pk, "sequence": registration.sequence, "uuid": str(registration.uuid)}]
    )


@router.post(
    "/bev_registrations/{registration_id}/lock/",
    auth=partner_auth,
    response={200: schemas.RegistrationLockedOut, 404: dict},
)
def bev_registration_lock(request: HttpRequest, registration_id: int, update_related: bool = False) -> Any:
    registration = get_object_or_404(BevRegistration, pk=registration_id, owner=request.auth)  # type: ignore[attr-defined]
    registration = services.registration_lock(registration=registration)
    locked_at = registration.locked_at or timezone.now()
    return {"id": registration.pk, "sequence": registration.sequence, "locked_at": locked_at.isoformat()}


@router.get(
    "/bev_registrations/images/{token}/",
    auth=None,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The redacted scan or its small version", "image/jpeg"),
)
def scan_image(request: HttpRequest, token: str) -> Any:
    """The redacted display copy or its small version, for the URL the owner's list handed out."""
    partner = request_partner(request)
    found = files.scan_token_read(partner=partner, token=token) if partner else None
    if found is None:
        return Status(404, {"detail": "Not found."})
    registration_id, kind, owner_id = found
    registration = BevRegistration.objects.filter(pk=registration_id, owner_id=owner_id).first()
    if registration is None:
        return Status(404, {"detail": "Not found."})
    # Only the redacted copy is ever served; the original goes to the authority alone. A row
    # from before the redaction (empty display_scan) shows nothing until `manage.py redact_scans`.
    if not registration.display_scan:
        return Status(404, {"detail": "Not found."})
    path = registration.display_scan if kind == "scan" else registration.resized_image
    try:
        handle = default_storage.open(path, "rb")
    except FileNotFoundError:
        return Status(404, {"detail": "Not found."})
    response = FileResponse(handle, content_type="image/jpeg")
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


class DeviceInfoIn(Schema):
    registration: int
    device_type: CleanText = Field(pattern="^(mobile|desktop)$")
    device_name: CleanText = Field(default="", max_length=200)
    browser_version: CleanText = Field(default="", max_length=200)
    os_name: CleanText = Field(default="", max_length=100)
    os_version: CleanText = Field(default="", max_length=100)
    full_user_agent_string: CleanText = Field(default="", max_length=1000)


@router.post(
    "/fe_user_agent_data/", auth=partner_auth, response={201: schemas.DeviceInfoCreatedOut, 404: dict}
)
def device_info_create(request: HttpRequest, payload: DeviceInfoIn) -> Any:
    registration = get_object_or_404(BevRegistration, pk=payload.registration, owner=request.auth)  # type: ignore[attr-defined]
    info = services.device_info_create(registration=registration, data=payload.dict(exclude={"registration"}))
    return Status(201, {"id": info.pk})

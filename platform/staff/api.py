"""The partner area's sign-in, staff and audit calls under /api/partner/ (docs/partner-api.md).

Sign-in in two steps, as in the admin (staff.views): the password step only remembers who
passed it, in a fresh session, for a few minutes; the user is logged in (Django's session in
the partner's schema) once a TOTP or backup code confirmed it (django-otp's otp_login)."""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth import login as auth_login
from django.contrib.auth import logout as auth_logout
from django.http import FileResponse, HttpRequest
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django_otp import login as otp_login
from django_otp.models import Device
from ninja import Query, Router, Status

from accounts.models import User
from common.client import client_ip
from common.downloads import download_answer
from common.i18n import request_language
from common.schemas import DetailOut
from common.tables import XLSX_CONTENT_TYPE, Column, csv_file, xlsx_file
from staff import selectors, services
from staff.audit import audit_record
from staff.auth import bearer_refuse, csrf_require, partner_require, staff_auth, staff_role
from staff.errors import (
    CODE_THROTTLED,
    INVALID_DATE,
    INVITE_INVALID,
    LOGIN_EXPIRED,
    NOT_FOUND,
    WRONG_CODE,
    StaffError,
)
from staff.models import AuditEntry, StaffInvite, StaffMember
from staff.schemas import (
    AuditFilters,
    AuditPageOut,
    EnrolledOut,
    InviteInfoOut,
    InviteOut,
    LoginIn,
    MemberOut,
    MeOut,
    MePatchIn,
    PasswordIn,
    StaffInviteIn,
    StaffListOut,
    StaffPatchIn,
    StepOut,
    TokenIn,
    WaitOut,
)
from staff.sessions import staff_session_start
from tenants.middleware import request_partner
from tenants.models import Partner

router = Router(tags=["partner"])

PENDING = "partner_login_pending"
BACKEND = "django.contrib.auth.backends.ModelBackend"
admin_only = staff_role(StaffMember.Role.PARTNER_ADMIN)

REFUSALS: dict[int | str, Any] = {401: DetailOut, 403: DetailOut, 404: DetailOut}


def _open(request: HttpRequest) -> Partner:
    """The checks of the calls before a session exists: no bearer token, a partner's host,
    CSRF on unsafe methods (a login CSRF would sign a victim in as the attacker)."""
    bearer_refuse(request)
    partner_require(request)
    csrf_require(request)
    partner = request_partner(request)
    assert partner is not None
    return partner


def _me(member: StaffMember) -> dict[str, Any]:
    return {
        "id": member.pk,
        "email": member.user.email,
        "name": member.name,
        "role": member.role,
        "language": member.language,
        "digest_enabled": member.digest_enabled,
    }


def _pending_set(request: HttpRequest, user: User) -> None:
    # Whoever was signed in here is signed out; a new session id for the step (no fixation).
    auth_logout(request)
    request.session.cycle_key()
    request.session[PENDING] = {"user": user.pk, "at": time.time()}


def _pending_user(request: HttpRequest) -> User:
    pending = request.session.get(PENDING)
    if (
        isinstance(pending, dict)
        and time.time() - float(pending.get("at", 0)) <= settings.ADMIN_LOGIN_PENDING_SECONDS
    ):
        user = User.objects.filter(
            pk=int(pending.get("user") or 0), is_active=True, staff_member__is_active=True
        ).first()
        if user is not None:
            return user
    raise StaffError(LOGIN_EXPIRED)


def _step(request: HttpRequest, partner: Partner, user: User) -> dict[str, Any]:
    if services.staff_has_device(user):
        return {"step": "otp", "enrolment": None}
    issuer = services.staff_issuer(partner.name)
    enrolment = services.enrolment_for(user=user, issuer=issuer)
    return {
        "step": "enrol",
        "enrolment": {
            "qr_svg": enrolment.qr_data_url,
            "secret": enrolment.secret,
            "otpauth_uri": services.enrolment_otpauth_uri(enrolment, issuer),
        },
    }


def _finish(request: HttpRequest, user: User, device: Device) -> StaffMember:
    request.session.pop(PENDING, None)
    auth_login(request, user, backend=BACKEND)  # cycles the session and the CSRF token
    otp_login(request, device)
    staff_session_start(request, user)
    return StaffMember.objects.select_related("user").get(user=user)


# --- Auth -------------------------------------------------------------------------------------


@router.get("/auth/csrf/", auth=None, response={204: None, 401: DetailOut, 404: DetailOut})
def partner_csrf(request: HttpRequest) -> Any:
    """Sets the `csrftoken` cookie; its value goes into `X-CSRFToken` on every unsafe call."""
    bearer_refuse(request)
    partner_require(request)
    get_token(request)
    return Status(204, None)


@router.post(
    "/auth/login/",
    auth=None,
    response={200: StepOut, 400: DetailOut, 401: DetailOut, 403: DetailOut, 404: DetailOut, 429: WaitOut},
)
def partner_login(request: HttpRequest, payload: LoginIn) -> Any:
    """Username (or e-mail) and password; then the code step, or on the first login the
    authenticator's enrolment."""
    partner = _open(request)
    user = services.staff_login_password(
        username=payload.username, password=payload.password, client_ip=client_ip(request)
    )
    _pending_set(request, user)
    return _step(request, partner, user)


@router.post(
    "/auth/otp/",
    auth=None,
    response={200: MeOut, 400: dict[str, Any], 401: DetailOut, 403: DetailOut, 404: DetailOut, 429: WaitOut},
)
def partner_otp(request: HttpRequest, payload: TokenIn) -> Any:
    """A code of the authenticator app or one backup code (each used once)."""
    _open(request)
    user = _pending_user(request)
    if not services.staff_has_device(user):
        raise StaffError(LOGIN_EXPIRED)
    check = services.staff_code_verify(user=user, token=payload.token)
    if check.device is None:
        if check.wait:
            raise StaffError(CODE_THROTTLED, status=429, wait=check.wait)
        raise StaffError(WRONG_CODE, field="token")
    return _me(_finish(request, user, check.device))


@router.post(
    "/auth/enrol/",
    auth=None,
    response={
        200: EnrolledOut,
        400: dict[str, Any],
        401: DetailOut,
        403: DetailOut,
        404: DetailOut,
        429: WaitOut,
    },
)
def partner_enrol(request: HttpRequest, payload: TokenIn) -> Any:
    """The first code of the new authenticator confirms it; the backup codes are shown once."""
    _open(request)
    user = _pending_user(request)
    if services.staff_has_device(user):
        raise StaffError(LOGIN_EXPIRED)
    check = services.totp_enrolment_confirm(user=user, token=payload.token)
    if check.device is None:
        if check.wait:
            raise StaffError(CODE_THROTTLED, status=429, wait=check.wait)
        raise StaffError(WRONG_CODE, field="token")
    member = _finish(request, user, check.device)
    return {"backup_codes": services.backup_codes(user), "me": _me(member)}


@router.post("/auth/logout/", auth=None, response={204: None, 401: DetailOut, 403: DetailOut, 404: DetailOut})
def partner_logout(request: HttpRequest) -> Any:
    _open(request)
    auth_logout(request)
    return Status(204, None)


@router.get("/auth/invite/{key}/", auth=None, response={200: InviteInfoOut, 401: DetailOut, 404: DetailOut})
def partner_invite_show(request: HttpRequest, key: str) -> Any:
    partner = _open(request)
    invite = services.staff_invite_open(key=key)
    if invite is None:
        raise StaffError(INVITE_INVALID, status=404)
    return {"email": invite.email, "partner_name": partner.name}


@router.post(
    "/auth/invite/{key}/",
    auth=None,
    response={200: StepOut, 400: dict[str, Any], 401: DetailOut, 403: DetailOut, 404: DetailOut},
)
def partner_invite_accept(request: HttpRequest, key: str, payload: PasswordIn) -> Any:
    """The invited person's password (Django's validators); then the authenticator's enrolment."""
    partner = _open(request)
    user = services.staff_invite_accept(
        key=key, password=payload.password, language=request_language(request)
    )
    _pending_set(request, user)
    return _step(request, partner, user)


@router.get("/me/", auth=staff_auth, response={200: MeOut, **REFUSALS})
def partner_me(request: HttpRequest) -> Any:
    return _me(request.auth)  # type: ignore[attr-defined]


@router.patch("/me/", auth=staff_auth, response={200: MeOut, **REFUSALS})
def partner_me_update(request: HttpRequest, payload: MePatchIn) -> Any:
    """The member's own settings: the daily mail digest on or off (every role, only oneself)."""
    member = services.staff_digest_set(member=request.auth, enabled=payload.digest_enabled)  # type: ignore[attr-defined]
    return _me(member)


# --- Staff and audit (partner admin) ------------------------------------------------------------


def _iso(moment: datetime.datetime | None) -> str | None:
    return timezone.localtime(moment).isoformat() if moment is not None else None


def _day(value: str | None, field: str) -> datetime.date | None:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise StaffError(INVALID_DATE, field=field) from None


def _member_out(member: StaffMember) -> dict[str, Any]:
    return {
        "id": member.pk,
        "email": member.user.email,
        "name": member.name,
        "role": member.role,
        "is_active": member.is_active,
        "created_at": _iso(member.created_at),
        "last_login": _iso(member.user.last_login),
        "invited_by": member.invited_by_id,
        "has_second_factor": bool(
            getattr(member, "has_second_factor", services.staff_has_device(member.user))
        ),
    }


def _invite_out(invite: StaffInvite) -> dict[str, Any]:
    return {
        "id": invite.pk,
        "email": invite.email,
        "name": invite.name,
        "role": invite.role,
        "created_at": _iso(invite.created_at),
        "expires_at": _iso(invite.expires_at),
        "invited_by": invite.invited_by_id,
    }


@router.get("/staff/", auth=admin_only, response={200: StaffListOut, **REFUSALS})
def partner_staff_list(request: HttpRequest) -> Any:
    members = [_member_out(member) for member in selectors.staff_member_list()]
    invites = [_invite_out(invite) for invite in selectors.staff_invite_open_list()]
    return {"count": len(members), "results": members, "invites": invites}


@router.post("/staff/", auth=admin_only, response={201: InviteOut, 400: dict[str, Any], **REFUSALS})
def partner_staff_invite(request: HttpRequest, payload: StaffInviteIn) -> Any:
    """Mails a set-password link valid 72 hours."""
    partner = request_partner(request)
    assert partner is not None
    invite = services.staff_invite(
        partner=partner,
        email=payload.email,
        name=payload.name,
        role=payload.role,
        invited_by=request.auth,  # type: ignore[attr-defined]
        request=request,
    )
    return Status(201, _invite_out(invite))


@router.delete("/staff/invites/{invite_id}/", auth=admin_only, response={204: None, **REFUSALS})
def partner_staff_invite_revoke(request: HttpRequest, invite_id: int) -> Any:
    """Withdraws an open invite: its link opens nothing from now on."""
    services.staff_invite_revoke(invite_id=invite_id, actor=request.auth)  # type: ignore[attr-defined]
    return Status(204, None)


@router.patch(
    "/staff/{member_id}/", auth=admin_only, response={200: MemberOut, 400: dict[str, Any], **REFUSALS}
)
def partner_staff_update(request: HttpRequest, member_id: int, payload: StaffPatchIn) -> Any:
    """A new role, or `{"is_active": false}`; never yourself, never the last active partner admin."""
    member = get_object_or_404(StaffMember, pk=member_id)
    member = services.staff_member_update(
        member=member,
        actor=request.auth,  # type: ignore[attr-defined]
        role=payload.role,
        is_active=payload.is_active,
    )
    return _member_out(member)


def _audit_out(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "actor": entry.actor_label,
        "actor_id": entry.actor_id,
        "action": entry.action,
        "object_type": entry.object_type,
        "object_id": entry.object_id,
        "before": entry.before,
        "after": entry.after,
        "created_at": _iso(entry.created_at),
    }


def _audit_entries(filters: AuditFilters) -> Any:
    return selectors.audit_entry_list(
        actor=filters.actor,
        action=filters.action,
        object_type=filters.object_type,
        object_id=filters.object_id,
        created_from=_day(filters.created_from, "created_from"),
        created_to=_day(filters.created_to, "created_to"),
    )


@router.get("/audit/", auth=admin_only, response={200: AuditPageOut, **REFUSALS})
def partner_audit(request: HttpRequest, filters: Query[AuditFilters]) -> Any:
    entries = _audit_entries(filters)
    start = (filters.page - 1) * filters.page_size
    return {
        "count": entries.count(),
        "page": filters.page,
        "page_size": filters.page_size,
        "results": [_audit_out(entry) for entry in entries[start : start + filters.page_size]],
    }


# The audit log's export (issue 49): one column list for the CSV and the XLSX (common.tables).
EXPORT_RESPONSES = download_answer("CSV (UTF-8 with BOM, `;`) or XLSX", "text/csv", XLSX_CONTENT_TYPE)
AUDIT_COLUMNS = [
    Column("Zeitpunkt", "datetime"), Column("Wer"), Column("Benutzer-ID", "int"), Column("Aktion"),
    Column("Objektart"), Column("Objekt-ID"), Column("Vorher"), Column("Nachher"),
]  # fmt: skip


def _json(value: Any) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def audit_export_rows(entries: Any) -> Iterator[list[Any]]:
    for entry in entries.iterator(chunk_size=2000):
        yield [
            entry.created_at, entry.actor_label, entry.actor_id, entry.action, entry.object_type,
            entry.object_id, _json(entry.before), _json(entry.after),
        ]  # fmt: skip


@router.get(
    "/audit/export.{kind}", auth=admin_only, response={200: None, **REFUSALS}, openapi_extra=EXPORT_RESPONSES
)
def partner_audit_export(request: HttpRequest, kind: str, filters: Query[AuditFilters]) -> Any:
    """The filtered log, oldest first, as CSV or XLSX (`kind`); the export itself is logged."""
    if kind not in ("csv", "xlsx"):
        raise StaffError(NOT_FOUND, status=404)
    entries = _audit_entries(filters).order_by("created_at", "id")
    audit_record(
        actor=request.auth,  # type: ignore[attr-defined]
        action="audit.export",
        object_type="staff.auditentry",
        after={
            "format": kind,
            **{
                k: v
                for k, v in filters.dict().items()
                if k not in ("page", "page_size") and v not in (None, "")
            },
        },
    )
    if kind == "csv":
        target, content_type = csv_file(AUDIT_COLUMNS, audit_export_rows(entries)), "text/csv; charset=utf-8"
    else:
        target, content_type = (
            xlsx_file(AUDIT_COLUMNS, audit_export_rows(entries), title="Protokoll"),
            XLSX_CONTENT_TYPE,
        )
    response = FileResponse(target, content_type=content_type)
    response["Content-Disposition"] = (
        f'attachment; filename="protokoll-{timezone.localdate().isoformat()}.{kind}"'
    )
    response["Cache-Control"] = "private, no-store"
    return response

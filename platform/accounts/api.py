"""Registration-flow login (code or link) and token refresh."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import HttpError

from accounts import services
from accounts.schemas import (
    CodeVerifyIn,
    ErrorOut,
    LinkVerifyIn,
    LoginSendIn,
    ProfileOut,
    RefreshIn,
    SentOut,
    TokensOut,
)
from accounts.tokens import partner_auth
from config.errors import FieldError
from tenants.middleware import request_partner
from tenants.models import Partner

router = Router(tags=["auth"])

PARTNER_MISMATCH = "Dieser Partner passt nicht zu dieser Website."


def _partner(request: HttpRequest) -> Partner:
    partner = request_partner(request)
    if partner is None:
        raise HttpError(404, "Partner not found.")
    return partner


def _client_ip(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR", ""))


def _check_partner_field(partner: Partner, payload: LoginSendIn) -> None:
    if payload.partner.strip().lower() != partner.subdomain:
        raise FieldError("partner", PARTNER_MISMATCH)


@router.post("/auth/registration/otp/", auth=None, response={200: SentOut, 400: Any, 429: ErrorOut})
def registration_otp_send(request: HttpRequest, payload: LoginSendIn) -> SentOut:
    partner = _partner(request)
    _check_partner_field(partner, payload)
    services.login_code_send(partner=partner, email=payload.email, client_ip=_client_ip(request))
    return SentOut(email=payload.email)


@router.post("/auth/registration/otp/verify/", auth=None, response={200: TokensOut, 400: ErrorOut})
def registration_otp_verify(request: HttpRequest, payload: CodeVerifyIn) -> dict[str, str]:
    partner = _partner(request)
    return services.login_code_verify(partner=partner, email=payload.email, code=payload.otp_code.strip())


@router.post("/auth/registration/email/", auth=None, response={200: SentOut, 400: Any, 429: ErrorOut})
def registration_link_send(request: HttpRequest, payload: LoginSendIn) -> SentOut:
    partner = _partner(request)
    _check_partner_field(partner, payload)
    try:
        services.verify_url_build(partner=partner, verify_email_url=payload.verify_email_url, key="probe")
    except ValueError as exc:
        raise FieldError("verify_email_url", str(exc)) from None
    services.login_link_send(
        partner=partner,
        email=payload.email,
        verify_email_url=payload.verify_email_url,
        client_ip=_client_ip(request),
    )
    return SentOut(email=payload.email)


@router.post("/auth/registration/email/verify/", auth=None, response={200: TokensOut, 400: ErrorOut})
def registration_link_verify(request: HttpRequest, payload: LinkVerifyIn) -> dict[str, str]:
    return services.login_link_verify(partner=_partner(request), key=payload.key)


@router.post("/auth/user/token/refresh/", auth=None, response={200: TokensOut, 401: ErrorOut})
def token_refresh(request: HttpRequest, payload: RefreshIn) -> dict[str, str]:
    return services.token_rotate(partner=_partner(request), refresh=payload.refresh)


NO_PORTAL_ACCOUNT = "Für diese E-Mail-Adresse gibt es noch kein Konto im Kundenportal."


@router.get(
    "/auth/user/profile/end-user-portal/",
    auth=partner_auth,
    response={200: list[ProfileOut], 401: ErrorOut, 403: ErrorOut},
)
def profile(request: HttpRequest) -> Any:
    partner = _partner(request)
    user = request.auth  # type: ignore[attr-defined]
    if not user.has_usable_password():
        # A verified e-mail without a portal account: the portal turns this into signup.
        return Status(403, {"detail": NO_PORTAL_ACCOUNT})
    return [
        {
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "username": user.username,
            "partner": {
                "subdomain": partner.subdomain,
                "name": partner.name,
                "is_eon_partner": partner.kind == "utility",
            },
        }
    ]


@router.post("/auth/user/logout/", auth=None, response={200: dict, 401: ErrorOut})
def logout(request: HttpRequest, payload: RefreshIn) -> dict[str, str]:
    services.token_revoke(partner=_partner(request), refresh=payload.refresh)
    return {"detail": "Abgemeldet."}

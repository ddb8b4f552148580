"""Registration-flow login (code or link) and token refresh."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import Router, Status
from ninja.errors import HttpError

from accounts import bot_check, services
from accounts.errors import NO_PORTAL_ACCOUNT, AccountError
from accounts.models import User
from accounts.passwords import password_errors
from accounts.schemas import (
    AccountCreatedOut,
    AccountCreateIn,
    BotCheckChallengeOut,
    CodeVerifyIn,
    ErrorOut,
    LinkVerifyIn,
    LoginSendIn,
    OtpResendIn,
    OtpVerifyIn,
    PortalLoginIn,
    PortalLoginOut,
    ProfileOut,
    RefreshIn,
    ResetCompleteIn,
    ResetRequestIn,
    ResetVerifyOut,
    SentOut,
    SignupSendIn,
    SignupVerifyOut,
    TokensOut,
    TokensWrappedOut,
)
from accounts.tokens import partner_auth, tokens_issue
from common.client import client_ip as _client_ip
from common.errors import FieldError
from common.i18n import request_language
from common.schemas import DetailOut
from tenants.middleware import partner_site_url, request_partner
from tenants.models import Partner

router = Router(tags=["auth"])

PARTNER_MISMATCH = "Dieser Partner passt nicht zu dieser Website."


def _partner(request: HttpRequest) -> Partner:
    partner = request_partner(request)
    if partner is None:
        raise HttpError(404, "Partner not found.")
    return partner


def _check_partner_field(partner: Partner, payload: LoginSendIn) -> None:
    if payload.partner.strip().lower() != partner.subdomain:
        raise FieldError("partner", PARTNER_MISMATCH)


def _check_link_request(partner: Partner, partner_field: str, verify_email_url: str) -> None:
    """A mailed link is for this partner and points at this partner's own site."""
    if partner_field.strip().lower() != partner.subdomain:
        raise FieldError("partner", PARTNER_MISMATCH)
    try:
        services.verify_url_build(partner=partner, verify_email_url=verify_email_url, key="probe")
    except ValueError as exc:
        raise FieldError("verify_email_url", str(exc)) from None


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
    _check_link_request(partner, payload.partner, payload.verify_email_url)
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
        raise AccountError(NO_PORTAL_ACCOUNT, status=403)
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


@router.post("/auth/user/logout/", auth=None, response={200: DetailOut, 401: ErrorOut})
def logout(request: HttpRequest, payload: RefreshIn) -> dict[str, str]:
    services.token_revoke(partner=_partner(request), refresh=payload.refresh)
    return {"detail": "Abgemeldet."}


# --- The customer portal (spec/customer-portal.md section 7) ------------------------------------


@router.get("/auth/bot-check/challenge/", auth=None, response=BotCheckChallengeOut)
def bot_check_challenge(request: HttpRequest, response: HttpResponse) -> dict[str, Any]:
    """The proof-of-work challenge the portal's forms solve before they are sent."""
    response["Cache-Control"] = "no-store"
    return bot_check.bot_check_challenge(partner=_partner(request))


def _bot_check_ok(request: HttpRequest, payload: str) -> bool:
    return bot_check.bot_check_passes(partner=_partner(request), payload=payload)


def _device_cookie(response: HttpResponse, partner: Partner, user: User) -> None:
    response.set_cookie(
        settings.DEVICE_COOKIE_NAME,
        services.device_cookie_value(partner=partner, user=user),
        max_age=settings.DEVICE_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


@router.post("/auth/user/login/", auth=None, response={200: PortalLoginOut, 401: ErrorOut, 429: ErrorOut})
def portal_login(request: HttpRequest, payload: PortalLoginIn) -> Any:
    partner = _partner(request)
    result = services.portal_login(
        partner=partner,
        username=payload.username,
        password=payload.password,
        bot_check_ok=_bot_check_ok(request, payload.recaptcha),
        client_ip=_client_ip(request),
        device=request.COOKIES.get(settings.DEVICE_COOKIE_NAME),
    )
    return {"tokens": result.tokens, "recaptcha_extra_check": result.extra_check, "user_id": result.user_id}


@router.post(
    "/auth/2fa/otp/verify/", auth=None, response={200: TokensWrappedOut, 400: ErrorOut, 429: ErrorOut}
)
def portal_otp_verify(request: HttpRequest, response: HttpResponse, payload: OtpVerifyIn) -> Any:
    partner = _partner(request)
    user, tokens = services.portal_check_verify(
        partner=partner, user_id=payload.user_id, code=payload.otp_code.strip()
    )
    # This browser passed the e-mailed code: the next login from it needs none.
    _device_cookie(response, partner, user)
    return {"tokens": tokens, "user_id": user.pk}


@router.post("/auth/2fa/otp/resend/", auth=None, response={200: DetailOut, 400: ErrorOut, 429: ErrorOut})
def portal_otp_resend(request: HttpRequest, payload: OtpResendIn) -> Any:
    services.portal_check_resend(
        partner=_partner(request), user_id=payload.user_id, client_ip=_client_ip(request)
    )
    return {"detail": _text(request, "otp_resent")}


@router.post(
    "/auth/user/password-reset/verify-email/",
    auth=None,
    response={200: DetailOut, 400: ErrorOut, 429: ErrorOut},
)
def password_reset_request(request: HttpRequest, payload: ResetRequestIn) -> Any:
    partner = _partner(request)
    services.password_reset_request(
        partner=partner,
        email=payload.email,
        site_url=partner_site_url(partner, request),
        client_ip=_client_ip(request),
    )
    return {"detail": _text(request, "reset_sent")}


def _reset_verify(request: HttpRequest, token: str, uidb64: str) -> Any:
    user = services.password_reset_user(partner=_partner(request), token=token, uidb64=uidb64)
    return {"detail": "ok", "email": user.email, "is_user_creation": not user.has_usable_password()}


@router.get(
    "/auth/user/password-reset/verify/{token}/{uidb64}/",
    auth=None,
    response={200: ResetVerifyOut, 400: ErrorOut},
)
def password_reset_verify(request: HttpRequest, token: str, uidb64: str) -> Any:
    return _reset_verify(request, token, uidb64)


@router.get(
    "/auth/user/password-reset/verify{token}/{uidb64}/",
    auth=None,
    response={200: ResetVerifyOut, 400: ErrorOut},
    include_in_schema=False,
)
def password_reset_verify_joined(request: HttpRequest, token: str, uidb64: str) -> Any:
    """The spec's concatenated form of the same call."""
    return _reset_verify(request, token, uidb64)


@router.patch("/auth/user/password-reset/complete/", auth=None, response={200: DetailOut, 400: Any})
def password_reset_complete(request: HttpRequest, payload: ResetCompleteIn) -> Any:
    if not _bot_check_ok(request, payload.recaptcha):
        return Status(400, {"recaptcha": [BOT_CHECK_MESSAGE]})
    errors = password_errors(payload.password, payload.password_again, request_language(request))
    if errors:
        return Status(400, errors)
    services.password_reset_complete(
        partner=_partner(request), token=payload.token, uidb64=payload.uidb64, password=payload.password
    )
    return {"detail": _text(request, "password_reset")}


@router.post(
    "/end_user_portal/email_register/", auth=None, response={200: DetailOut, 400: Any, 429: ErrorOut}
)
def signup_link_send(request: HttpRequest, payload: SignupSendIn) -> Any:
    partner = _partner(request)
    _check_link_request(partner, payload.partner, payload.verify_email_url)
    services.signup_link_send(
        partner=partner,
        email=payload.email,
        verify_email_url=payload.verify_email_url,
        client_ip=_client_ip(request),
    )
    return {"detail": _text(request, "signup_sent")}


@router.post("/end_user_portal/verify_token/", auth=None, response={200: SignupVerifyOut, 400: ErrorOut})
def signup_verify(request: HttpRequest, payload: LinkVerifyIn) -> Any:
    user, tokens = services.signup_key_verify(partner=_partner(request), key=payload.key)
    return {"email_address": user.email, "token": tokens, "is_unknown_user": not user.has_usable_password()}


@router.post(
    "/end_user_portal/create_account/",
    auth=partner_auth,
    response={201: AccountCreatedOut, 400: Any, 401: ErrorOut, 429: ErrorOut},
)
def account_create(request: HttpRequest, response: HttpResponse, payload: AccountCreateIn) -> Any:
    partner = _partner(request)
    if payload.subdomain.strip().lower() != partner.subdomain:
        raise FieldError("subdomain", PARTNER_MISMATCH)
    if not _bot_check_ok(request, payload.recaptcha):
        return Status(400, {"recaptcha": [BOT_CHECK_MESSAGE]})
    errors = password_errors(payload.password, payload.password_again, request_language(request))
    if errors:
        return Status(400, errors)
    user = request.auth  # type: ignore[attr-defined]
    if not services.account_password_allowed(
        partner=partner, user=user, current_password=payload.current_password, client_ip=_client_ip(request)
    ):
        return Status(400, {"current_password": [_text(request, "current_password")]})
    services.account_create(partner=partner, user=user, password=payload.password)
    # The e-mail was just proven: this browser is a known device.
    _device_cookie(response, partner, user)
    # Setting the password revoked every earlier refresh token: this session goes on with new ones.
    tokens = tokens_issue(user=user, partner=partner)
    return Status(201, {"detail": _text(request, "account_created"), "tokens": tokens})


BOT_CHECK_MESSAGE = "Invalid recaptcha"
TEXTS = {
    "de": {
        "otp_resent": "Ein neuer Code wurde gesendet. Bitte prüfen Sie Ihr E-Mail-Postfach.",
        "reset_sent": "Wir haben Ihnen eine E-Mail mit einem Link zum Zurücksetzen gesendet.",
        "password_reset": "Ihr Passwort wurde erfolgreich zurückgesetzt.",
        "signup_sent": "Wir haben einen Anmeldelink für Sie erstellt. Bitte prüfen Sie Ihr E-Mail-Postfach.",
        "account_created": "Ihr Konto wurde angelegt.",
        "current_password": "Dieses Konto hat schon ein Passwort: Bitte geben Sie das aktuelle Passwort richtig ein.",
    },
    "en": {
        "otp_resent": "A new code has been sent. Please check your email",
        "reset_sent": "We have sent you an e-mail with a link to reset your password.",
        "password_reset": "Your password has been successfully reset",
        "signup_sent": "We have created a signup url for you. Please check your email",
        "account_created": "Your account has been created.",
        "current_password": "This account has a password already: please enter the current password correctly.",
    },
}


def _text(request: HttpRequest, key: str) -> str:
    return TEXTS[request_language(request)][key]

"""The admin login in two steps. The password step only remembers who passed it (in the
session, for a few minutes); the user is logged in once a second factor confirmed it, so a
session never holds a staff user without one."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth import login as auth_login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django_otp import login as otp_login
from django_otp.models import Device

from accounts.models import User
from common.client import client_ip
from staff import services
from staff.sessions import staff_session_start
from tenants.middleware import request_partner

if TYPE_CHECKING:
    from staff.sites import StaffAdminSite

PENDING = "staff_login_pending"
THROTTLED = "Zu viele Fehlversuche. Bitte versuchen Sie es in {seconds} Sekunden erneut."
WRONG_CODE = "Dieser Code stimmt nicht (oder wurde schon verwendet)."


class StaffAuthenticationForm(AdminAuthenticationForm):
    """Django's admin login form, refused up front while the throttle asks to wait."""

    def __init__(self, request: HttpRequest, *args: Any, wait: int = 0, **kwargs: Any):
        super().__init__(request, *args, **kwargs)
        self.wait = wait

    def clean(self) -> dict[str, Any]:
        if self.wait:
            raise ValidationError(THROTTLED.format(seconds=self.wait), code="throttled")
        return super().clean()


class CodeForm(forms.Form):
    otp_token = forms.CharField(
        label="Code",
        max_length=20,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "autofocus": True, "inputmode": "text"}
        ),
    )


def _next(request: HttpRequest, site: StaffAdminSite) -> str:
    candidate = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME) or ""
    safe = url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return candidate if candidate and safe else reverse("admin:index", current_app=site.name)


def _step_url(site: StaffAdminSite, name: str, next_url: str) -> str:
    return reverse(f"admin:{name}", current_app=site.name) + "?" + urlencode({REDIRECT_FIELD_NAME: next_url})


def _context(request: HttpRequest, site: StaffAdminSite, **extra: Any) -> dict[str, Any]:
    return {
        **site.each_context(request),
        "subtitle": None,
        "app_path": request.get_full_path(),
        "username": request.user.get_username(),
        REDIRECT_FIELD_NAME: _next(request, site),
        **extra,
    }


@sensitive_post_parameters("password")
@csrf_protect
@never_cache
def login_password(
    request: HttpRequest, site: StaffAdminSite, extra_context: dict[str, Any] | None = None
) -> HttpResponse:
    request.current_app = site.name
    next_url = _next(request, site)
    if request.method == "GET" and site.has_permission(request):
        return HttpResponseRedirect(next_url)
    status = 200
    if request.method == "POST":
        username = str(request.POST.get("username", ""))
        wait = services.admin_login_wait(username=username, client_ip=client_ip(request))
        form = StaffAuthenticationForm(request, data=request.POST, wait=wait)
        if form.is_valid():
            user = form.get_user()
            services.admin_login_succeeded(username=username)
            # A new session id for the step between password and code (no fixation).
            request.session.cycle_key()
            request.session[PENDING] = {"user": user.pk, "backend": user.backend, "at": time.time()}  # type: ignore[attr-defined]
            step = "staff_login_code" if services.staff_has_device(user) else "staff_login_enrol"
            return HttpResponseRedirect(_step_url(site, step, next_url))
        if wait:
            status = 429
        else:
            services.admin_login_failed(username=username, client_ip=client_ip(request))
    else:
        form = StaffAuthenticationForm(request)
    context = _context(request, site, title="Anmelden", form=form, **(extra_context or {}))
    response = TemplateResponse(request, site.login_template or "admin/login.html", context, status=status)
    if status == 429:
        response["Retry-After"] = str(wait)
    return response


def _pending_user(request: HttpRequest) -> User | None:
    pending = request.session.get(PENDING)
    if (
        not isinstance(pending, dict)
        or time.time() - float(pending.get("at", 0)) > settings.ADMIN_LOGIN_PENDING_SECONDS
    ):
        return None
    return User.objects.filter(pk=int(pending.get("user") or 0), is_active=True, is_staff=True).first()


def _finish(request: HttpRequest, site: StaffAdminSite, user: User, device: Device) -> HttpResponse:
    backend = request.session.pop(PENDING)["backend"]
    auth_login(request, user, backend=backend)
    otp_login(request, device)
    staff_session_start(request, user)
    return HttpResponseRedirect(_next(request, site))


def _restart(request: HttpRequest, site: StaffAdminSite) -> HttpResponse:
    request.session.pop(PENDING, None)
    url = reverse("admin:login", current_app=site.name)
    return HttpResponseRedirect(url + "?" + urlencode({REDIRECT_FIELD_NAME: _next(request, site)}))


@csrf_protect
@never_cache
def login_code(request: HttpRequest, site: StaffAdminSite) -> HttpResponse:
    """Second step: a code of the authenticator app, or one of the backup codes."""
    request.current_app = site.name
    user = _pending_user(request)
    if user is None:
        return _restart(request, site)
    if not services.staff_has_device(user):
        return HttpResponseRedirect(_step_url(site, "staff_login_enrol", _next(request, site)))
    form = CodeForm(request.POST if request.method == "POST" else None)
    status = 200
    if form.is_valid():
        check = services.staff_code_verify(user=user, token=form.cleaned_data["otp_token"])
        if check.device is not None:
            return _finish(request, site, user, check.device)
        if check.wait:
            form.add_error(None, THROTTLED.format(seconds=check.wait))
            status = 429
        else:
            form.add_error("otp_token", WRONG_CODE)
    context = _context(request, site, title="Bestätigungscode", form=form, staff_user=user)
    return TemplateResponse(request, "staff/login_code.html", context, status=status)


@csrf_protect
@never_cache
def login_enrol(request: HttpRequest, site: StaffAdminSite) -> HttpResponse:
    """First login: the authenticator app by QR code, the backup codes once, then one code."""
    request.current_app = site.name
    user = _pending_user(request)
    if user is None:
        return _restart(request, site)
    if services.staff_has_device(user):
        return HttpResponseRedirect(_step_url(site, "staff_login_code", _next(request, site)))
    partner = request_partner(request)
    issuer = f"THG-Quote {partner.name}" if partner is not None else "THG-Quote Plattform"
    form = CodeForm(request.POST if request.method == "POST" else None)
    status = 200
    if form.is_valid():
        check = services.totp_enrolment_confirm(user=user, token=form.cleaned_data["otp_token"])
        if check.device is not None:
            messages.success(request, "Die Zwei-Faktor-Anmeldung ist eingerichtet.")
            return _finish(request, site, user, check.device)
        if check.wait:
            form.add_error(None, THROTTLED.format(seconds=check.wait))
            status = 429
        else:
            form.add_error("otp_token", WRONG_CODE)
    enrolment = services.totp_enrolment_pending(user=user, issuer=issuer)
    if enrolment is None:
        enrolment = services.totp_enrolment_start(user=user, issuer=issuer)
    context = _context(
        request,
        site,
        title="Zwei-Faktor-Anmeldung einrichten",
        form=form,
        enrolment=enrolment,
        staff_user=user,
    )
    return TemplateResponse(request, "staff/login_enrol.html", context, status=status)

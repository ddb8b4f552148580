"""The admin site of every host: staff only, with a password and a verified second factor."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path

from staff import views
from staff.admin_audit import AuditedAdminMixin
from staff.models import StaffMember
from tenants.middleware import request_partner

# Registered by the libraries, used by no operator, and English throughout (issue 49): the login
# tokens of ninja_jwt's blacklist (signing out revokes them) and django_otp's backup-code devices
# (made with the authenticator at enrolment, staff.services).
NOT_FOR_STAFF = frozenset(
    {"token_blacklist.OutstandingToken", "token_blacklist.BlacklistedToken", "otp_static.StaticDevice"}
)


# The libraries' apps and models the operators keep, by German names in the admin's index and
# side bar (their own names are English and untranslated).
GERMAN_NAMES: dict[str, tuple[str, dict[str, str]]] = {
    "otp_totp": ("Zweiter Faktor", {"TOTPDevice": "Authenticator-Apps"}),
}


class StaffAdminSite(admin.AdminSite):
    """Login in two steps (staff.views): the password, then a TOTP or backup code; on the first
    login the authenticator is enrolled by QR code. Every admin page needs both steps done."""

    def has_permission(self, request: HttpRequest) -> bool:
        user: Any = request.user
        # is_verified comes from django_otp's OTPMiddleware: a device confirmed this session.
        verified = getattr(user, "is_verified", None)
        if not (user.is_active and user.is_staff and verified is not None and verified()):
            return False
        # A member deactivated in the partner area loses the admin too (partner schemas only:
        # the public schema has no staff tables).
        if request_partner(request) is not None:
            return not StaffMember.objects.filter(user=user, is_active=False).exists()
        return True

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        """Every ModelAdmin writes the partner's audit log on a partner's host (staff.admin_audit).
        The libraries' plumbing that no operator edits by hand stays out (NOT_FOR_STAFF)."""
        models: list[Any] = (
            [model_or_iterable] if isinstance(model_or_iterable, type) else list(model_or_iterable)
        )
        model_or_iterable = [model for model in models if model._meta.label not in NOT_FOR_STAFF]
        if not model_or_iterable:
            return
        base = admin_class or admin.ModelAdmin
        if not issubclass(base, AuditedAdminMixin):
            base = type(f"Audited{base.__name__}", (AuditedAdminMixin, base), {"__module__": base.__module__})
        super().register(model_or_iterable, base, **options)

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[Any]:
        apps = super().get_app_list(request, app_label)
        for app in apps:
            if app["app_label"] in GERMAN_NAMES:
                name, models = GERMAN_NAMES[app["app_label"]]
                app["name"] = name
                for model in app["models"]:
                    model["name"] = models.get(model["object_name"], model["name"])
        return apps

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        return views.login_password(request, self, extra_context)

    def get_urls(self) -> list[URLResolver | URLPattern]:
        steps: list[URLResolver | URLPattern] = [
            path("login/code/", self._step(views.login_code), name="staff_login_code"),
            path("login/enrol/", self._step(views.login_enrol), name="staff_login_enrol"),
        ]
        return steps + super().get_urls()

    def _step(self, view: Any) -> Any:
        def step(request: HttpRequest) -> HttpResponse:
            return view(request, self)

        return step

"""The platform admin (public host only, staff login with the second factor): UBA packages per
legislation year (build, download, import the answer, rebuild) and the double-registration
registry. Partners never see any of this: nothing here is registered on a partner's host."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.files.storage import default_storage
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.models import User
from authority import registry, services
from authority.models import (
    AuthorityAuditEntry,
    AuthoritySubmission,
    AuthoritySubmissionItem,
    DoubleRegistration,
    VehicleClaim,
)
from tenants.middleware import request_partner
from tenants.models import Partner
from tenants.quota_years import QuotaYear, calendar_forget

ANSWER_FIELD = "answer"


class PublicHostOnly:
    """The platform's own models: on the public host only, read-only unless said otherwise."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and super().has_module_permission(request)  # type: ignore[misc]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request_partner(request) is None and super().has_view_permission(request, obj)  # type: ignore[misc]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


class SubmissionCreateForm(forms.Form):
    legislation_year = forms.IntegerField(label="Verpflichtungsjahr", min_value=2022, max_value=2100)
    limit = forms.IntegerField(
        label="Höchstens (leer: alle bereiten Anträge)", required=False, min_value=1, max_value=100_000
    )
    # Checked per row of the candidates table (all of them at first); building needs one.
    partners = forms.TypedMultipleChoiceField(coerce=int, required=False)

    def __init__(self, *args: Any, partner_choices: list[tuple[int, str]] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["partners"].choices = partner_choices or []  # type: ignore[attr-defined]


class AnswerForm(forms.Form):
    answer = forms.FileField(
        label="Antwort des Umweltbundesamts (Excel .xlsx oder CSV mit den Spalten FIN und Ergebnis)"
    )


class ItemInline(admin.TabularInline):
    model = AuthoritySubmissionItem
    extra = 0
    can_delete = False
    fields = readonly_fields = ("application_number", "partner", "result", "reason")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AuthoritySubmission)
class AuthoritySubmissionAdmin(PublicHostOnly, admin.ModelAdmin):  # type: ignore[misc]
    list_display = [
        "number",
        "legislation_year",
        "partner",
        "status",
        "count",
        "left_out_count",
        "created_by",
        "created_at",
        "download",
    ]
    list_filter = ["legislation_year", "status", "partner"]
    fields = readonly_fields = (
        "number",
        "legislation_year",
        "partner",
        "status",
        "count",
        "created_by",
        "created_at",
        "error",
        "left_out_list",
        "answer_file",
        "tools",
    )
    inlines = [ItemInline]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return request_partner(request) is None and request.user.has_perm("authority.add_authoritysubmission")

    def _may_change(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and request.user.has_perm(
            "authority.change_authoritysubmission"
        )

    @admin.display(description="Nr.", ordering="pk")
    def number(self, obj: AuthoritySubmission) -> int:
        return obj.pk

    @admin.display(description="Nicht im Paket")
    def left_out_count(self, obj: AuthoritySubmission) -> int:
        return len(obj.left_out or [])

    @admin.display(description="Nicht im Paket (mit Grund)")
    def left_out_list(self, obj: AuthoritySubmission) -> str:
        if not obj.left_out:
            return "–"
        return format_html_join(
            "",
            "<div>{}: {}</div>",
            ((entry.get("application_number", ""), entry.get("reason", "")) for entry in obj.left_out),
        )

    @admin.display(description="Paket")
    def download(self, obj: AuthoritySubmission) -> str:
        if not obj.file:
            return "–"
        url = reverse("admin:authority_authoritysubmission_download", args=[obj.pk])
        return format_html('<a href="{}">ZIP herunterladen</a>', url)

    @admin.display(description="Aktionen")
    def tools(self, obj: AuthoritySubmission) -> str:
        answer = reverse("admin:authority_authoritysubmission_answer", args=[obj.pk])
        rebuild = reverse("admin:authority_authoritysubmission_rebuild", args=[obj.pk])
        return format_html(
            '{} · <a href="{}">Antwort einspielen</a> · <a href="{}">Paket neu erstellen</a>',
            self.download(obj),
            answer,
            rebuild,
        )

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        return [
            path(
                "<int:pk>/download/", view(self.download_view), name="authority_authoritysubmission_download"
            ),
            path("<int:pk>/answer/", view(self.answer_view), name="authority_authoritysubmission_answer"),
            path("<int:pk>/rebuild/", view(self.rebuild_view), name="authority_authoritysubmission_rebuild"),
            *super().get_urls(),
        ]

    def _context(self, request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
        return {**self.admin_site.each_context(request), "title": title, "opts": self.model._meta, **extra}

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        """Choose a year, see what is ready per partner, then build the package."""
        if not self.has_add_permission(request):
            raise Http404
        data = (
            request.POST
            if request.method == "POST"
            else request.GET
            if "legislation_year" in request.GET
            else None
        )
        partners = Partner.objects.exclude(schema_name=get_public_schema_name()).order_by("pk")
        choices = [(partner.pk, partner.subdomain) for partner in partners]
        form = SubmissionCreateForm(
            data, initial={"legislation_year": timezone.localdate().year}, partner_choices=choices
        )
        candidates = None
        picked: set[int] = set()
        if data is not None and form.is_valid():
            year = form.cleaned_data["legislation_year"]
            picked = set(form.cleaned_data["partners"])
            if request.method == "POST" and "build" in request.POST:
                try:
                    if not picked:
                        raise services.AuthorityError(services.PARTNERS_MISSING)
                    submissions = services.submission_create(
                        legislation_year=year,
                        actor=_user(request),
                        limit=form.cleaned_data["limit"],
                        partner_ids=picked,
                    )
                except services.AuthorityError as refused:
                    self.message_user(request, refused.message, messages.ERROR)
                else:
                    numbers = ", ".join(f"Nr. {each.pk} ({each.partner})" for each in submissions)
                    self.message_user(
                        request,
                        f"UBA-Einreichung {numbers}: das Paket wird erstellt; erst danach gehen die Anträge "
                        "auf „An UBA übermittelt“.",
                    )
                    if len(submissions) == 1:
                        return HttpResponseRedirect(
                            reverse("admin:authority_authoritysubmission_change", args=[submissions[0].pk])
                        )
                    return HttpResponseRedirect(
                        reverse("admin:authority_authoritysubmission_changelist")
                        + f"?legislation_year={year}"
                    )
            candidates = services.submission_candidates(legislation_year=year)
            if request.method == "GET":  # the first look: every partner with something ready
                picked = {c.partner.pk for c in candidates if c.ready}
        return TemplateResponse(
            request,
            "admin/authority/submission_add.html",
            self._context(request, "Neue UBA-Einreichung", form=form, candidates=candidates, picked=picked),
        )

    def download_view(self, request: HttpRequest, pk: int) -> FileResponse:
        if not self.has_view_permission(request):
            raise Http404
        submission = get_object_or_404(AuthoritySubmission, pk=pk)
        if not submission.file:
            raise Http404
        try:
            handle = default_storage.open(submission.file, "rb")
        except FileNotFoundError:
            raise Http404 from None
        services.audit_record(actor=_user(request), action="submission_download", submission=submission)
        return FileResponse(
            handle,
            as_attachment=True,
            filename=f"uba-{submission.legislation_year}-{submission.pk}.zip",
            content_type="application/zip",
            headers={"Cache-Control": "private, no-store"},
        )

    def answer_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not self._may_change(request):
            raise Http404
        submission = get_object_or_404(AuthoritySubmission, pk=pk)
        form = AnswerForm(request.POST or None, request.FILES or None)
        problems: list[str] = []
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data[ANSWER_FIELD]
            if upload.size > services.ANSWER_MAX_BYTES:
                form.add_error(ANSWER_FIELD, "Die Antwortdatei ist größer als 10 MB.")
            else:
                try:
                    report = services.answer_import(
                        submission=submission, data=upload.read(), actor=_user(request)
                    )
                except services.AuthorityError as refused:
                    form.add_error(ANSWER_FIELD, refused.message)
                    problems = refused.problems
                else:
                    self.message_user(
                        request,
                        f"Antwort eingespielt: {report.accepted} angenommen, {report.rejected} abgelehnt, "
                        f"{report.unanswered} noch ohne Antwort.",
                    )
                    return HttpResponseRedirect(
                        reverse("admin:authority_authoritysubmission_change", args=[submission.pk])
                    )
        return TemplateResponse(
            request,
            "admin/authority/answer_import.html",
            self._context(
                request,
                f"Antwort einspielen: UBA-Einreichung Nr. {submission.pk}",
                form=form,
                problems=problems,
                submission=submission,
            ),  # fmt: skip
            status=400 if problems or form.errors else 200,
        )

    def rebuild_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not self._may_change(request):
            raise Http404
        submission = get_object_or_404(AuthoritySubmission, pk=pk)
        if request.method == "POST":
            services.submission_rebuild(submission=submission, actor=_user(request))
            self.message_user(request, "Das Paket wird neu erstellt.")
            return HttpResponseRedirect(
                reverse("admin:authority_authoritysubmission_change", args=[submission.pk])
            )
        return TemplateResponse(
            request,
            "admin/authority/rebuild.html",
            self._context(
                request, f"Paket neu erstellen: UBA-Einreichung Nr. {submission.pk}", submission=submission
            ),
        )


@admin.register(VehicleClaim)
class VehicleClaimAdmin(PublicHostOnly, admin.ModelAdmin):  # type: ignore[misc]
    """Search by VIN: the term is hashed with the registry key; the VIN itself is never stored."""

    list_display = ["short_hash", "legislation_year", "partner", "application_id", "created_at"]
    list_filter = ["legislation_year", "partner"]
    search_fields = ["vin_hash"]
    search_help_text = "FIN eingeben (sie wird nur verschlüsselt verglichen)"
    list_select_related = ["partner"]

    @admin.display(description="Fahrzeug (HMAC der FIN)")
    def short_hash(self, obj: VehicleClaim) -> str:
        return obj.vin_hash[:16] + "…"

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[VehicleClaim], search_term: str
    ) -> tuple[QuerySet[VehicleClaim], bool]:
        if not search_term.strip():
            return queryset, False
        return queryset.filter(vin_hash=registry.vin_hash(search_term)), False


class DoubleRegistrationStatusFilter(admin.SimpleListFilter):
    """The queue: open conflicts first (the default), the decided ones on request."""

    title = "Status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [*DoubleRegistration.Status.choices, ("all", "Alle")]

    def choices(self, changelist: Any) -> Any:
        for lookup, title in self.lookup_choices:
            yield {
                "selected": (self.value() or DoubleRegistration.Status.OPEN) == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[DoubleRegistration]) -> QuerySet[Any]:
        value = self.value() or DoubleRegistration.Status.OPEN
        return queryset if value == "all" else queryset.filter(status=value)


@admin.register(DoubleRegistration)
class DoubleRegistrationAdmin(PublicHostOnly, admin.ModelAdmin):  # type: ignore[misc]
    """The platform operator's double-registration queue: two reviewed applications of one
    vehicle and year; the change page shows both documents side by side and decides by the
    earlier submission to the authority (authority.services.double_registration_decide)."""

    list_display = [
        "created_at",
        "legislation_year",
        "status",
        "partner",
        "application_id",
        "holder_partner",
        "holder_application_id",
        "compare",
    ]
    list_filter = [DoubleRegistrationStatusFilter, "legislation_year", "partner", "holder_partner"]
    search_fields = ["vin_hash"]
    search_help_text = "FIN eingeben"
    list_select_related = ["partner", "holder_partner"]

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[DoubleRegistration], search_term: str
    ) -> tuple[QuerySet[DoubleRegistration], bool]:
        if not search_term.strip():
            return queryset, False
        return queryset.filter(vin_hash=registry.vin_hash(search_term)), False

    def _may_decide(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and request.user.has_perm(
            "authority.change_doubleregistration"
        )

    @admin.display(description="Vergleich")
    def compare(self, obj: DoubleRegistration) -> str:
        url = reverse("admin:authority_doubleregistration_compare", args=[obj.pk])
        return format_html('<a href="{}">Dokumente vergleichen</a>', url)

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/compare/", view(self.compare_view), name="authority_doubleregistration_compare"),
            path(
                "<int:pk>/document/<str:side>/",
                view(self.document_view),
                name="authority_doubleregistration_document",
            ),
            *super().get_urls(),
        ]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        return HttpResponseRedirect(reverse("admin:authority_doubleregistration_compare", args=[object_id]))

    def compare_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Both applications side by side (document, VIN, make, status, submission) and the
        decision: POST decides by the earlier submission to the authority."""
        if not self.has_view_permission(request):
            raise Http404
        conflict = get_object_or_404(DoubleRegistration, pk=pk)
        error = ""
        if request.method == "POST":
            if not self._may_decide(request):
                raise Http404
            try:
                kept = services.double_registration_decide(conflict=conflict, actor=_user(request))
            except services.AuthorityError as refused:
                error = refused.message
            else:
                self.message_user(
                    request,
                    f"Entschieden: {kept.number or kept.application_id} ({kept.partner.subdomain}) behält das "
                    "Fahrzeug (frühere Einreichung beim Umweltbundesamt); der andere Antrag ist als "
                    "Doppelregistrierung abgelehnt.",
                )
                return HttpResponseRedirect(reverse("admin:authority_doubleregistration_changelist"))
            conflict.refresh_from_db()
        sides = services.double_registration_sides(conflict)
        return TemplateResponse(
            request,
            "admin/authority/double_registration_compare.html",
            {
                **self.admin_site.each_context(request),
                "title": f"Doppelregistrierung Nr. {conflict.pk} ({conflict.legislation_year})",
                "opts": self.model._meta,
                "conflict": conflict,
                "sides": sides,
                "error": error,
                "may_decide": self._may_decide(request) and conflict.status == DoubleRegistration.Status.OPEN,
            },
            status=400 if error else 200,
        )

    def document_view(self, request: HttpRequest, pk: int, side: str) -> FileResponse:
        """The stored picture of one side's document, read from its partner's storage."""
        if not self.has_view_permission(request) or side not in ("application", "holder"):
            raise Http404
        conflict = get_object_or_404(DoubleRegistration, pk=pk)
        found = services.double_registration_sides(conflict)[0 if side == "application" else 1]
        if not found.document:
            raise Http404
        with schema_context(found.partner.schema_name):
            try:
                handle = default_storage.open(found.document, "rb")
            except FileNotFoundError:
                raise Http404 from None
        return FileResponse(handle, content_type="image/jpeg", headers={"Cache-Control": "private, no-store"})


@admin.register(AuthorityAuditEntry)
class AuthorityAuditEntryAdmin(PublicHostOnly, admin.ModelAdmin):  # type: ignore[misc]
    list_display = ["created_at", "actor", "action", "submission", "detail"]
    list_filter = ["action"]
    list_select_related = ["actor", "submission"]


@admin.register(QuotaYear)
class QuotaYearAdmin(PublicHostOnly, admin.ModelAdmin):  # type: ignore[misc]
    """The quota-year calendar (tenants.quota_years): the platform operator keeps one row per
    year; every way in asks it which years are open, the package and the credit notes read the
    credited energy per class from it."""

    list_display = [
        "year",
        "pre_registration_start",
        "registration_cutoff",
        "authority_deadline",
        "energy_m1_kwh",
        "energy_n1_kwh",
        "energy_m3_kwh",
        "updated_at",
    ]
    readonly_fields = ["updated_at"]
    fieldsets = [
        (
            "Fristen",
            {"fields": ["year", "pre_registration_start", "registration_cutoff", "authority_deadline"]},
        ),
        (
            "Anrechenbare Strommenge je Fahrzeugklasse",
            {
                "fields": [
                    "energy_m1_kwh",
                    "energy_n1_kwh",
                    "energy_n2_kwh",
                    "energy_n3_kwh",
                    "energy_m3_kwh",
                    "energy_l_kwh",
                    "updated_at",
                ]
            },
        ),
    ]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return request_partner(request) is None and request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request_partner(request) is None and request.user.is_superuser

    def save_model(self, request: HttpRequest, obj: QuotaYear, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        calendar_forget()  # this process at once; the others within quota_years.CALENDAR_TTL

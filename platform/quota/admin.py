"""The back office on a partner's own host: that partner's staff (users of its schema) follow
applications, move them through the catalogue (one or many, with a reason), read what the
document check found, see each application's history and export applications as CSV."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone, translation
from django.utils.html import format_html, format_html_join
from django_tenants.utils import schema_context

from accounts.models import User
from quota import catalogue
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from quota.services import (
    QuotaError,
    quota_application_move_by_hand,
    quota_applications_move,
    registry_conflict_notice,
)
from registrations.errors import CORRECTION_MESSAGES, CorrectionRefused
from registrations.services import reading_fields, reading_value_parse, registration_field_correct
from staff.audit import audit_record
from tenants.middleware import request_partner


class PartnerHostOnly:
    """Back-office models exist in partner schemas only: hidden on the public host."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is not None and super().has_module_permission(request)  # type: ignore[misc]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request_partner(request) is not None and super().has_view_permission(request, obj)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request_partner(request) is not None and super().has_change_permission(request, obj)  # type: ignore[misc]


def status_name(code: str) -> str:
    """A status as the back office reads it: German (the catalogue's wording), English only when
    the staff user's language is English (the active translation)."""
    info = catalogue.CATALOGUE.get(code)
    if info is None:
        return code
    return info.title("en" if (translation.get_language() or "de").startswith("en") else "de")


def conflict_notice(application: QuotaApplication, status: str) -> str:
    """The review's notice of a possible double registration, as the partner area's move
    dialog shows it ('' when the move did not pass review or meets no other claim)."""
    language = "en" if (translation.get_language() or "de").startswith("en") else "de"
    return registry_conflict_notice(application_id=application.pk, status=status, language=language)


def yes_no(value: bool | None) -> str:
    return "—" if value is None else ("Ja" if value else "Nein")


def german_day(value: str | None) -> str | None:
    """A read date (ISO, as the reader stores it) as a German reader writes it; others as they are."""
    if value and len(value) == 10 and value[4] == "-" and value[7] == "-":
        year, month, day = value.split("-")
        return f"{day}.{month}.{year}"
    return value


def status_choices() -> list[tuple[str, str]]:
    return [(code, status_name(code)) for code in QuotaStatus.values]


class StatusFilter(admin.SimpleListFilter):
    title = "Status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return status_choices()

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(status=value) if value in QuotaStatus.values else queryset


def _staff(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


class StatusChangeInline(admin.TabularInline):
    model = StatusChange
    extra = 0
    can_delete = False
    fields = ["created_at", "status_name", "actor", "reason"]
    readonly_fields = ["created_at", "status_name", "actor", "reason"]

    @admin.display(description="Status")
    def status_name(self, obj: StatusChange) -> str:
        return status_name(obj.status)

    ordering = ["created_at", "pk"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# The reader's fields by the form's code, as the back office reads them.
FIELD_LABELS = {
    "E": "FIN",
    "3": "Prüfziffer der FIN",
    "B": "Erstzulassung",
    "I": "Datum der Zulassung",
    "J": "Fahrzeugklasse",
    "10": "Code Energieträger",
    "P.3": "Kraftstoffart",
    "D.1": "Marke",
    "D.3": "Handelsbezeichnung",
    "A": "Kennzeichen",
    "2.1": "Herstellerschlüsselnummer",
}


class MoveForm(forms.ModelForm):
    """The change page moves the application; nothing else of it is edited by hand."""

    move_to = forms.ChoiceField(required=False, label="Status ändern auf")
    reason = forms.CharField(
        required=False, max_length=500, label="Begründung", widget=forms.Textarea(attrs={"rows": 2})
    )

    class Meta:
        model = QuotaApplication
        fields: list[str] = []

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        moves = sorted(catalogue.partner_moves(self.instance.status)) if self.instance.pk else []
        move_to = self.fields["move_to"]
        assert isinstance(move_to, forms.ChoiceField)
        move_to.choices = [("", "—")] + [(code, status_name(code)) for code in moves]

    correct_field = forms.ChoiceField(
        required=False,
        label="Feld korrigieren",
        choices=[("", "—")] + [(code, f"{code} – {label}") for code, label in FIELD_LABELS.items()],
    )
    correct_value = forms.CharField(required=False, max_length=100, label="Richtiger Wert")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        status = cleaned.get("move_to")
        if status in catalogue.REASON_REQUIRED and not (cleaned.get("reason") or "").strip():
            self.add_error("reason", "Diese Ablehnung braucht eine Begründung.")
        code = cleaned.get("correct_field")
        if code and self.instance.pk:
            # the reader's own rules, before anything is saved (saved again under lock)
            try:
                reading_value_parse(self.instance.registration, code, cleaned.get("correct_value") or "")
            except CorrectionRefused as refused:
                self.add_error("correct_value", CORRECTION_MESSAGES[refused.code][0])
        return cleaned


class BulkMoveForm(forms.Form):
    # The back office's moves only: the platform's (authority, double registration) and the
    # money states (settlement batches only) are not offered.
    status = forms.ChoiceField(
        choices=lambda: [
            (code, name)
            for code, name in status_choices()
            if code not in catalogue.PLATFORM_MOVES and code not in catalogue.MONEY_STATES
        ],
        label="Neuer Status",
    )
    reason = forms.CharField(
        required=False, max_length=500, label="Begründung", widget=forms.Textarea(attrs={"rows": 2})
    )


@admin.register(QuotaApplication)
class QuotaApplicationAdmin(PartnerHostOnly, admin.ModelAdmin):  # type: ignore[misc]
    form = MoveForm
    list_display = [
        "sequence", "legislation_year", "status_label", "owner_email", "client_name", "vehicle_class", "vin",
        "needs_review", "created_at",
    ]  # fmt: skip
    list_filter = [StatusFilter, "legislation_year", "registration__source", "registration__needs_review"]
    search_fields = [
        "=registration__sequence",
        "registration__owner__email",
        "client__last_name",
        "registration__vin",
    ]
    list_select_related = ["registration", "registration__owner", "client"]
    ordering = ["-registration__sequence", "legislation_year"]
    actions = ["move_selected", "export_csv"]
    inlines = [StatusChangeInline]
    readonly_fields = [
        "sequence", "legislation_year", "status_label", "owner_email", "client_name", "vehicle_class", "vin",
        "first_registration", "energy_code", "is_electric", "needs_review", "classifier_skipped", "scan",
        "promotion_opt_in", "free_text", "created_at", "reading", "corrections",
    ]  # fmt: skip
    fieldsets = [
        (None, {"fields": ["sequence", "legislation_year", "status_label", "owner_email", "client_name"]}),
        (
            "Fahrzeugschein (vom Dokumenten-Check gelesen)",
            {
                "fields": [
                    "scan",
                    "vehicle_class",
                    "vin",
                    "first_registration",
                    "energy_code",
                    "is_electric",
                    "needs_review",
                    "classifier_skipped",
                ]
            },
        ),  # fmt: skip
        ("Gelesene Felder (Sicherheit, nicht gelesen, Korrekturen)", {"fields": ["reading", "corrections"]}),
        ("Feld korrigieren", {"fields": ["correct_field", "correct_value"]}),
        ("Angaben", {"fields": ["promotion_opt_in", "free_text", "created_at"]}),
        ("Status ändern", {"fields": ["move_to", "reason"]}),
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # applications come from the registration flow and resubmits only

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the record of a payout claim is kept

    @admin.display(description="Nummer", ordering="registration__sequence")
    def sequence(self, obj: QuotaApplication) -> int:
        return obj.registration.sequence

    @admin.display(description="Status", ordering="status")
    def status_label(self, obj: QuotaApplication) -> str:
        return status_name(obj.status)

    @admin.display(description="E-Mail", ordering="registration__owner__email")
    def owner_email(self, obj: QuotaApplication) -> str:
        return obj.registration.owner.email

    @admin.display(description="Name")
    def client_name(self, obj: QuotaApplication) -> str:
        return f"{obj.client.first_name} {obj.client.last_name}"

    @admin.display(description="Fahrzeugklasse")
    def vehicle_class(self, obj: QuotaApplication) -> str:
        return obj.registration.vehicle_class

    @admin.display(description="FIN")
    def vin(self, obj: QuotaApplication) -> str:
        return obj.registration.vin

    @admin.display(description="Erstzulassung")
    def first_registration(self, obj: QuotaApplication) -> Any:
        day = obj.registration.first_registration
        return day.strftime("%d.%m.%Y") if day else "—"

    @admin.display(description="Energieträger (Feld 10)")
    def energy_code(self, obj: QuotaApplication) -> str:
        return obj.registration.energy_code

    # Ja/Nein as text: Django's boolean icons carry "True"/"False" as their alternative text.
    @admin.display(description="Elektrisch")
    def is_electric(self, obj: QuotaApplication) -> str:
        return yes_no(obj.registration.is_electric)

    @admin.display(description="Prüfen")
    def needs_review(self, obj: QuotaApplication) -> str:
        return yes_no(obj.registration.needs_review)

    @admin.display(description="Dokumenten-Check übersprungen")
    def classifier_skipped(self, obj: QuotaApplication) -> str:
        return yes_no(obj.registration.classifier_skipped)

    # not the model field's name: Django would show the field itself, as an icon
    @admin.display(description="Werbung per E-Mail erlaubt")
    def promotion_opt_in(self, obj: QuotaApplication) -> str:
        return yes_no(obj.email_promotion_opt_in)

    @admin.display(description="Gelesene Felder")
    def reading(self, obj: QuotaApplication) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    field["code"],
                    FIELD_LABELS[field["code"]],
                    german_day(field["value"]) or "—",
                    "—" if field["confidence"] is None else f"{round(field['confidence'] * 100)} %",
                    "nicht gelesen"
                    if field["unread"]
                    else (
                        f"korrigiert von {field['corrected_by']}"
                        if field["corrected_by"]
                        else "Dokumenten-Check"
                    ),
                )
                for field in reading_fields(obj.registration)
            ),
        )
        return format_html(
            "<table><thead><tr><th>Feld</th><th>Wert</th><th>Sicherheit</th><th>Quelle</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="Korrekturen")
    def corrections(self, obj: QuotaApplication) -> str:
        items = format_html_join(
            "",
            "<li>{}: {} {} → {} ({})</li>",
            (
                (
                    timezone.localtime(c.created_at).strftime("%d.%m.%Y %H:%M"),
                    c.code,
                    c.before or "—",
                    c.after,
                    c.actor_name,
                )
                for c in obj.registration.corrections.order_by("created_at", "pk")
            ),
        )
        return format_html("<ul>{}</ul>", items) if items else "—"

    @admin.display(description="Scan")
    def scan(self, obj: QuotaApplication) -> str:
        url = reverse("admin:quota_quotaapplication_scan", args=[obj.pk])
        return format_html(
            '<a href="{}" target="_blank"><img src="{}" alt="Scan" style="max-width:480px"></a>', url, url
        )

    def get_urls(self) -> list[URLPattern]:
        scan = path(
            "<int:pk>/scan/", self.admin_site.admin_view(self.scan_view), name="quota_quotaapplication_scan"
        )
        return [scan, *super().get_urls()]

    def scan_view(self, request: HttpRequest, pk: int) -> FileResponse:
        if not self.has_view_permission(request):
            raise Http404
        application = get_object_or_404(QuotaApplication.objects.select_related("registration"), pk=pk)
        registration = application.registration
        if not registration.display_scan:  # not redacted yet: the original is shown to no one
            raise Http404
        try:
            handle = default_storage.open(registration.display_scan)
        except FileNotFoundError:
            raise Http404 from None
        return FileResponse(handle, content_type="image/jpeg", headers={"Cache-Control": "private, no-store"})

    def save_model(self, request: HttpRequest, obj: QuotaApplication, form: Any, change: bool) -> None:
        code = form.cleaned_data.get("correct_field")
        if code:
            staff = _staff(request)
            name = (staff.get_full_name() or staff.email or staff.username) if staff else "System"
            try:
                with transaction.atomic():
                    correction = registration_field_correct(
                        registration=obj.registration,
                        code=code,
                        value=form.cleaned_data.get("correct_value") or "",
                        actor=staff,
                        actor_name=name,
                    )
                    audit_record(
                        actor=staff, action="registration.correct", obj=obj,
                        before={"field": code, "value": correction.before},
                        after={"field": code, "value": correction.after},
                    )  # fmt: skip
            except CorrectionRefused as refused:
                self.message_user(request, CORRECTION_MESSAGES[refused.code][0], messages.ERROR)
        status = form.cleaned_data.get("move_to")
        if not status:
            return
        try:
            quota_application_move_by_hand(
                application=obj,
                status=status,
                actor=_staff(request),
                reason=form.cleaned_data.get("reason", ""),
            )
        except QuotaError as error:
            self.message_user(request, error.message, messages.ERROR)
            return
        notice = conflict_notice(obj, status)  # the review is where a registry conflict is told
        if notice:
            self.message_user(request, notice, messages.WARNING)

    @admin.action(description="Status der ausgewählten Anträge ändern …", permissions=["change"])
    def move_selected(
        self, request: HttpRequest, queryset: QuerySet[QuotaApplication]
    ) -> HttpResponse | None:
        form = BulkMoveForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            status, reason = form.cleaned_data["status"], form.cleaned_data["reason"]
            if status in catalogue.REASON_REQUIRED and not reason.strip():
                form.add_error("reason", "Diese Ablehnung braucht eine Begründung.")
            else:
                moved, refused = quota_applications_move(
                    applications=list(queryset),
                    status=status,
                    actor=_staff(request),
                    reason=reason,
                )
                self.message_user(request, f"{len(moved)} Anträge auf „{status_name(status)}“ gesetzt.")
                for application, why in refused:
                    self.message_user(
                        request, f"Nr. {application.registration.sequence}: {why}", messages.WARNING
                    )
                for application in moved:
                    notice = conflict_notice(application, status)
                    if notice:
                        self.message_user(
                            request, f"Nr. {application.registration.sequence}: {notice}", messages.WARNING
                        )
                return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Status ändern",
            "form": form,
            "applications": queryset.select_related("registration"),
            "opts": self.model._meta,
            "action": "move_selected",
        }
        return TemplateResponse(request, "admin/quota/move_selected.html", context)

    @admin.action(description="Ausgewählte Anträge als CSV exportieren", permissions=["view"])
    def export_csv(self, request: HttpRequest, queryset: QuerySet[QuotaApplication]) -> StreamingHttpResponse:
        partner = request_partner(request)
        assert partner is not None  # PartnerHostOnly: the action exists on a partner's host only
        rows = queryset.select_related("registration", "registration__owner", "client").order_by(
            "registration__sequence", "legislation_year"
        )
        writer = csv.writer(_Echo(), delimiter=";")
        header = ["Nummer", "Jahr", "Status", "Statusname", "E-Mail", "Vorname", "Nachname", "Fahrzeugklasse", "FIN",
                  "Erstzulassung", "Angelegt"]  # fmt: skip

        def lines() -> Iterator[str]:
            yield "\ufeff" + writer.writerow(header)
            for a in rows.iterator(chunk_size=500):
                yield writer.writerow(
                    [csv_cell(value) for value in (
                        a.registration.sequence, a.legislation_year, a.status, catalogue.CATALOGUE[a.status].label,
                        a.registration.owner.email, a.client.first_name, a.client.last_name,
                        a.registration.vehicle_class, a.registration.vin, a.registration.first_registration or "",
                        a.created_at.date().isoformat(),
                    )]
                )  # fmt: skip

        return StreamingHttpResponse(
            in_schema(partner.schema_name, lines()),
            content_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": 'attachment; filename="quota-applications.csv"',
                "Cache-Control": "private, no-store",
            },
        )


class _Echo:
    def write(self, value: str) -> str:
        return value


# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...), +cmd|...).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """Text from owners goes into the export as text: a leading apostrophe keeps a spreadsheet
    from reading it as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def in_schema(schema_name: str, chunks: Iterator[str]) -> Iterator[str]:
    """A streamed body is read after the middleware has put the public schema back (the WSGI
    server iterates it once the view returned): each chunk is made inside the partner's schema."""
    while True:
        with schema_context(schema_name):
            try:
                chunk = next(chunks)
            except StopIteration:
                return
        yield chunk

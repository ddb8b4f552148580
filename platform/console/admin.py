"""The onboarding console: partners in the Django admin of the public host (behind the staff
second factor of staff.sites). Provisioning goes through tenants.services, exactly as
`manage.py create_partner` does; configuration edits are drafts that are published as
numbered versions, with history, diff and rollback."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Max, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST
from django_tenants.utils import schema_context

from common.partner_config import ConfigErrors, config_normalise
from console.golive import golive_checklist, partner_activate
from staff.errors import StaffError
from staff.models import StaffInvite, StaffMember
from staff.services import staff_invite
from tenants.audit import config_change_lists, console_audit_record, partner_snapshot
from tenants.brand import BrandAssetError, brand_asset_read, brand_asset_store
from tenants.config_form import (
    ConfigFormField,
    config_changes_summary,
    config_import_parse,
    config_summary,
    path_label,
)
from tenants.config_rules import config_check
from tenants.domains import custom_domain_check, domain_verify, verification_name
from tenants.middleware import partner_site_url, request_partner
from tenants.models import CONSOLE_AUDIT_ACTIONS as AUDIT_ACTIONS
from tenants.models import ConfigVersion, ConsoleAuditEntry, Domain, Partner, is_local_host
from tenants.preview import preview_max_age, preview_scratch_store, preview_scratch_url, preview_url
from tenants.selectors import config_diff, config_versions, partner_registration_counts
from tenants.services import (
    config_draft,
    config_draft_discard,
    config_draft_publish,
    config_draft_save,
    config_rollback,
    partner_archive,
    partner_provision,
    partner_unarchive,
    partner_update,
)


def _allow_frame(response: HttpResponse, site_url: str) -> None:
    """The partner page's live preview frames the partner's own site: its origin is added to
    the console page's frame-src (and nothing else of the policy changes)."""
    parts = urlsplit(site_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    policy = settings.CONTENT_SECURITY_POLICY
    if policy and "frame-src " in policy:
        response["Content-Security-Policy"] = policy.replace("frame-src ", f"frame-src {origin} ", 1)


def _messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [message for messages_ in exc.message_dict.values() for message in messages_]
    return list(exc.messages)


KIND_LABELS = {
    "standard": "Standard (Autohaus, Flotte, Händler)",
    "utility": "Energieversorger",
    "wallbox": "Wallbox-Hersteller",
}


class PartnerForm(forms.ModelForm):
    kind = forms.ChoiceField(label="Art des Partners", choices=list(KIND_LABELS.items()), initial="standard")
    custom_domain = forms.CharField(
        label="Eigene Domain", required=False, help_text="Optional, z. B. thg.example.de"
    )
    config = ConfigFormField(label="Konfiguration", required=False)
    config_import = forms.CharField(
        label="JSON-Import",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
        help_text="Für Fortgeschrittene: eine ganze Konfiguration als JSON; ersetzt das Formular oben. "
        "Export: „Als JSON exportieren“ oben rechts.",
    )
    note = forms.CharField(
        label="Änderungsnotiz",
        required=False,
        max_length=300,
        help_text="Steht in der Versionsgeschichte neben der Änderung.",
    )

    class Meta:
        model = Partner
        # The site is switched on by "Aktivieren" beside the go-live checklist, never by a
        # checkbox: a new partner starts inactive (console.golive).
        fields = ["subdomain", "name", "kind", "config"]
        labels = {"subdomain": "Subdomain", "name": "Name des Partners"}
        help_texts = {"subdomain": "Kleinbuchstaben, Ziffern und Bindestriche; Teil der Adresse der Website."}

    def clean_custom_domain(self) -> str:
        value = (self.cleaned_data.get("custom_domain") or "").strip()
        return custom_domain_check(value) if value else ""

    def clean_config(self) -> dict[str, Any]:
        raw_import = (self.data.get("config_import") or "").strip()
        value = config_import_parse(raw_import) if raw_import else self.cleaned_data.get("config") or {}
        try:
            return config_check(value)
        except ConfigErrors as exc:
            self.fields["config"].show_errors(exc.errors)  # type: ignore[attr-defined]
            raise ValidationError(
                [
                    f"{path_label(path)}: {message}"
                    for path, messages in exc.errors.items()
                    for message in messages
                ]
            ) from None


class DomainForm(forms.ModelForm):
    class Meta:
        model = Domain
        fields = ["domain", "is_primary"]
        labels = {"domain": "Domain", "is_primary": "Hauptdomain"}


class DomainInline(admin.TabularInline):
    """Custom domains with their verification state: served once the TXT record holds the
    partner's token (tenants.domains; checked every 5 minutes and by "Domains jetzt prüfen")."""

    model = Domain
    form = DomainForm
    verbose_name = "Domain"
    verbose_name_plural = "Domains"
    extra = 0
    fields = ["domain", "is_primary", "state", "txt_record"]
    readonly_fields = ["state", "txt_record"]

    @admin.display(description="Prüfung")
    def state(self, obj: Domain) -> str:
        if obj.pk is None:
            return "–"
        if obj.verified_at is not None:
            return f"bestätigt ({obj.verified_at:%d.%m.%Y %H:%M})"
        checked = (
            f", zuletzt geprüft {obj.checked_at:%d.%m.%Y %H:%M}: {obj.check_result}" if obj.checked_at else ""
        )
        return f"ausstehend{checked}"

    @admin.display(description="DNS-Eintrag für die Bestätigung")
    def txt_record(self, obj: Domain) -> str:
        if obj.pk is None or obj.verified_at is not None:
            return "–"
        return format_html(
            "<code>{}</code> TXT <code>{}</code>", verification_name(obj.domain), obj.tenant.domain_token
        )


def _site_url(partner: Partner) -> str:
    """partner_site_url from the prefetched domains (no query per row of the list)."""
    domains = sorted(partner.domains.all(), key=lambda d: (not d.is_primary, d.pk))
    if not domains:
        return partner_site_url(partner)
    host = domains[0].domain
    return f"http://{host}/" if is_local_host(host) else f"https://{host}/"


def _partner_admins(partner: Partner) -> list[str]:
    """E-mail addresses of the partner's active partner admins and open admin invites."""
    with schema_context(partner.schema_name):
        members = list(
            StaffMember.objects.filter(role="partner_admin", is_active=True).values_list(
                "user__email", flat=True
            )
        )
        invited = [
            f"{invite.email} (eingeladen)"
            for invite in StaffInvite.objects.filter(role="partner_admin", used_at__isnull=True)
            if invite.is_open
        ]
    return members + invited


STATUS_LABELS = {"active": "aktiv", "inactive": "inaktiv", "archived": "archiviert"}


class StatusFilter(admin.SimpleListFilter):
    title = "Status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(STATUS_LABELS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[Partner]) -> QuerySet[Partner]:
        value = self.value()
        if value == "archived":
            return queryset.filter(archived_at__isnull=False)
        if value in {"active", "inactive"}:
            return queryset.filter(archived_at__isnull=True, frontend_active=value == "active")
        return queryset


class KindFilter(admin.SimpleListFilter):
    title = "Art"
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(KIND_LABELS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[Partner]) -> QuerySet[Partner]:
        value = self.value()
        return queryset.filter(kind=value) if value in KIND_LABELS else queryset


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    form = PartnerForm
    change_form_template = "admin/tenants/partner/change_form.html"
    list_display = [
        "subdomain",
        "name",
        "status_label",
        "kind_label",
        "domain_list",
        "registrations",
        "last_change",
        "links",
    ]
    list_filter = [StatusFilter, KindFilter]
    search_fields = ["subdomain", "name", "domains__domain"]
    # The database schema's name is not shown: it is an internal name (p_<subdomain>), and
    # every command of the console (backup, restore, purge) names a partner by its subdomain.
    readonly_fields = ["version_shown", "created_shown", "updated_shown"]
    inlines = [DomainInline]

    class Media:
        # the configuration widget's own buttons ("Add item", "Remove", …) in German
        js = ["console/jsonform-de.js"]

    # --- The list: status, domains, registrations, last change, links -----------------------

    def get_queryset(self, request: HttpRequest) -> QuerySet[Partner]:
        return (
            super()
            .get_queryset(request)
            .prefetch_related("domains")
            .annotate(last_published=Max("config_versions__published_at"))
        )

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        changelist = super().get_changelist_instance(request)
        # One query for the page's partners, not one per row (each count is in its own schema).
        counts = partner_registration_counts([partner.schema_name for partner in changelist.result_list])
        for partner in changelist.result_list:
            partner.registration_count = counts.get(partner.schema_name)
        return changelist

    @admin.display(description="Status")
    def status_label(self, obj: Partner) -> str:
        return STATUS_LABELS[obj.status]

    @admin.display(description="Art", ordering="kind")
    def kind_label(self, obj: Partner) -> str:
        return KIND_LABELS.get(obj.kind, obj.kind)

    @admin.display(description="Veröffentlichte Version")
    def version_shown(self, obj: Partner) -> str:
        return str(obj.published_version) if obj.pk else "–"

    @admin.display(description="Angelegt")
    def created_shown(self, obj: Partner) -> str:
        return f"{timezone.localtime(obj.created_at):%d.%m.%Y %H:%M}" if obj.created_at else "–"

    @admin.display(description="Zuletzt geändert")
    def updated_shown(self, obj: Partner) -> str:
        return f"{timezone.localtime(obj.updated_at):%d.%m.%Y %H:%M}" if obj.updated_at else "–"

    @admin.display(description="Domains")
    def domain_list(self, obj: Partner) -> str:
        return ", ".join(sorted(domain.domain for domain in obj.domains.all()))

    @admin.display(description="Registrierungen")
    def registrations(self, obj: Partner) -> Any:
        count = getattr(obj, "registration_count", None)
        return "–" if count is None else count

    @admin.display(description="Letzte Änderung", ordering="updated_at")
    def last_change(self, obj: Partner) -> Any:
        published = getattr(obj, "last_published", None)
        return max(filter(None, [obj.updated_at, published]))

    @admin.display(description="Links")
    def links(self, obj: Partner) -> str:
        if obj.archived_at is not None:
            return "–"
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">Öffnen</a> · <a href="{}" target="_blank" rel="noopener">Vorschau</a>',
            _site_url(obj),
            reverse("admin:tenants_partner_preview", args=[obj.pk]),
        )

    # Partners are managed on the public host only, never from a partner's own site.
    def has_module_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return request_partner(request) is None and super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and super().has_add_permission(request)

    def has_change_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return request_partner(request) is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Partner | None = None) -> bool:
        return request_partner(request) is None and super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Partner | None = None) -> list[str]:
        readonly = list(self.readonly_fields)
        return [*readonly, "subdomain"] if obj is not None else readonly

    def get_inlines(self, request: HttpRequest, obj: Partner | None) -> list[Any]:
        return self.inlines if obj is not None else []

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """A new partner's form starts from the defaults: the widget posts every field it
        shows, and an empty one (no colour, no choice) would be refused field by field."""
        initial: dict[str, Any] = dict(super().get_changeform_initial_data(request))
        initial.setdefault("config", config_normalise({}))
        return initial

    def get_form(
        self, request: HttpRequest, obj: Partner | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None:
            # The form edits the draft when there is one (get_object puts it in): the live
            # configuration stays as it is until the draft is published.
            draft = config_draft(obj)
            form.base_fields["config"].help_text = (
                "Entwurf (noch nicht veröffentlicht)."
                if draft
                else "Änderungen werden als Entwurf gespeichert."
            )
        return form

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        partner = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if partner is not None:
            draft = config_draft(partner)
            context["config_draft"] = draft
            # get_object put the draft into `partner.config`: the diff is against the live row.
            live = Partner.objects.values_list("config", flat=True).get(pk=partner.pk)
            context["config_draft_diff"] = config_diff(live, draft.config) if draft else []
            context["partner_admins"] = _partner_admins(partner)
            context["pending_domains"] = partner.domains.filter(verified_at__isnull=True).exists()
            if partner.archived_at is None:
                # the live row: get_object put the draft into `partner.config`
                checklist = golive_checklist(Partner.objects.get(pk=partner.pk))
                context["golive_checklist"] = checklist
                context["golive_ready"] = all(item.done for item in checklist)
            if partner.archived_at is None:
                context["preview_url"] = preview_url(partner=partner, request=request)
                context["draft_preview_url"] = (
                    preview_url(partner=partner, draft=draft, request=request) if draft else None
                )
                context["preview_days"] = preview_max_age() // 86400
                context["site_url"] = partner_site_url(partner, request)
                context["live_preview_url"] = context["draft_preview_url"] or context["preview_url"]
            context["brand_thumbs"] = self._brand_thumbs(partner, live, draft.config if draft else None)
        response = super().change_view(request, object_id, form_url, extra_context=context)
        if context.get("live_preview_url"):
            _allow_frame(response, context["site_url"])
        return response

    def _brand_thumbs(
        self, partner: Partner, live: dict[str, Any], draft: dict[str, Any] | None
    ) -> list[dict[str, Any]]:
        """The logo, favicon and header image the form shows (the draft's, else the live
        ones): an uploaded one through the console's own address (the console's page loads
        no image from a partner's host), a URL or data URL as it is."""
        shown = draft if draft is not None else live
        thumbs = []
        for kind, label, value, before in (
            ("logo", "Logo", shown.get("logo"), live.get("logo")),
            ("favicon", "Favicon", shown.get("favicon"), live.get("favicon")),
            (
                "header_image",
                "Kopfbild",
                (shown.get("wallbox") or {}).get("header_image"),
                (live.get("wallbox") or {}).get("header_image"),
            ),
        ):
            if not value:
                continue
            src = value
            if value.startswith("/brand/"):
                src = reverse(
                    "admin:tenants_partner_brand_asset", args=[partner.pk, value.removeprefix("/brand/")]
                )
            elif not value.startswith(("https://", "data:image/")):
                continue
            thumbs.append({"kind": kind, "label": label, "src": src, "in_draft": value != before})
        return thumbs

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Partner | None:
        partner = super().get_object(request, object_id, from_field)
        if partner is not None and request.method == "GET":
            draft = config_draft(partner)
            if draft is not None:
                # Shown in the form: the draft, not the published configuration.
                partner.config = draft.config
        return partner

    def save_model(self, request: HttpRequest, obj: Partner, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        if change:
            # `obj` already carries the form's values; the services compare with the stored row.
            current = Partner.objects.get(pk=obj.pk)
            before = partner_snapshot(current)
            partner_update(partner=current, name=data["name"], kind=data["kind"])
            after = partner_snapshot(current)
            changed = [key for key in after if before[key] != after[key]]
            if changed:
                self._audit(
                    request,
                    current,
                    "change",
                    "Geändert: " + ", ".join(AUDIT_FIELDS.get(key, key) for key in changed),
                    {key: before[key] for key in changed},
                    {key: after[key] for key in changed},
                )
            draft = config_draft(current)
            if data["config"] != current.config or draft is not None:
                previous = draft.config if draft is not None else current.config
                saved = config_draft_save(
                    partner=current, config=data["config"], author=request.user, note=data.get("note", "")
                )
                old, new = config_change_lists(previous, saved.config)
                if new or old:
                    self._audit(request, current, "draft", "Entwurf gespeichert", old, new)
                messages.info(
                    request, "Die Konfiguration ist als Entwurf gespeichert: prüfen und veröffentlichen."
                )
            obj.config = current.config
            obj.config_version = current.config_version
        else:
            provisioned = partner_provision(
                subdomain=data["subdomain"],
                name=data["name"],
                kind=data["kind"],
                config=data["config"],
                frontend_active=False,
                custom_domain=data.get("custom_domain") or None,
                author=request.user,
                note=data.get("note", ""),
            )
            obj.pk = provisioned.pk
            obj.schema_name = provisioned.schema_name
            self._audit(
                request,
                provisioned,
                "create",
                "Partner angelegt",
                None,
                {
                    **partner_snapshot(provisioned),
                    "domains": list(provisioned.domains.values_list("domain", flat=True)),
                    "config": provisioned.config,
                },
            )

    # --- Delete archives -----------------------------------------------------------------------

    actions = ["unarchive"]

    def get_deleted_objects(
        self, objs: Any, request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        # The confirmation page lists what happens: nothing is deleted.
        archived = [
            f"{obj}: wird archiviert – Website aus, Schema, Daten und Domains bleiben." for obj in objs
        ]
        return archived, {}, set(), []

    def delete_model(self, request: HttpRequest, obj: Partner) -> None:
        before = partner_snapshot(obj)
        partner_archive(partner=obj)
        self._audit(request, obj, "archive", "Archiviert (statt gelöscht)", before, partner_snapshot(obj))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Partner]) -> None:
        for partner in queryset:
            self.delete_model(request, partner)

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: Any) -> HttpResponse:
        messages.success(
            request,
            f"{obj_display} ist archiviert: die Website ist aus, die Daten bleiben. "
            "Endgültig löschen: manage.py partner_purge (schreibt vorher einen pg_dump).",
        )
        return HttpResponseRedirect(reverse("admin:tenants_partner_changelist"))

    @admin.action(description="Aus dem Archiv holen (Website bleibt aus)")
    def unarchive(self, request: HttpRequest, queryset: QuerySet[Partner]) -> None:
        for partner in queryset.filter(archived_at__isnull=False):
            before = partner_snapshot(partner)
            partner_unarchive(partner=partner)
            self._audit(
                request, partner, "unarchive", "Aus dem Archiv geholt", before, partner_snapshot(partner)
            )

    def _audit(
        self,
        request: HttpRequest,
        partner: Partner,
        action: str,
        summary: str,
        before: dict[str, Any] | None = None,
        after: dict[str, Any] | None = None,
    ) -> None:
        """The console's audit log (public schema) and Django's history of the partner."""
        console_audit_record(
            actor=request.user, action=action, partner=partner, summary=summary, before=before, after=after
        )
        self.log_change(request, partner, summary)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        """Custom domains added, renamed or removed on the change page: each in the log."""
        old = {domain.pk: domain.domain for domain in Domain.objects.filter(tenant=form.instance)}
        super().save_formset(request, form, formset, change)
        if formset.model is not Domain:
            return
        for domain in formset.new_objects:
            self._audit(
                request,
                form.instance,
                "domain_add",
                f"Domain {domain.domain} hinzugefügt",
                None,
                {"domain": domain.domain, "is_primary": domain.is_primary},
            )
        for domain, fields in formset.changed_objects:
            self._audit(
                request,
                form.instance,
                "domain_change",
                f"Domain {domain.domain} geändert ({', '.join(fields)})",
                {"domain": old.get(domain.pk)},
                {"domain": domain.domain, "is_primary": domain.is_primary},
            )
        for domain in formset.deleted_objects:
            self._audit(
                request,
                form.instance,
                "domain_delete",
                f"Domain {old.get(domain.pk, domain.domain)} entfernt",
                {"domain": old.get(domain.pk, domain.domain)},
                None,
            )

    # --- Drafts, versions, rollback ---------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        own = [
            path("<int:object_id>/versions/", view(self.versions_view), name="tenants_partner_versions"),
            path("<int:object_id>/export/", view(self.export_view), name="tenants_partner_export"),
            path("<int:object_id>/preview/", view(self.preview_view), name="tenants_partner_preview"),
            path(
                "<int:object_id>/preview/typed/",
                view(require_POST(self.preview_typed_view)),
                name="tenants_partner_preview_typed",
            ),
            path("<int:object_id>/brand/", view(require_POST(self.brand_view)), name="tenants_partner_brand"),
            path(
                "<int:object_id>/brand/<str:name>",
                view(self.brand_asset_view),
                name="tenants_partner_brand_asset",
            ),
            path(
                "<int:object_id>/invite/", view(require_POST(self.invite_view)), name="tenants_partner_invite"
            ),
            path(
                "<int:object_id>/domains/verify/",
                view(require_POST(self.verify_domains_view)),
                name="tenants_partner_verify_domains",
            ),
            path(
                "<int:object_id>/activate/",
                view(require_POST(self.activate_view)),
                name="tenants_partner_activate",
            ),
            path(
                "<int:object_id>/deactivate/",
                view(require_POST(self.deactivate_view)),
                name="tenants_partner_deactivate",
            ),
            path(
                "<int:object_id>/publish/",
                view(require_POST(self.publish_view)),
                name="tenants_partner_publish",
            ),
            path(
                "<int:object_id>/discard/",
                view(require_POST(self.discard_view)),
                name="tenants_partner_discard",
            ),
            path(
                "<int:object_id>/versions/<int:number>/rollback/",
                view(require_POST(self.rollback_view)),
                name="tenants_partner_rollback",
            ),
        ]
        return own + super().get_urls()

    def _partner(self, request: HttpRequest, object_id: int, *, write: bool) -> Partner:
        partner = get_object_or_404(Partner, pk=object_id)
        allowed = (
            self.has_change_permission(request, partner)
            if write
            else self.has_view_permission(request, partner)
        )
        if not allowed:
            raise PermissionDenied
        return partner

    def _back(self, partner: Partner, target: str = "versions") -> HttpResponseRedirect:
        if target == "change":
            return HttpResponseRedirect(reverse("admin:tenants_partner_change", args=[partner.pk]))
        return HttpResponseRedirect(reverse("admin:tenants_partner_versions", args=[partner.pk]))

    def versions_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        partner = self._partner(request, object_id, write=False)
        versions = config_versions(partner)
        rows = []
        for index, version in enumerate(versions):
            previous = versions[index + 1].config if index + 1 < len(versions) else {}
            rows.append({"version": version, "changes": config_diff(previous, version.config)})
        draft = config_draft(partner)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": partner,
            "partner": partner,
            "title": f"Konfigurationsversionen: {partner.name}",
            "rows": rows,
            "draft": draft,
            "draft_changes": config_diff(partner.config, draft.config) if draft else [],
            "can_change": self.has_change_permission(request, partner),
        }
        return TemplateResponse(request, "admin/tenants/partner/versions.html", context)

    def preview_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """A fresh preview link (of the draft with ?draft=1), opened at once."""
        partner = self._partner(request, object_id, write=False)
        draft = config_draft(partner) if request.GET.get("draft") else None
        self._audit(request, partner, "preview", "Vorschau-Link erzeugt" + (" (Entwurf)" if draft else ""))
        return HttpResponseRedirect(preview_url(partner=partner, draft=draft, request=request))

    def preview_typed_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """The side-by-side preview of what is typed, before it is saved (console/live-preview.js,
        debounced): the form's configuration, checked as a save checks it, becomes a scratch
        preview (tenants.preview); nothing is saved, logged or published. Refused with the
        form's German messages while the configuration is not valid."""
        partner = self._partner(request, object_id, write=True)
        if partner.archived_at is not None:
            raise PermissionDenied
        field = ConfigFormField(required=False)
        try:
            config = config_check(field.clean(request.POST.get("config") or "{}") or {})
        except ConfigErrors as exc:
            errors = [
                f"{path_label(path)}: {message}" for path, items in exc.errors.items() for message in items
            ]
            return JsonResponse({"errors": errors}, status=400)
        except ValidationError as exc:
            return JsonResponse({"errors": _messages(exc)}, status=400)
        token = preview_scratch_store(partner=partner, config=config, token=request.POST.get("token") or None)
        return JsonResponse(
            {"url": preview_scratch_url(partner=partner, token=token, request=request), "token": token},
            headers={"Cache-Control": "no-store"},
        )

    def brand_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """Uploaded logo, favicon, header image: cleaned and stored (tenants.brand), their URLs
        put into the draft, to be previewed and published like any other change."""
        partner = self._partner(request, object_id, write=True)
        draft = config_draft(partner)
        config = json.loads(json.dumps(draft.config if draft else partner.config))
        previous = json.loads(json.dumps(config))
        stored = []
        for kind in ("logo", "favicon", "header_image"):
            upload = request.FILES.get(kind)
            if upload is None:
                continue
            try:
                asset = brand_asset_store(
                    partner=partner, kind=kind, data=upload.read(), filename=upload.name or ""
                )
            except BrandAssetError as exc:
                label = {"logo": "Logo", "favicon": "Favicon", "header_image": "Kopfbild"}[kind]
                messages.error(request, f"{label}: {exc}")
                return self._back(partner, "change")
            if kind == "header_image":
                config.setdefault("wallbox", {})["header_image"] = asset.url
            else:
                config[kind] = asset.url
            if kind == "logo":
                # measured from the file: the theme sizes the logo so its text is legible
                config["logo_aspect"] = asset.measure.aspect
                config["logo_text_share"] = asset.measure.text_share
            stored.append(kind)
        if not stored:
            messages.error(request, "Bitte mindestens eine Datei auswählen.")
            return self._back(partner, "change")
        try:
            config_draft_save(
                partner=partner, config=config, author=request.user, note="Markenbilder hochgeladen"
            )
        except ValidationError as exc:
            for message in _messages(exc):
                messages.error(request, message)
            return self._back(partner, "change")
        old, new = config_change_lists(previous, config)
        names = {"logo": "Logo", "favicon": "Favicon", "header_image": "Kopfbild"}
        self._audit(
            request,
            partner,
            "asset",
            "Markenbilder hochgeladen: " + ", ".join(names[kind] for kind in stored),
            old,
            new,
        )
        messages.success(request, "Die Bilder sind im Entwurf: Vorschau ansehen und veröffentlichen.")
        return self._back(partner, "change")

    def brand_asset_view(self, request: HttpRequest, object_id: int, name: str) -> HttpResponse:
        """An uploaded brand image of the partner, for the console's thumbnails."""
        partner = self._partner(request, object_id, write=False)
        found = brand_asset_read(schema_name=partner.schema_name, name=name)
        if found is None:
            return HttpResponseNotFound("Nicht gefunden", content_type="text/plain; charset=utf-8")
        data, content_type = found
        response = HttpResponse(data, content_type=content_type)
        response["Cache-Control"] = "private, max-age=3600"
        response["X-Content-Type-Options"] = "nosniff"
        if content_type == "image/svg+xml":
            response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        return response

    def invite_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """The partner's first partner_admin: the partner area's invite (mail with a set-password
        link, then TOTP enrolment at the first sign-in)."""

        partner = self._partner(request, object_id, write=True)
        email = request.POST.get("email", "").strip()
        name = request.POST.get("name", "").strip()
        if not email or "@" not in email or not name:
            messages.error(request, "Bitte Name und E-Mail-Adresse der Einzuladenden angeben.")
            return self._back(partner, "change")
        try:
            forms.EmailField().clean(email)
            staff_invite(
                partner=partner,
                email=email,
                name=name,
                role="partner_admin",
                invited_by=None,
                request=request,
            )
        except ValidationError:
            messages.error(request, "Bitte eine gültige E-Mail-Adresse angeben.")
            return self._back(partner, "change")
        except StaffError as exc:
            body = exc.body(request)
            detail = next(iter(body.values())) if exc.field else body
            messages.error(
                request, f"Einladung nicht möglich: {detail.get('message') or detail.get('detail')}"
            )
            return self._back(partner, "change")
        self._audit(
            request, partner, "invite", f"Partner-Admin {email} eingeladen", None,
            {"email": email, "name": name, "role": "partner_admin"},
        )  # fmt: skip
        messages.success(
            request, f"{name} ({email}) ist als Partner-Admin eingeladen: die E-Mail ist unterwegs."
        )
        return self._back(partner, "change")

    def verify_domains_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        partner = self._partner(request, object_id, write=True)
        for domain in partner.domains.filter(verified_at__isnull=True):
            verified = domain_verify(domain=domain)
            self._audit(
                request, partner, "domain_verify",
                f"Domain {domain.domain} " + ("bestätigt" if verified else "geprüft: noch nicht bestätigt"),
                {"domain": domain.domain, "verified": False},
                {"domain": domain.domain, "verified": verified, "result": domain.check_result},
            )  # fmt: skip
            if verified:
                messages.success(request, f"{domain.domain} ist bestätigt und wird ausgeliefert.")
            else:
                messages.warning(request, f"{domain.domain}: {domain.check_result}")
        return self._back(partner, "change")

    def export_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """The configuration as JSON (the draft if there is one), for the JSON import."""
        partner = self._partner(request, object_id, write=False)
        draft = config_draft(partner)
        body = json.dumps(draft.config if draft else partner.config, ensure_ascii=False, indent=2)
        suffix = "entwurf" if draft else f"v{partner.published_version}"
        return HttpResponse(
            body,
            content_type="application/json; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{partner.subdomain}-{suffix}.json"'},
        )

    def activate_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """ "Aktivieren": the site goes live only with a complete go-live checklist."""
        partner = self._partner(request, object_id, write=True)
        before = partner_snapshot(partner)
        try:
            partner_activate(partner=partner)
        except ValidationError as exc:
            for message in _messages(exc):
                messages.error(request, message)
            return self._back(partner, "change")
        self._audit(request, partner, "activate", "Website aktiviert", before, partner_snapshot(partner))
        messages.success(request, f"{partner.name} ist aktiv: die Website nimmt Registrierungen an.")
        return self._back(partner, "change")

    def deactivate_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        partner = self._partner(request, object_id, write=True)
        before = partner_snapshot(partner)
        partner_update(partner=partner, frontend_active=False)
        self._audit(request, partner, "deactivate", "Website deaktiviert", before, partner_snapshot(partner))
        messages.success(request, f"{partner.name} ist deaktiviert: die Website zeigt „nicht aktiv“.")
        return self._back(partner, "change")

    def publish_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        partner = self._partner(request, object_id, write=True)
        live, published = partner.config, partner.published_version
        try:
            version = config_draft_publish(
                partner=partner, author=request.user, note=request.POST.get("note", "")[:300]
            )
        except ValidationError as exc:
            for message in _messages(exc):
                messages.error(request, message)
            return self._back(partner)
        old, new = config_change_lists(live, version.config)
        self._audit(
            request, partner, "publish", f"Konfiguration Version {version.number} veröffentlicht",
            {"published_version": published, **old}, {"published_version": version.number, **new},
        )  # fmt: skip
        messages.success(request, f"Version {version.number} ist veröffentlicht.")
        return self._back(partner)

    def discard_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        partner = self._partner(request, object_id, write=True)
        draft = config_draft(partner)
        if config_draft_discard(partner=partner):
            old, new = config_change_lists(partner.config, draft.config if draft else partner.config)
            self._audit(request, partner, "discard", "Konfigurationsentwurf verworfen", new, old)
            messages.success(request, "Der Entwurf ist verworfen.")
        return self._back(partner, "change")

    def rollback_view(self, request: HttpRequest, object_id: int, number: int) -> HttpResponse:
        partner = self._partner(request, object_id, write=True)
        live, published = partner.config, partner.published_version
        try:
            version = config_rollback(partner=partner, number=number, author=request.user)
        except ValidationError as exc:
            for message in _messages(exc):
                messages.error(request, message)
            return self._back(partner)
        old, new = config_change_lists(live, version.config)
        self._audit(
            request, partner, "rollback",
            f"Konfiguration auf Version {number} zurückgesetzt (neu: {version.number})",
            {"published_version": published, **old}, {"published_version": version.number, **new},
        )  # fmt: skip
        messages.success(request, f"Version {number} ist als Version {version.number} wieder veröffentlicht.")
        return self._back(partner)


class PlatformRecordAdmin(admin.ModelAdmin):
    """A record the platform writes (versions, the console's audit log): shown on the public
    host only, never added, changed or deleted from the admin."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request_partner(request) is None and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request_partner(request) is None and super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ConfigVersion)
class ConfigVersionAdmin(PlatformRecordAdmin):
    """Read-only: versions are written by the console's actions, never edited. The
    configuration is shown as people read it (per section, German titles, values in words),
    its JSON is the partner page's export."""

    list_display = ["partner", "number", "state", "published_at", "author", "note"]
    list_filter = ["partner"]
    readonly_fields = [
        "partner", "number", "state", "author", "created_at", "published_at", "note", "copied_from",
        "config_shown",
    ]  # fmt: skip
    fields = tuple(readonly_fields)

    @admin.display(description="Stand")
    def state(self, obj: ConfigVersion) -> str:
        return "Entwurf" if obj.is_draft else "veröffentlicht"

    @admin.display(description="Konfiguration")
    def config_shown(self, obj: ConfigVersion) -> str:
        rows = format_html_join(
            "",
            "{}",
            (
                (
                    format_html(
                        '<tr><th colspan="2" scope="rowgroup"><h3 style="margin:.6em 0 .2em">{}</h3></th></tr>',
                        title,
                    )
                    + format_html_join("", '<tr><th scope="row">{}</th><td>{}</td></tr>', fields),
                )
                for title, fields in config_summary(obj.config)
            ),
        )
        return format_html('<table class="config-summary" id="config-summary">{}</table>', rows)


# The fields of an audit entry's before/after that are no configuration path (tenants.audit's
# partner snapshot, domains, invites, backups), by name.
AUDIT_FIELDS = {
    "subdomain": "Subdomain",
    "name": "Name",
    "kind": "Art des Partners",
    "frontend_active": "Website aktiv",
    "archived_at": "Archiviert am",
    "published_version": "Veröffentlichte Version",
    "domains": "Domains",
    "domain": "Domain",
    "is_primary": "Hauptdomain",
    "verified": "Bestätigt",
    "result": "Ergebnis der Prüfung",
    "email": "E-Mail-Adresse",
    "role": "Rolle",
    "path": "Datei",
    "size": "Größe",
    "files": "Mediendateien",
    "from": "Gesichert von",
    "skipped": "Übersprungen",
    "schema_name": "Datenbankschema",
    "dump": "Schema-Dump",
}
AUDIT_ROLES = {"partner_admin": "Partner-Admin", "back_office": "Backoffice", "viewer": "Lesezugriff"}


def _audit_value(key: str, value: Any) -> str:
    """A value of an audit entry's before/after in words."""
    if value is None or value == "" or value == []:
        return "–"
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if key == "kind":
        return KIND_LABELS.get(str(value), str(value))
    if key == "role":
        return AUDIT_ROLES.get(str(value), str(value))
    if key == "size" and isinstance(value, int):
        return f"{value / 1e6:.1f} MB".replace(".", ",")
    if key == "archived_at" and isinstance(value, str):
        try:
            return f"{timezone.localtime(datetime.fromisoformat(value)):%d.%m.%Y %H:%M}"
        except ValueError:
            return value
    if isinstance(value, list):
        return ", ".join(_audit_value(key, item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{name}: {_audit_value(name, item)}" for name, item in value.items())
    return str(value)


def audit_change_sections(values: dict[str, Any] | None) -> list[tuple[str, list[tuple[str, str]]]]:
    """An audit entry's before or after as sections of (field, value in words): the partner's own
    fields first, then the configuration per section of the form (a whole one as the version
    page shows it, changed fields by their German titles)."""
    if not values:
        return []
    config = values.get("config") if isinstance(values.get("config"), dict) else None
    changes, rest = config_changes_summary({k: v for k, v in values.items() if k != "config"})
    general = [(AUDIT_FIELDS.get(key, key), _audit_value(key, value)) for key, value in rest.items()]
    sections = [("Allgemein", general)] if general else []
    return sections + changes + (config_summary(config) if config is not None else [])


def audit_change_table(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """Before and after side by side, per section: the configuration-version page's table with
    a column for each side the entry has."""
    sides = [
        (title, audit_change_sections(values)) for title, values in (("Vorher", before), ("Nachher", after))
    ]
    sides = [(title, sections) for title, sections in sides if sections]
    if not sides:
        return "–"
    merged: dict[str, dict[str, list[str]]] = {}
    for index, (_, sections) in enumerate(sides):
        for section, rows in sections:
            for label, value in rows:
                cells = merged.setdefault(section, {}).setdefault(label, ["–"] * len(sides))
                cells[index] = value
    head = format_html_join("", '<th scope="col">{}</th>', ((title,) for title, _ in sides))
    body = format_html_join(
        "",
        "{}",
        (
            (
                format_html(
                    '<tr><th colspan="{}" scope="rowgroup"><h3 style="margin:.6em 0 .2em">{}</h3></th></tr>',
                    len(sides) + 1,
                    section,
                )
                + format_html_join(
                    "",
                    '<tr><th scope="row">{}</th>{}</tr>',
                    (
                        (label, format_html_join("", "<td>{}</td>", ((cell,) for cell in cells)))
                        for label, cells in rows.items()
                    ),
                ),
            )
            for section, rows in merged.items()
        ),
    )
    return format_html(
        '<table class="config-summary" id="audit-changes"><thead><tr><th scope="col">Feld</th>{}</tr></thead>'
        "<tbody>{}</tbody></table>",
        head,
        body,
    )


class AuditActionFilter(admin.SimpleListFilter):
    title = "Aktion"
    parameter_name = "action"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(AUDIT_ACTIONS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(action=value) if value else queryset


@admin.register(ConsoleAuditEntry)
class ConsoleAuditEntryAdmin(PlatformRecordAdmin):
    """The console's audit log: read-only, never edited or deleted from the admin. Before and
    after are shown as people read them: per section, German titles, values in words."""

    list_display = ["created_at", "actor_label", "action_shown", "partner_label", "summary"]
    list_filter = [AuditActionFilter]
    search_fields = ["partner_label", "actor_label", "summary"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "created_at",
        "actor_label",
        "action_shown",
        "partner_label",
        "summary",
        "changes_shown",
    ]
    fields = tuple(readonly_fields)

    @admin.display(description="Aktion", ordering="action")
    def action_shown(self, obj: ConsoleAuditEntry) -> str:
        return AUDIT_ACTIONS.get(obj.action, obj.action)

    @admin.display(description="Änderung")
    def changes_shown(self, obj: ConsoleAuditEntry) -> str:
        return audit_change_table(obj.before, obj.after)

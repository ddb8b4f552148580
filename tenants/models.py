from __future__ import annotations

import contextlib
import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models, transaction
from django.utils import timezone
from django_tenants.models import DomainMixin, TenantMixin

from tenants.config_rules import config_clean
from tenants.directory import directory
from tenants.domain_rules import DOMAIN_TAKEN, custom_domain_name, own_host

SUBDOMAIN_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$"
SUBDOMAIN_MESSAGE = "Use letters, digits and hyphens only (not at the start or end), at most 63 characters."
SUBDOMAIN_EXISTS = "Partner with this Subdomain already exists"


class PartnerKind(models.TextChoices):
    STANDARD = "standard", "Standard"
    UTILITY = "utility", "Energy utility"
    WALLBOX = "wallbox", "Wallbox maker"


def domain_token_new() -> str:
    return "thg-verify=" + secrets.token_urlsafe(24)


class Partner(TenantMixin):
    # Annotated by hand: TenantMixin comes untyped, so the Django plugin cannot infer them.
    subdomain: models.CharField[str, str] = models.CharField(
        "Subdomain",
        max_length=63,
        unique=True,
        validators=[RegexValidator(SUBDOMAIN_PATTERN, SUBDOMAIN_MESSAGE)],
        error_messages={"unique": SUBDOMAIN_EXISTS},
    )
    name: models.CharField[str, str] = models.CharField(max_length=200)
    kind: models.CharField[str, str] = models.CharField(
        max_length=16, choices=PartnerKind.choices, default=PartnerKind.STANDARD
    )
    frontend_active: models.BooleanField[bool, bool] = models.BooleanField(default=True)
    # The normalised configuration (common.partner_config), every default filled in.
    config = models.JSONField(default=dict, blank=True)
    # The number of the published ConfigVersion whose configuration `config` holds.
    published_version: models.PositiveIntegerField[int, int] = models.PositiveIntegerField(
        default=0, editable=False
    )
    # Bumped on every save: keys the cached config response and its ETag.
    config_version: models.PositiveIntegerField[int, int] = models.PositiveIntegerField(
        default=1, editable=False
    )
    created_at: models.DateTimeField[Any, Any] = models.DateTimeField(auto_now_add=True)
    updated_at: models.DateTimeField[Any, Any] = models.DateTimeField(auto_now=True)
    # What the TXT record `_thg-verify.{domain}` must hold before a custom domain is served.
    domain_token: models.CharField[str, str] = models.CharField(
        max_length=64, default=domain_token_new, editable=False
    )
    # Set when the partner was archived ("deleted" in the console): site off, data kept.
    archived_at: models.DateTimeField[Any, Any] = models.DateTimeField(null=True, blank=True, editable=False)

    # Schemas are cloned from the template by tenants.services.partner_provision.
    auto_create_schema = False
    # Never dropped with the row: deleting in the console archives (tenants.services), and
    # `manage.py partner_purge` drops the schema itself after a pg_dump.
    auto_drop_schema = False

    class Meta:
        ordering = ["subdomain"]

    def __str__(self) -> str:
        return f"{self.name} ({self.subdomain})"

    @property
    def status(self) -> str:
        if self.archived_at is not None:
            return "archived"
        return "active" if self.frontend_active else "inactive"

    def primary_domain(self) -> str:
        """The host every mailed link points at: the primary verified Domain, else the oldest
        verified one (a pending custom domain is not served, so no link may point at it)."""
        domain = (
            self.domains.filter(verified_at__isnull=False)
            .order_by("-is_primary", "pk")
            .values_list("domain", flat=True)
            .first()
        )
        return domain or f"{self.subdomain}.{settings.BASE_DOMAIN}"

    def clean(self) -> None:
        """Refuse an invalid configuration with one message per field; store it normalised
        (every default filled in, HTML sanitised)."""
        self.config = config_clean(self.config)

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            self.config_version += 1
            update_fields = kwargs.get("update_fields")
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "config_version", "updated_at"}
        super().save(*args, **kwargs)
        transaction.on_commit(directory.invalidate)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        result = super().delete(*args, **kwargs)
        transaction.on_commit(directory.invalidate)
        return result


def is_local_host(host: str) -> bool:
    """A developer's host (`make run`, tests): plain http is allowed there and only there."""
    host = host.lower().rstrip(".")
    return host == "localhost" or host.endswith(".localhost")


class Domain(DomainMixin):
    domain: str
    tenant: Partner
    # Custom domains are served once DNS proves the partner controls them (tenants.domains);
    # the partner's own {sub}.{BASE_DOMAIN} is ours and verified when created.
    verified_at: models.DateTimeField[Any, Any] = models.DateTimeField(null=True, blank=True, editable=False)
    checked_at: models.DateTimeField[Any, Any] = models.DateTimeField(null=True, blank=True, editable=False)
    check_result: models.CharField[str, str] = models.CharField(max_length=300, blank=True, editable=False)

    def is_platform_host(self) -> bool:
        """The partner's own {sub}.{BASE_DOMAIN}: ours, nothing to prove."""
        return self.domain == own_host(self.tenant.subdomain)

    @classmethod
    def name_taken(cls, name: str, *, exclude_pk: int | None = None) -> bool:
        """Whether another row holds the (normalised) name already."""
        return cls.objects.filter(domain=name).exclude(pk=exclude_pk).exists()

    def clean(self) -> None:
        """A custom domain: a valid name, not the platform's, not taken in any spelling
        (tenants.domain_rules); the form then shows the German reason at the field."""
        own = own_host(self.tenant.subdomain) if self.tenant_id is not None else None
        try:
            name = custom_domain_name(self.domain or "", own=own)
        except ValidationError as exc:
            raise ValidationError({"domain": exc.messages}) from None
        if Domain.name_taken(name, exclude_pk=self.pk):
            raise ValidationError({"domain": [DOMAIN_TAKEN]})
        self.domain = name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.domain = self.domain.strip().lower().rstrip(".")
        with contextlib.suppress(UnicodeError):  # refused by clean() where a person typed it
            self.domain = self.domain.encode("idna").decode("ascii")
        if self.pk is not None:
            previous = Domain.objects.filter(pk=self.pk).values_list("domain", flat=True).first()
            if previous is not None and previous != self.domain:
                # A new name is a new claim: verified again before it is served.
                self.verified_at = None
                self.check_result = ""
        if self.verified_at is None and self.is_platform_host():
            self.verified_at = timezone.now()
        super().save(*args, **kwargs)
        transaction.on_commit(directory.invalidate)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        result = super().delete(*args, **kwargs)
        transaction.on_commit(directory.invalidate)
        return result


class ConfigVersion(models.Model):
    """A partner's configuration as a draft (published_at empty, no number yet) or as a
    published version (numbered 1, 2, ... per partner). Published versions are never changed:
    a rollback publishes a copy of an old one as the next number."""

    partner = models.ForeignKey(
        Partner, on_delete=models.CASCADE, related_name="config_versions", verbose_name="Partner"
    )
    number: models.PositiveIntegerField[int | None, int | None] = models.PositiveIntegerField(
        "Nummer", null=True, blank=True
    )
    config = models.JSONField("Konfiguration")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name="Autor",
    )
    created_at: models.DateTimeField[Any, Any] = models.DateTimeField("Angelegt am", auto_now_add=True)
    updated_at: models.DateTimeField[Any, Any] = models.DateTimeField("Geändert am", auto_now=True)
    published_at: models.DateTimeField[Any, Any] = models.DateTimeField(
        "Veröffentlicht am", null=True, blank=True
    )
    note: models.CharField[str, str] = models.CharField("Notiz", max_length=300, blank=True)
    # For a rollback: the version it copies.
    copied_from: models.PositiveIntegerField[int | None, int | None] = models.PositiveIntegerField(
        "Kopie von Version", null=True, blank=True
    )

    class Meta:
        verbose_name = "Konfigurationsversion"
        verbose_name_plural = "Konfigurationsversionen"
        ordering = ["partner", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["partner", "number"], name="config_version_number_unique"),
            # One open draft per partner: every edit in the console lands in it.
            models.UniqueConstraint(
                fields=["partner"], condition=models.Q(published_at__isnull=True), name="config_one_draft"
            ),
            models.CheckConstraint(
                condition=models.Q(published_at__isnull=True, number__isnull=True)
                | models.Q(published_at__isnull=False, number__isnull=False),
                name="config_version_numbered_when_published",
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.partner.subdomain} v{self.number}" if self.number else f"{self.partner.subdomain} Entwurf"
        )

    @property
    def is_draft(self) -> bool:
        return self.published_at is None


# The console's audit actions (tenants.audit's callers) by name: the log's list, filter and entries.
CONSOLE_AUDIT_ACTIONS = {
    "create": "Partner angelegt",
    "change": "Partner geändert",
    "draft": "Entwurf gespeichert",
    "discard": "Entwurf verworfen",
    "publish": "Veröffentlicht",
    "rollback": "Zurückgesetzt",
    "archive": "Archiviert",
    "unarchive": "Aus dem Archiv geholt",
    "purge": "Endgültig gelöscht",
    "activate": "Website aktiviert",
    "deactivate": "Website deaktiviert",
    "preview": "Vorschau-Link",
    "asset": "Markenbilder",
    "invite": "Einladung",
    "domain_add": "Domain hinzugefügt",
    "domain_change": "Domain geändert",
    "domain_delete": "Domain entfernt",
    "domain_verify": "Domain geprüft",
    "backup": "Sicherung",
    "restore": "Wiederherstellung",
}


class ConsoleAuditEntry(models.Model):
    """One write of the onboarding console (or of a partner command) by platform staff: who,
    what, before/after, when. Public schema: the partner schemas' own audit logs
    (staff.AuditEntry) record the partner area; these writes happen on the public host, and a
    purged partner's entries must outlive its schema (partner kept as label)."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_label: models.CharField[str, str] = models.CharField("Wer", max_length=300, blank=True)
    action: models.CharField[str, str] = models.CharField("Aktion", max_length=40)
    partner = models.ForeignKey(
        Partner, null=True, blank=True, on_delete=models.SET_NULL, related_name="console_audit"
    )
    partner_label: models.CharField[str, str] = models.CharField("Partner", max_length=63, blank=True)
    summary: models.CharField[str, str] = models.CharField("Was", max_length=300, blank=True)
    before: models.JSONField[Any, Any] = models.JSONField("Vorher", null=True, blank=True)
    after: models.JSONField[Any, Any] = models.JSONField("Nachher", null=True, blank=True)
    created_at: models.DateTimeField[Any, Any] = models.DateTimeField(
        "Wann", auto_now_add=True, db_index=True
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "Protokolleintrag der Konsole"
        verbose_name_plural = "Protokoll der Konsole"
        indexes = [models.Index(fields=["partner_label", "-created_at"], name="console_audit_partner")]

    def __str__(self) -> str:
        action = CONSOLE_AUDIT_ACTIONS.get(self.action, self.action)
        return f"{self.created_at:%d.%m.%Y %H:%M} {self.actor_label}: {action} {self.partner_label}"


from tenants.quota_years import QuotaYear  # noqa: E402,F401  (the quota-year calendar's model)

"""Partner writes: provisioning, configuration updates and the template schema."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection, transaction
from django_tenants.utils import schema_exists

from tenants.cloning import template_clone
from tenants.config_schema import ConfigErrors, config_normalise
from tenants.models import Domain, Partner, PartnerKind
from themes.contrast import contrast_errors

logger = logging.getLogger(__name__)

RESERVED_SUBDOMAINS = {"www", "admin", "api", "static", "media", "public", "portal", "mail"}


def partner_schema_name(subdomain: str) -> str:
    return "p_" + subdomain.lower().replace("-", "_")


def partner_host(subdomain: str) -> str:
    return f"{subdomain.lower()}.{settings.BASE_DOMAIN}"


def config_check(config: Any) -> dict[str, Any]:
    """Validate and normalise a configuration, then check its colours' contrast (WCAG 2.2 AA,
    themes.contrast); raise ConfigErrors keyed by field path ('colors.button')."""
    normalised = config_normalise(config)
    errors = contrast_errors(normalised)
    if errors:
        raise ConfigErrors(errors)
    return normalised


def config_clean(config: Any) -> dict[str, Any]:
    """Validate and normalise a configuration, raising a ValidationError per field path."""
    try:
        return config_check(config)
    except ConfigErrors as exc:
        raise ValidationError(
            {
                "config": [
                    f"{path}: {message}" for path, messages in exc.errors.items() for message in messages
                ]
            }
        ) from None


def template_schema_migrate(*, verbosity: int = 0) -> None:
    """Create the template schema if needed and apply every tenant migration to it.

    New partners are cloned from it, so it must be migrated before any provisioning; the
    migrate step (`manage.py migrate_all`) calls this.
    """
    template = settings.TENANT_TEMPLATE_SCHEMA
    if not schema_exists(template):
        with connection.cursor() as cursor:
            cursor.execute(f'CREATE SCHEMA "{template}"')
    call_command("migrate_schemas", schema_name=template, tenant=True, interactive=False, verbosity=verbosity)


def partner_provision(
    *,
    subdomain: str,
    name: str,
    kind: str = PartnerKind.STANDARD,
    config: dict[str, Any] | None = None,
    frontend_active: bool = True,
    custom_domain: str | None = None,
) -> Partner:
    """Create a partner: row, schema cloned from the migrated template, and its domains."""
    subdomain = subdomain.strip().lower()
    if subdomain in RESERVED_SUBDOMAINS:
        raise ValidationError({"subdomain": ["This subdomain is reserved."]})
    partner = Partner(
        subdomain=subdomain,
        name=name.strip(),
        kind=kind,
        frontend_active=frontend_active,
        schema_name=partner_schema_name(subdomain),
        config=config or {},
    )
    partner.full_clean()  # Partner.clean validates and normalises the configuration
    domains = [partner_host(subdomain)]
    if custom_domain:
        domains.append(custom_domain.strip().lower())
    for domain in domains:
        if Domain.objects.filter(domain=domain).exists():
            raise ValidationError({"domain": [f"The domain {domain} is already in use."]})

    template = settings.TENANT_TEMPLATE_SCHEMA
    if not schema_exists(template):
        raise RuntimeError(f"Template schema {template!r} is missing: run `manage.py migrate_all` first")
    with transaction.atomic():
        partner.save()
        # The copy carries the template's migration records: no migrate run is needed.
        template_clone(template, partner.schema_name)
        for index, domain in enumerate(domains):
            Domain.objects.create(domain=domain, tenant=partner, is_primary=index == 0)
    logger.info("partner provisioned", extra={"partner": partner.schema_name})
    return partner


def partner_update(
    *,
    partner: Partner,
    name: str | None = None,
    kind: str | None = None,
    config: dict[str, Any] | None = None,
    frontend_active: bool | None = None,
) -> Partner:
    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = name.strip()
    if kind is not None:
        changes["kind"] = kind
    if config is not None:
        changes["config"] = config_clean(config)
    if frontend_active is not None:
        changes["frontend_active"] = frontend_active
    changes = {field: value for field, value in changes.items() if getattr(partner, field) != value}
    if not changes:
        return partner
    for field, value in changes.items():
        setattr(partner, field, value)
    partner.full_clean(exclude=["schema_name", "subdomain"])
    with transaction.atomic():
        partner.save(update_fields=list(changes))
    return partner

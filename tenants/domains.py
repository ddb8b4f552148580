"""Custom domain verification: a custom domain is served once the TXT record
`_thg-verify.{domain}` holds the partner's token (Partner.domain_token).

Checked with dnspython against the resolvers of DOMAIN_VERIFY_NAMESERVERS (comma list of
`ip` or `ip:port`; empty: the system's), by the periodic huey task in tenants.tasks and by the
console's "Jetzt prüfen". A domain that once verified stays verified (removing the record
later does not take a live site down); renaming a domain starts over (tenants.models.Domain).
"""

from __future__ import annotations

import logging
from typing import Any

import dns.exception
import dns.resolver
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from tenants.domain_rules import DOMAIN_TAKEN, custom_domain_name, own_host
from tenants.models import Domain

logger = logging.getLogger(__name__)

RECORD_PREFIX = "_thg-verify."


def custom_domain_check(value: str, *, partner: Any = None, exclude_pk: int | None = None) -> str:
    """A custom domain as it will be stored, or ValidationError with the console's German text:
    not a valid name, the platform's own, or another partner's (whatever its spelling)."""
    name = custom_domain_name(value, own=own_host(partner.subdomain) if partner is not None else None)
    if Domain.name_taken(name, exclude_pk=exclude_pk):
        raise ValidationError(DOMAIN_TAKEN)
    return name


def verification_name(domain: str) -> str:
    return f"{RECORD_PREFIX}{domain.rstrip('.')}"


def _resolver() -> dns.resolver.Resolver:
    entries = [part.strip() for part in str(settings.DOMAIN_VERIFY_NAMESERVERS).split(",") if part.strip()]
    if not entries:
        return dns.resolver.Resolver()
    resolver = dns.resolver.Resolver(configure=False)
    servers: list[str] = []
    for entry in entries:
        host, _, port = entry.rpartition(":") if entry.count(":") == 1 else ("", "", "")
        servers.append(host or entry)
        if port:
            resolver.port = int(port)
    resolver.nameservers = servers
    resolver.lifetime = 5.0
    return resolver


def txt_values(name: str) -> list[str]:
    try:
        answer = _resolver().resolve(name, "TXT")
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    return ["".join(part.decode("utf-8", "replace") for part in record.strings) for record in answer]


def domain_verify(*, domain: Domain) -> bool:
    """Look the record up once; store the result; True when the domain is (now) verified."""
    if domain.verified_at is not None:
        return True
    name = verification_name(domain.domain)
    token = domain.tenant.domain_token
    found = False
    try:
        values = txt_values(name)
    except dns.exception.DNSException as exc:
        result = f"DNS-Abfrage fehlgeschlagen ({exc.__class__.__name__})."
    else:
        found = token in values
        if found:
            result = "Bestätigt."
        elif values:
            result = f"TXT-Eintrag {name} gefunden, aber ohne den Token des Partners."
        else:
            result = f"Kein TXT-Eintrag {name}."
    with transaction.atomic():
        domain.checked_at = timezone.now()
        domain.check_result = result
        fields = ["checked_at", "check_result"]
        if found:
            domain.verified_at = domain.checked_at
            fields.append("verified_at")
        domain.save(update_fields=fields)  # Domain.save tells every process's directory
    logger.info("domain checked", extra={"domain": domain.domain, "verified": domain.verified_at is not None})
    return domain.verified_at is not None


def pending_domains_verify() -> dict[str, bool]:
    """Every pending custom domain of a partner that is not archived, once."""
    pending = Domain.objects.filter(
        verified_at__isnull=True, tenant__archived_at__isnull=True
    ).select_related("tenant")
    return {domain.domain: domain_verify(domain=domain) for domain in pending}

"""The rules of a custom domain's name, without the database: what is stored (normalised,
IDNA), what is refused (not a host name; the platform's own names), with the console's German
texts. tenants.models.Domain.clean and tenants.domains.custom_domain_check both apply them and
add the one check that needs the table: a name another partner holds already."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError

DOMAIN_INVALID = "Bitte geben Sie einen gültigen Domainnamen ein (z. B. thg.autohaus.de)."
DOMAIN_PLATFORM = "Diese Domain gehört zur Plattform und kann keine Domain eines Partners sein."
DOMAIN_TAKEN = "Diese Domain ist schon vergeben."
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def domain_normalise(value: str) -> str:
    """A host name as it is stored and looked up: lower case, without a trailing dot, IDNA
    (ASCII, "müller.de" -> "xn--mller-kva.de"). ValidationError for anything else."""
    name = value.strip().rstrip(".").lower()
    try:
        name = name.encode("idna").decode("ascii")
    except UnicodeError:
        raise ValidationError(DOMAIN_INVALID) from None
    if len(name) > 253 or not all(_LABEL.match(label) for label in name.split(".")):
        raise ValidationError(DOMAIN_INVALID)
    return name


def platform_host(name: str, *, own: str | None = None) -> bool:
    """Whether a (normalised) name is the platform's: localhost or a name under it, a public
    host, the base domain or any name under it (another partner's {sub}.{BASE_DOMAIN}), except
    the partner's own `own`."""
    if own is not None and name == own:
        return False
    base = settings.BASE_DOMAIN.lower().rstrip(".")
    public = {host.lower().rstrip(".") for host in settings.PUBLIC_HOSTS} | {"localhost", base}
    return name in public or name.endswith((f".{base}", ".localhost"))


def custom_domain_name(value: str, *, own: str | None = None) -> str:
    """A custom domain as it will be stored, or ValidationError: not a valid name, or the
    platform's own (`own`: the partner's {sub}.{BASE_DOMAIN}, which is its own)."""
    name = domain_normalise(value)
    if platform_host(name, own=own):
        raise ValidationError(DOMAIN_PLATFORM)
    if "." not in name:
        raise ValidationError(DOMAIN_INVALID)
    return name


def own_host(subdomain: str) -> str:
    """A partner's own {sub}.{BASE_DOMAIN}."""
    return f"{subdomain}.{settings.BASE_DOMAIN}".lower()

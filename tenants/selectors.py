"""Partner reads."""

from __future__ import annotations

import datetime
import gzip
import json
import threading
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils import timezone

from common.partner_config import PartnerConfig, config_public
from tenants.models import ConfigVersion, Partner
from tenants.quota_years import calendar_stamp, open_years, open_years_payload
from themes.compiler import COMPILER_VERSION, theme_compile, theme_compile_json

_payload_lock = threading.Lock()
# partner id -> ((config version, day, calendar stamp), etag, body, gzipped body). Bounded by the number of partners a
# process serves; an old version is replaced when the partner changes.
_payloads: dict[int, tuple[tuple[int, datetime.date, str], str, bytes, bytes]] = {}


def _public_fields(config: dict[str, Any]) -> dict[str, Any]:
    """The configuration's public fields, each one there: a configuration saved before a field
    existed answers its default (the web app's types, made from tenants.schemas, say every field
    is sent). The theme compiler validates the stored configuration the same way."""
    return config_public(PartnerConfig.model_validate(config).model_dump(mode="json"))


def _config_fields(partner: Partner, today: datetime.date | None = None) -> dict[str, Any]:
    fields = {
        **_public_fields(partner.config),
        "frontend_active": partner.frontend_active,
        "subdomain": partner.subdomain,
        "name": partner.name,
        "kind": partner.kind,
    }
    return _with_open_years(fields, today or timezone.localdate())


def _with_open_years(fields: dict[str, Any], today: datetime.date) -> dict[str, Any]:
    """The year options as they are on the day (tenants.quota_years): `current_year` is false
    after the running year's cut-off, `next_year` true once it is open and offered; the
    `quota_years` block says until when each open year is taken (and the days left near the end)."""
    config = PartnerConfig.model_validate({"qa_create_choices": fields.get("qa_create_choices", {})})
    years = open_years(today, config)
    choices = {
        **fields.get("qa_create_choices", {}),
        "current_year": today.year in years,
        "next_year": today.year + 1 in years,
    }
    return {**fields, "qa_create_choices": choices, "quota_years": open_years_payload(today, config)}


def partner_config(partner: Partner) -> dict[str, Any]:
    """The configuration answer of `GET /api/configs/{subdomain}/`."""
    return {**_config_fields(partner), "theme": theme_compile(partner.config, partner.kind)}


def partner_preview_config(partner: Partner, config: dict[str, Any]) -> dict[str, Any]:
    """The config call's answer for a preview: the given configuration, the site shown live."""
    # Public fields only, as the live call: the payout account never leaves the server.
    fields = {**_config_fields(partner), **_public_fields(config), "frontend_active": True}
    fields = _with_open_years(fields, timezone.localdate())
    return {**fields, "theme": theme_compile(config, partner.kind)}


def partner_config_payload(partner: Partner, *, gzipped: bool = False) -> tuple[str, bytes]:
    """The serialised answer and its ETag, built once per partner, configuration version and
    day (the open quota years change with the date and the calendar: both are in the key and
    the ETag); gzipped: the same compressed (once, with the answer; about a quarter of its size)."""
    today = timezone.localdate()
    version = (partner.config_version, today, calendar_stamp())
    cached = _payloads.get(partner.pk)
    if cached is not None and cached[0] == version:
        return cached[1], (cached[3] if gzipped else cached[2])
    fields = json.dumps(_config_fields(partner, today), ensure_ascii=False, separators=(",", ":"))
    # The compiled bundle is spliced in as the cached JSON text it already is.
    body = f'{fields[:-1]},"theme":{theme_compile_json(partner.config, partner.kind)}}}'.encode()
    # The published version names the configuration; config_version moves with every other
    # field of the answer (name, frontend_active) too.
    etag = (
        f'"{partner.pk}-v{partner.published_version}-{partner.config_version}-{COMPILER_VERSION}'
        f'-{today:%Y%m%d}-{version[2]}"'
    )
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    with _payload_lock:
        _payloads[partner.pk] = (version, etag, body, packed)
    return etag, packed if gzipped else body


def config_versions(partner: Partner) -> list[ConfigVersion]:
    """Published versions, newest first."""
    return list(
        ConfigVersion.objects.filter(partner=partner, number__isnull=False)
        .select_related("author")
        .order_by("-number")
    )


@dataclass(frozen=True)
class ConfigChange:
    path: str  # 'colors.button', 'pages.faq.0.question'
    before: str | None  # None: the key was added
    after: str | None  # None: the key was removed


DIFF_VALUE_CHARS = 120


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        items: dict[str, Any] = {}
        for key, inner in value.items():
            items.update(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return items
    if isinstance(value, list) and value:
        items = {}
        for index, inner in enumerate(value):
            items.update(_flatten(inner, f"{prefix}.{index}"))
        return items
    return {prefix: value}


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text.startswith("data:") and len(text) > 60:
        return f"{text[:40]}… ({len(text):,} Zeichen)".replace(",", ".")
    return text if len(text) <= DIFF_VALUE_CHARS else text[: DIFF_VALUE_CHARS - 1] + "…"


def config_diff(before: dict[str, Any], after: dict[str, Any]) -> list[ConfigChange]:
    """What changed between two configurations, one line per leaf field, in path order."""
    old, new = _flatten(before), _flatten(after)
    changes = []
    for path in sorted(old.keys() | new.keys()):
        if path in old and path in new and old[path] == new[path]:
            continue
        changes.append(
            ConfigChange(
                path=path,
                before=_shown(old[path]) if path in old else None,
                after=_shown(new[path]) if path in new else None,
            )
        )
    return changes


def partner_registration_counts(schema_names: list[str]) -> dict[str, int]:
    """Vehicle registrations per partner schema, in one query (a schema that is gone, e.g.
    purged, is left out)."""
    if not schema_names:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_schema FROM information_schema.tables "
            "WHERE table_name = 'registrations_bevregistration' AND table_schema = ANY(%s)",
            [schema_names],
        )
        present = [row[0] for row in cursor.fetchall()]
        if not present:
            return {}
        # Schema names come from the catalogue just read, quoted as identifiers.
        query = " UNION ALL ".join(
            f"SELECT %s, count(*) FROM {connection.ops.quote_name(schema)}.registrations_bevregistration"  # noqa: S608
            for schema in present
        )
        cursor.execute(query, present)
        return {schema: int(count) for schema, count in cursor.fetchall()}

"""Partner writes: provisioning, configuration updates and the template schema."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from django_tenants.utils import schema_exists

from tenants.cloning import pg_dump_binary, private_file, template_clone
from tenants.config_rules import config_clean
from tenants.domains import custom_domain_check
from tenants.models import ConfigVersion, Domain, Partner, PartnerKind

logger = logging.getLogger(__name__)

RESERVED_SUBDOMAINS = {"www", "admin", "api", "static", "media", "public", "portal", "mail"}


def partner_schema_name(subdomain: str) -> str:
    return "p_" + subdomain.lower().replace("-", "_")


def partner_host(subdomain: str) -> str:
    return f"{subdomain.lower()}.{settings.BASE_DOMAIN}"


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
    custom_domain_verified: bool = False,
    author: Any = None,
    note: str = "",
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
        try:
            domains.append(custom_domain_check(custom_domain))
        except ValidationError as exc:
            raise ValidationError({"custom_domain": exc.messages}) from None
    for domain in domains:
        if Domain.objects.filter(domain=domain).exists():
            raise ValidationError({"domain": [f"The domain {domain} is already in use."]})

    template = settings.TENANT_TEMPLATE_SCHEMA
    if not schema_exists(template):
        raise RuntimeError(f"Template schema {template!r} is missing: run `manage.py migrate_all` first")
    with transaction.atomic():
        partner.published_version = 1
        partner.save()
        ConfigVersion.objects.create(
            partner=partner,
            number=1,
            config=partner.config,
            author=author,
            published_at=timezone.now(),
            note=note or "Erste Konfiguration",
        )
        # The copy carries the template's migration records: no migrate run is needed.
        template_clone(template, partner.schema_name)
        for index, domain in enumerate(domains):
            # A custom domain waits for its DNS proof (tenants.domains) unless the operator
            # vouches for it (create_partner --domain-verified).
            verified = timezone.now() if index > 0 and custom_domain_verified else None
            Domain.objects.create(domain=domain, tenant=partner, is_primary=index == 0, verified_at=verified)
    logger.info("partner provisioned", extra={"partner": partner.schema_name})
    return partner


def partner_update(
    *,
    partner: Partner,
    name: str | None = None,
    kind: str | None = None,
    config: dict[str, Any] | None = None,
    frontend_active: bool | None = None,
    author: Any = None,
    note: str = "",
) -> Partner:
    """Change a partner's fields; a changed configuration is published at once as the next
    version (the command line and seed_demo; the console saves drafts instead)."""
    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = name.strip()
    if kind is not None:
        changes["kind"] = kind
    if frontend_active is not None:
        changes["frontend_active"] = frontend_active
    changes = {field: value for field, value in changes.items() if getattr(partner, field) != value}
    if config is not None:
        cleaned = config_clean(config)
        if cleaned != partner.config:
            changes["config"] = cleaned
    if not changes:
        return partner
    new_config = changes.pop("config", None)
    for field, value in changes.items():
        setattr(partner, field, value)
    if new_config is not None:
        partner.config = new_config  # Partner.clean checks the configuration it will have
    partner.full_clean(exclude=["schema_name", "subdomain", "config"])
    with transaction.atomic():
        if changes:
            partner.save(update_fields=list(changes))
        if new_config is not None:
            _version_publish(partner=partner, config=new_config, author=author, note=note)
    return partner


# --- Configuration drafts, versions and rollback -------------------------------------------


def _author(user: Any) -> Any:
    return user if user is not None and getattr(user, "pk", None) is not None else None


def _version_publish(
    *, partner: Partner, config: dict[str, Any], author: Any, note: str, copied_from: int | None = None
) -> ConfigVersion:
    """Number and publish a configuration: a new version row, then the partner's live config
    (which bumps config_version, the cached config answer and its ETag). Inside a transaction."""
    locked = Partner.objects.select_for_update().get(pk=partner.pk)
    number = (
        ConfigVersion.objects.filter(partner=locked, number__isnull=False).aggregate(n=Max("number"))["n"]
        or 0
    ) + 1
    version = ConfigVersion.objects.create(
        partner=partner,
        number=number,
        config=config,
        author=_author(author),
        published_at=timezone.now(),
        note=note,
        copied_from=copied_from,
    )
    partner.config = config
    partner.published_version = number
    partner.config_version = locked.config_version
    partner.save(update_fields=["config", "published_version"])
    return version


def config_draft(partner: Partner) -> ConfigVersion | None:
    return ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).first()


def config_draft_save(*, partner: Partner, config: Any, author: Any, note: str = "") -> ConfigVersion:
    """Keep an edit as the partner's draft (validated like a published one, contrast included);
    the live site does not change until it is published."""
    cleaned = config_clean(config)
    with transaction.atomic():
        Partner.objects.select_for_update().get(pk=partner.pk)
        draft = config_draft(partner)
        if draft is None:
            draft = ConfigVersion.objects.create(
                partner=partner, config=cleaned, author=_author(author), note=note
            )
        else:
            draft.config = cleaned
            draft.author = _author(author)
            draft.note = note or draft.note
            draft.save(update_fields=["config", "author", "note", "updated_at"])
    return draft


def config_draft_publish(*, partner: Partner, author: Any, note: str = "") -> ConfigVersion:
    """Publish the open draft as the next version. Validated again: the gate may have grown
    since the draft was saved."""
    with transaction.atomic():
        draft = (
            ConfigVersion.objects.select_for_update()
            .filter(partner=partner, published_at__isnull=True)
            .first()
        )
        if draft is None:
            raise ValidationError({"config": ["Es gibt keinen Entwurf zum Veröffentlichen."]})
        cleaned = config_clean(draft.config)
        draft.delete()
        return _version_publish(partner=partner, config=cleaned, author=author, note=note or draft.note)


def config_draft_discard(*, partner: Partner) -> bool:
    deleted, _ = ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).delete()
    return deleted > 0


def config_rollback(*, partner: Partner, number: int, author: Any) -> ConfigVersion:
    """Publish a copy of version `number` as the next version; history is never rewritten."""
    old = ConfigVersion.objects.filter(partner=partner, number=number).first()
    if old is None:
        raise ValidationError({"config": [f"Version {number} gibt es nicht."]})
    cleaned = config_clean(old.config)
    with transaction.atomic():
        return _version_publish(
            partner=partner,
            config=cleaned,
            author=author,
            note=f"Zurückgesetzt auf Version {number}",
            copied_from=number,
        )


# --- Archive and purge --------------------------------------------------------------------


def partner_archive(*, partner: Partner) -> Partner:
    """What 'Delete' does in the console: the site goes off, the schema, its data and media,
    the domains and the configuration history stay. Undone by partner_unarchive."""
    if partner.archived_at is not None:
        return partner
    with transaction.atomic():
        partner.archived_at = timezone.now()
        partner.frontend_active = False
        partner.save(update_fields=["archived_at", "frontend_active"])
    logger.info("partner archived", extra={"partner": partner.schema_name})
    return partner


def partner_unarchive(*, partner: Partner) -> Partner:
    """Back from the archive, still inactive: the team switches the site on when ready."""
    if partner.archived_at is None:
        return partner
    with transaction.atomic():
        partner.archived_at = None
        partner.save(update_fields=["archived_at"])
    return partner


def schema_dump(*, schema_name: str, path: Path) -> Path:
    """pg_dump of one schema (custom format, restorable with pg_restore) to `path`."""
    db = connection.settings_dict
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.close(private_file(path))  # pg_dump writes into it and keeps its mode (0600)
    command = [
        pg_dump_binary(), "--schema", schema_name, "--format", "custom", "--no-owner", "--no-privileges",
        "--file", str(path), "--dbname", str(db["NAME"]), "--username", str(db["USER"] or "postgres"),
    ]  # fmt: skip
    if db.get("HOST"):
        command += ["--host", str(db["HOST"])]
    if db.get("PORT"):
        command += ["--port", str(db["PORT"])]
    env = {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}
    result = subprocess.run(command, env=env, capture_output=True, text=True)  # noqa: S603
    if result.returncode != 0 or not path.exists() or path.stat().st_size == 0:
        raise RuntimeError(f"pg_dump of {schema_name} failed: {result.stderr.strip()[:500]}")
    return path


def _media_delete(prefix: str) -> int:
    """Delete every stored file under `prefix` (the partner's media)."""
    from django.core.files.storage import default_storage

    deleted = 0

    def walk(folder: str) -> None:
        nonlocal deleted
        try:
            folders, files = default_storage.listdir(folder)
        except FileNotFoundError:
            return
        for name in files:
            default_storage.delete(f"{folder}/{name}")
            deleted += 1
        for name in folders:
            walk(f"{folder}/{name}")

    walk(prefix.rstrip("/"))
    return deleted

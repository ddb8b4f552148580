"""Per-partner backup and restore: one archive file with everything of one partner.

The archive is a tar file with
- `schema.dump`: pg_dump (custom format) of the partner's schema, taken in the same snapshot
  as the counts and the public rows below (REPEATABLE READ plus an exported snapshot);
- `public.json`: the partner's rows in the public schema: the partner, its domains, its
  configuration versions, and its entries in the double-registration registry;
- `media/...`: every stored file under the partner's prefix (scans, brand assets, exports);
- `manifest.json` (last): format, partner, the schema's applied migrations, the row count of
  every table, and the size and SHA-256 of every other member.

Restore reads the manifest first and checks every member against it before anything is
written (`backup_verify`). The schema dump is turned back into SQL by pg_restore (no
database connection), its statements are renamed to the target schema outside the COPY data
and replayed on Django's own connection, in one transaction with the public rows; the row
counts are compared with the manifest before the commit. A partner or schema that exists is
never overwritten unless `replace=True`, and then it is backed up first.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection, transaction
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django_tenants.utils import schema_context, schema_exists

from accounts.models import User
from authority.models import AuthoritySubmissionItem, DoubleRegistration, VehicleClaim
from tenants.cloning import pg_dump_binary, private_file
from tenants.models import SUBDOMAIN_PATTERN, ConfigVersion, Domain, Partner, domain_token_new
from tenants.services import (
    RESERVED_SUBDOMAINS,
    _media_delete,
    partner_archive,
    partner_host,
    partner_schema_name,
)

logger = logging.getLogger(__name__)

FORMAT = 1
MANIFEST = "manifest.json"
SCHEMA_DUMP = "schema.dump"
PUBLIC_ROWS = "public.json"
MEDIA = "media/"
CHUNK = 1024 * 1024


class BackupError(Exception):
    """A backup that cannot be written or an archive that is refused, with the reason."""


@dataclass
class BackupSummary:
    path: Path
    size: int
    counts: dict[str, int]
    files: int


@dataclass
class RestoreSummary:
    partner: Partner
    counts: dict[str, int]
    files: int
    skipped: list[str] = field(default_factory=list)
    migrated: bool = False
    # Seconds per step (verify, schema, paths, counts, public, media), for the benchmark.
    timings: dict[str, float] = field(default_factory=dict)


# --- Backup ---------------------------------------------------------------------------------


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _db_command(binary: str) -> tuple[list[str], dict[str, str]]:
    db = connection.settings_dict
    command = [binary, "--dbname", str(db["NAME"]), "--username", str(db["USER"] or "postgres")]
    if db.get("HOST"):
        command += ["--host", str(db["HOST"])]
    if db.get("PORT"):
        command += ["--port", str(db["PORT"])]
    return command, {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}


def _quote(name: str) -> str:
    return str(connection.ops.quote_name(name))


def _schema_tables(schema_name: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = %s AND table_type = 'BASE TABLE' ORDER BY table_name",
            [schema_name],
        )
        return [row[0] for row in cursor.fetchall()]


def _schema_counts(schema_name: str) -> dict[str, int]:
    tables = _schema_tables(schema_name)
    if not tables:
        return {}
    # One statement for every table: the tables' names come from the catalogue.
    query = " UNION ALL ".join(
        f"SELECT %s, count(*) FROM {_quote(schema_name)}.{_quote(table)}"  # noqa: S608
        for table in tables
    )
    with connection.cursor() as cursor:
        cursor.execute(query, tables)
        return {name: int(count) for name, count in cursor.fetchall()}


def _schema_migrations(schema_name: str) -> list[str]:
    with connection.cursor() as cursor:
        table = f"{_quote(schema_name)}.django_migrations"
        cursor.execute(f"SELECT app || '.' || name FROM {table} ORDER BY 1")  # noqa: S608
        return [row[0] for row in cursor.fetchall()]


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _public_rows(partner: Partner) -> dict[str, Any]:

    return {
        "partner": {
            "subdomain": partner.subdomain,
            "name": partner.name,
            "kind": partner.kind,
            "frontend_active": partner.frontend_active,
            "config": partner.config,
            "published_version": partner.published_version,
            "config_version": partner.config_version,
            "domain_token": partner.domain_token,
            "archived_at": _iso(partner.archived_at),
            "created_at": _iso(partner.created_at),
        },
        "domains": [
            {
                "domain": domain.domain,
                "is_primary": domain.is_primary,
                "verified_at": _iso(domain.verified_at),
                "checked_at": _iso(domain.checked_at),
                "check_result": domain.check_result,
            }
            for domain in Domain.objects.filter(tenant=partner).order_by("pk")
        ],
        "config_versions": [
            {
                "number": version.number,
                "config": version.config,
                "author": version.author.get_username() if version.author else None,
                "created_at": _iso(version.created_at),
                "published_at": _iso(version.published_at),
                "note": version.note,
                "copied_from": version.copied_from,
            }
            for version in ConfigVersion.objects.filter(partner=partner)
            .select_related("author")
            .order_by("pk")
        ],
        "vehicle_claims": [
            {
                "vin_hash": claim.vin_hash,
                "legislation_year": claim.legislation_year,
                "application_id": claim.application_id,
                "created_at": _iso(claim.created_at),
                "confirmed_at": _iso(claim.confirmed_at) if claim.confirmed_at else None,
                "submitted_at": _iso(claim.submitted_at) if claim.submitted_at else None,
            }
            for claim in VehicleClaim.objects.filter(partner=partner).order_by("pk")
        ],
        "double_registrations": [
            {
                "vin_hash": row.vin_hash,
                "legislation_year": row.legislation_year,
                "application_id": row.application_id,
                "holder_partner": row.holder_partner.subdomain,
                "holder_application_id": row.holder_application_id,
                "created_at": _iso(row.created_at),
                "status": row.status,
                "kept": row.kept,
                "decided_at": _iso(row.decided_at) if row.decided_at else None,
            }
            for row in DoubleRegistration.objects.filter(partner=partner).select_related("holder_partner")
        ],
    }


def _media_names(prefix: str) -> Iterator[str]:
    """Every stored name under `prefix` ('p_x/'), sorted, through the storage layer."""

    def walk(folder: str) -> Iterator[str]:
        try:
            folders, files = default_storage.listdir(folder)
        except FileNotFoundError:
            return
        for name in sorted(files):
            yield f"{folder}/{name}"
        for name in sorted(folders):
            yield from walk(f"{folder}/{name}")

    yield from walk(prefix.rstrip("/"))


class _HashingReader(io.RawIOBase):
    """Reads through a file while hashing it: one pass over a (possibly remote) media file."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.handle.read(len(buffer))
        self.digest.update(data)
        buffer[: len(data)] = data
        return len(data)


def partner_backup(*, partner: Partner, path: Path) -> BackupSummary:
    """Write the archive of one partner to `path` (through a temporary name: a failed backup
    leaves no file that looks complete)."""
    schema = partner.schema_name
    if not schema_exists(schema):
        raise BackupError(f"The schema {schema} of {partner.subdomain} does not exist.")
    path.parent.mkdir(parents=True, exist_ok=True)
    members: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".backup-") as work:
        dump = Path(work) / SCHEMA_DUMP
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            with connection.cursor() as cursor:
                snapshot = None
                if outermost:
                    # One snapshot for the counts, the public rows and pg_dump's own connection
                    # (inside a caller's transaction, e.g. a test's, pg_dump takes its own).
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    cursor.execute("SELECT pg_export_snapshot()")
                    snapshot = cursor.fetchone()[0]
            partner = Partner.objects.get(pk=partner.pk)
            counts = _schema_counts(schema)
            migrations = _schema_migrations(schema)
            public = _public_rows(partner)
            command, env = _db_command(pg_dump_binary())
            command += ["--schema", schema, "--format", "custom", "--no-owner", "--no-privileges"]
            command += ["--file", str(dump)]
            if snapshot:
                command += ["--snapshot", snapshot]
            result = subprocess.run(command, env=env, capture_output=True, text=True)  # noqa: S603
            if result.returncode != 0:
                raise BackupError(f"pg_dump of {schema} failed: {result.stderr.strip()[:500]}")
        public_bytes = json.dumps(public, ensure_ascii=False, sort_keys=True).encode()
        partial = path.with_name(path.name + ".partial")
        files = 0
        with os.fdopen(private_file(partial), "wb") as raw, tarfile.open(fileobj=raw, mode="w") as archive:
            archive.add(dump, arcname=SCHEMA_DUMP)
            members[SCHEMA_DUMP] = {"size": dump.stat().st_size, "sha256": _sha256_file(dump)}
            info = tarfile.TarInfo(PUBLIC_ROWS)
            info.size = len(public_bytes)
            info.mtime = int(timezone.now().timestamp())
            archive.addfile(info, io.BytesIO(public_bytes))
            members[PUBLIC_ROWS] = {
                "size": len(public_bytes),
                "sha256": hashlib.sha256(public_bytes).hexdigest(),
            }
            with schema_context(schema):
                for name in _media_names(f"{schema}/"):
                    relative = name[len(schema) + 1 :]
                    info = tarfile.TarInfo(MEDIA + relative)
                    info.size = default_storage.size(name)
                    info.mtime = int(timezone.now().timestamp())
                    with default_storage.open(name, "rb") as handle:
                        reader = _HashingReader(handle)
                        archive.addfile(info, io.BufferedReader(reader, 64 * 1024))
                    members[MEDIA + relative] = {"size": info.size, "sha256": reader.digest.hexdigest()}
                    files += 1
            manifest = {
                "format": FORMAT,
                "subdomain": partner.subdomain,
                "schema_name": schema,
                "created_at": timezone.now().isoformat(),
                "migrations": migrations,
                "counts": counts,
                "members": members,
            }
            manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(manifest_bytes)
            info.mtime = int(timezone.now().timestamp())
            archive.addfile(info, io.BytesIO(manifest_bytes))
        partial.replace(path)
    logger.info("partner backup written", extra={"partner": schema, "path": str(path)})
    return BackupSummary(path=path, size=path.stat().st_size, counts=counts, files=files)


# --- Verify ---------------------------------------------------------------------------------


def _manifest(archive: tarfile.TarFile) -> dict[str, Any]:
    try:
        handle = archive.extractfile(MANIFEST)
    except KeyError:
        raise BackupError("Not a partner backup: manifest.json is missing.") from None
    if handle is None:
        raise BackupError("Not a partner backup: manifest.json is not a file.")
    try:
        manifest = json.loads(handle.read())
    except ValueError as exc:
        raise BackupError(f"manifest.json is not JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"Unknown backup format {manifest.get('format')!r} (this version reads {FORMAT}).")
    for key in ("subdomain", "schema_name", "migrations", "counts", "members"):
        if key not in manifest:
            raise BackupError(f"manifest.json has no {key!r}.")
    return manifest


def backup_verify(path: Path) -> dict[str, Any]:
    """The archive's manifest, once every member is there with its size and SHA-256 and
    nothing else is; BackupError naming the first difference otherwise."""
    try:
        archive = tarfile.open(path, "r:")  # noqa: SIM115 (closed by the with below)
    except (OSError, tarfile.TarError) as exc:
        raise BackupError(f"Cannot read {path}: {exc}") from None
    with archive:
        manifest = _manifest(archive)
        expected: dict[str, dict[str, Any]] = manifest["members"]
        seen: set[str] = set()
        for info in archive:
            if info.name == MANIFEST:
                continue
            if info.name not in expected:
                raise BackupError(f"{info.name} is in the archive but not in its manifest.")
            if not info.isfile():
                raise BackupError(f"{info.name} is not a regular file.")
            handle = archive.extractfile(info)
            assert handle is not None  # a regular file
            digest = hashlib.sha256()
            size = 0
            for block in iter(lambda: handle.read(CHUNK), b""):  # noqa: B023
                digest.update(block)
                size += len(block)
            if size != expected[info.name]["size"] or digest.hexdigest() != expected[info.name]["sha256"]:
                raise BackupError(f"{info.name} does not match its checksum: the archive is damaged.")
            seen.add(info.name)
        missing = sorted(set(expected) - seen)
        if missing:
            raise BackupError(f"The archive lacks {', '.join(missing[:5])}.")
        if SCHEMA_DUMP not in seen or PUBLIC_ROWS not in seen:
            raise BackupError("The archive lacks the schema dump or the public rows.")
    return manifest


# --- Restore --------------------------------------------------------------------------------


def _known_migrations() -> set[str]:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return {f"{app}.{name}" for app, name in loader.disk_migrations}


def _sql_replay(dump: Path, old: str, new: str) -> None:
    """Replay a schema dump on Django's connection (inside the caller's transaction) under
    the schema name `new`: statements are renamed, COPY data is passed through unchanged."""
    restore = pg_dump_binary().replace("pg_dump", "pg_restore")
    process = subprocess.Popen(  # noqa: S603
        [restore, "--no-owner", "--no-privileges", "--file", "-", str(dump)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    name = re.compile(rf"\b{re.escape(old)}\b")
    raw = connection.cursor().cursor  # psycopg's own cursor: COPY needs it
    statements: list[str] = []
    lines = iter(process.stdout)
    for line_bytes in lines:
        line = line_bytes.decode()
        # Session settings would stay on Django's connection; meta-commands are not SQL.
        if line.startswith(("SET ", "SELECT pg_catalog.set_config", "\\")):
            continue
        if line.startswith("COPY ") and line.rstrip().endswith("FROM stdin;"):
            if statements:
                raw.execute("".join(statements))
                statements = []
            with raw.copy(name.sub(new, line.rstrip().removesuffix(";"))) as copy:
                for data in lines:
                    if data == b"\\.\n":
                        break
                    copy.write(data)
            continue
        statements.append(name.sub(new, line))
    if "".join(statements).strip():
        raw.execute("".join(statements))
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.wait() != 0:
        raise BackupError(f"pg_restore could not read the schema dump: {errors.strip()[:500]}")


def _paths_rename(schema: str, old: str) -> None:
    """Stored file names carry the schema as prefix ('p_old/scans/...'): renamed with it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = %s "
            "AND data_type IN ('text', 'character varying')",
            [schema],
        )
        for table, column in cursor.fetchall():
            target = f"{_quote(schema)}.{_quote(table)}"
            cursor.execute(
                f"UPDATE {target} SET {_quote(column)} = %s || substr({_quote(column)}, %s) "  # noqa: S608
                f"WHERE {_quote(column)} LIKE %s",
                [f"{schema}/", len(old) + 2, f"{old}/%"],
            )


def _user_by_name(username: str | None) -> Any:

    if not username:
        return None
    with schema_context("public"):
        return User.objects.filter(username=username).first()


def _public_restore(
    *, rows: dict[str, Any], subdomain: str, schema: str, same: bool, skipped: list[str]
) -> Partner:

    data = rows["partner"]
    partner = Partner(
        subdomain=subdomain,
        schema_name=schema,
        name=data["name"],
        kind=data["kind"],
        frontend_active=data["frontend_active"],
        config=data["config"],
        published_version=data["published_version"],
        # A cached config answer of an earlier partner of that name must not be served.
        config_version=int(data["config_version"]) + 1,
        domain_token=data["domain_token"] if same else domain_token_new(),
        archived_at=parse_datetime(data["archived_at"]) if data["archived_at"] else None,
    )
    partner.save()
    own_host = partner_host(subdomain)
    Domain.objects.create(domain=own_host, tenant=partner, is_primary=True)
    for row in rows["domains"]:
        if (
            row["domain"].endswith(f".{settings.BASE_DOMAIN}")
            and row["domain"].split(".")[0] == data["subdomain"]
        ):
            continue  # the partner's own host: made above under the (maybe new) subdomain
        if not same:
            skipped.append(f"domain {row['domain']} (belongs to {data['subdomain']})")
            continue
        if Domain.objects.filter(domain=row["domain"]).exists():
            skipped.append(f"domain {row['domain']} (in use by another partner)")
            continue
        Domain.objects.create(
            domain=row["domain"],
            tenant=partner,
            is_primary=False,
            verified_at=parse_datetime(row["verified_at"]) if row["verified_at"] else None,
            checked_at=parse_datetime(row["checked_at"]) if row["checked_at"] else None,
            check_result=row["check_result"],
        )
    versions = []
    for row in rows["config_versions"]:
        version = ConfigVersion(
            partner=partner,
            number=row["number"],
            config=row["config"],
            author=_user_by_name(row["author"]),
            published_at=parse_datetime(row["published_at"]) if row["published_at"] else None,
            note=row["note"],
            copied_from=row["copied_from"],
        )
        versions.append(version)
    ConfigVersion.objects.bulk_create(versions)
    claims = [
        VehicleClaim(
            vin_hash=row["vin_hash"],
            legislation_year=row["legislation_year"],
            partner=partner,
            application_id=row["application_id"],
            confirmed_at=parse_datetime(row["confirmed_at"]) if row.get("confirmed_at") else None,
            submitted_at=parse_datetime(row["submitted_at"]) if row.get("submitted_at") else None,
        )
        for row in rows["vehicle_claims"]
    ]
    # A restore never adds a second claim on a vehicle and year (a copy beside its original
    # leaves them with the original); each claim comes back in its state (issue 47).
    taken = set(
        VehicleClaim.objects.filter(vin_hash__in=[claim.vin_hash for claim in claims]).values_list(
            "vin_hash", "legislation_year"
        )
    )
    free = [claim for claim in claims if (claim.vin_hash, claim.legislation_year) not in taken]
    VehicleClaim.objects.bulk_create(free, batch_size=2000)
    if len(free) < len(claims):
        skipped.append(f"{len(claims) - len(free)} registry claims (held by another partner now)")
    doubles = []
    for row in rows["double_registrations"]:
        holder = (
            partner
            if row["holder_partner"] == data["subdomain"]
            else Partner.objects.filter(subdomain=row["holder_partner"]).first()
        )
        if holder is None:
            skipped.append(f"double registration held by {row['holder_partner']} (no such partner)")
            continue
        doubles.append(
            DoubleRegistration(
                vin_hash=row["vin_hash"],
                legislation_year=row["legislation_year"],
                partner=partner,
                application_id=row["application_id"],
                holder_partner=holder,
                holder_application_id=row["holder_application_id"],
                # a backup from before issue 47 holds verdicts only (the holder kept it)
                status=row.get("status", DoubleRegistration.Status.DECIDED),
                kept=row.get("kept", "holder"),
                decided_at=parse_datetime(row["decided_at"]) if row.get("decided_at") else None,
            )
        )
    DoubleRegistration.objects.bulk_create(doubles, batch_size=2000)
    return partner


def _media_restore(archive: tarfile.TarFile, schema: str, written: list[str]) -> None:
    """Every media member into the storage under the schema's prefix, in archive order (a
    lookup by name would scan the member list each time: quadratic at 10,000 files)."""
    with schema_context(schema):
        for info in archive:
            if not info.name.startswith(MEDIA) or not info.isfile():
                continue
            relative = info.name[len(MEDIA) :]
            if ".." in relative.split("/") or relative.startswith("/"):
                raise BackupError(f"{info.name}: not a name inside the partner's folder.")
            handle = archive.extractfile(info)
            assert handle is not None
            name = f"{schema}/{relative}"
            stored = default_storage.save(name, File(handle, name=relative))
            written.append(stored)
            if stored != name:
                raise BackupError(f"{name} exists already in the media storage.")


def _media_clear(prefix: str) -> int:

    with schema_context(prefix.rstrip("/")):
        return _media_delete(prefix)


def partner_restore(
    *, path: Path, subdomain: str | None = None, replace: bool = False, safety_dir: Path | None = None
) -> RestoreSummary:
    """Bring a partner back from its archive, as it was or under a new subdomain (`--as`).

    An existing partner (or schema) of that name is refused unless `replace`; then it is
    archived, backed up to `safety_dir`, and its schema, media and rows removed first."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[step] = round(now - clock, 3)
        clock = now

    manifest = backup_verify(path)
    lap("verify")
    old_schema = manifest["schema_name"]
    target = (subdomain or manifest["subdomain"]).strip().lower()
    if not re.fullmatch(SUBDOMAIN_PATTERN, target):
        raise BackupError(f"{target!r} is not a valid subdomain.")

    if target in RESERVED_SUBDOMAINS:
        raise BackupError(f"{target!r} is reserved.")
    schema = partner_schema_name(target)
    unknown = sorted(set(manifest["migrations"]) - _known_migrations())
    if unknown:
        raise BackupError(
            f"The backup was made by a newer version (migrations {', '.join(unknown[:3])} are unknown here)."
        )
    existing = Partner.objects.filter(subdomain=target).first()
    if existing is not None or schema_exists(schema):
        if not replace:
            raise BackupError(
                f"The partner {target} exists: restore under another name (--as NEWSUB) "
                f"or replace it explicitly (--replace {target})."
            )
        if existing is not None:
            if AuthoritySubmissionItem.objects.filter(partner=existing).exists():
                # Those rows are the platform's record of what went to the authority: kept.
                raise BackupError(
                    f"{target} has applications in authority submissions and cannot be replaced: "
                    "restore under another name (--as NEWSUB)."
                )
            partner_archive(partner=existing)
            safety = (safety_dir or Path(settings.VAR_DIR) / "backups") / (
                f"{existing.subdomain}-before-restore-{timezone.now():%Y%m%dT%H%M%SZ}.tar"
            )
            partner_backup(partner=existing, path=safety)
            logger.info("replaced partner backed up", extra={"partner": schema, "path": str(safety)})
        with transaction.atomic():
            with connection.cursor() as cursor:
                # Deferred foreign-key checks of a caller's transaction would block the DROP.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(f"DROP SCHEMA IF EXISTS {_quote(schema)} CASCADE")
            Partner.objects.filter(subdomain=target).delete()
        _media_clear(f"{schema}/")
        logger.warning("partner replaced by a restore", extra={"partner": schema, "path": str(path)})
    with schema_context(schema):
        if next(_media_names(f"{schema}/"), None) is not None:
            raise BackupError(f"The media storage holds files under {schema}/ already: nothing was restored.")
    skipped: list[str] = []
    written: list[str] = []
    with tarfile.open(path, "r:") as archive, tempfile.TemporaryDirectory() as work:
        dump = Path(work) / SCHEMA_DUMP
        source = archive.extractfile(SCHEMA_DUMP)
        assert source is not None
        with dump.open("wb") as handle:
            for block in iter(lambda: source.read(CHUNK), b""):
                handle.write(block)
        rows = json.loads(archive.extractfile(PUBLIC_ROWS).read())  # type: ignore[union-attr]
        try:
            with transaction.atomic():
                lap("prepare")
                _sql_replay(dump, old_schema, schema)
                lap("schema")
                if schema != old_schema:
                    _paths_rename(schema, old_schema)
                lap("paths")
                counts = _schema_counts(schema)
                lap("counts")
                if counts != manifest["counts"]:
                    different = sorted(
                        table
                        for table in set(counts) | set(manifest["counts"])
                        if counts.get(table) != manifest["counts"].get(table)
                    )
                    raise BackupError(f"Row counts differ after the restore: {', '.join(different[:5])}.")
                partner = _public_restore(
                    rows=rows,
                    subdomain=target,
                    schema=schema,
                    same=target == manifest["subdomain"],
                    skipped=skipped,
                )
                lap("public")
                _media_restore(archive, schema, written)
                lap("media")
        except BaseException:
            with schema_context(schema):
                for name in written:
                    default_storage.delete(name)
            raise
    migrated = False
    # An older backup: the migrations the template (today's code) has and it lacks.
    if set(_schema_migrations(settings.TENANT_TEMPLATE_SCHEMA)) - set(manifest["migrations"]):
        call_command("migrate_schemas", schema_name=schema, interactive=False, verbosity=0)
        migrated = True
    logger.info("partner restored", extra={"partner": schema, "path": str(path)})
    lap("commit")
    return RestoreSummary(
        partner=partner,
        counts=counts,
        files=len(written),
        skipped=skipped,
        migrated=migrated,
        timings=timings,
    )

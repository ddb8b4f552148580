"""Scan files without a registration row: a worker killed between writing a scan and
committing its row (OOM, deploy, timeout) leaves its files behind. They are written before
the commit on purpose (a row never points at a missing file); this sweep removes the rest."""

from __future__ import annotations

import itertools
import logging
import os
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models import Q
from django.utils import timezone

from registrations.models import BevRegistration

logger = logging.getLogger(__name__)

# An upload in flight writes its files a moment before its row commits: leave those alone.
ORPHAN_GRACE = timedelta(minutes=15)
ORPHAN_BATCH = 1000


def _scan_uuid(filename: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(filename[:36])
    except ValueError:
        return None


def _scan_filenames(folder: str) -> Iterator[str]:
    """The folder's file names. On local disk one at a time (os.scandir): a partner's folder
    holds two or three files per registration, hundreds of thousands for a large partner. S3's
    listing (storages' listdir) arrives whole."""
    try:
        path = default_storage.path(folder)
    except NotImplementedError:
        try:
            _, filenames = default_storage.listdir(folder)
        except FileNotFoundError:
            return
        yield from filenames
        return
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_file(follow_symlinks=False):
                    yield entry.name
    except FileNotFoundError:
        return


def _orphans_delete(folder: str, filenames: list[str], cutoff: datetime) -> list[str]:
    names = {f"{folder}/{filename}": _scan_uuid(filename) for filename in filenames}
    uuids = {found for found in names.values() if found is not None}
    referenced: set[str] = set()
    for scan, display, resized in BevRegistration.objects.filter(uuid__in=uuids).values_list(
        "zlb_scan", "display_scan", "resized_image"
    ):
        referenced.update((scan, display, resized))
    # A name saved under another uuid (storage renames on a clash) is still checked by name.
    unmatched = [name for name in names if name not in referenced]
    if unmatched:
        referenced.update(
            name
            for row in BevRegistration.objects.filter(
                Q(zlb_scan__in=unmatched) | Q(display_scan__in=unmatched) | Q(resized_image__in=unmatched)
            ).values_list("zlb_scan", "display_scan", "resized_image")
            for name in row
        )
    deleted = []
    for name in names:
        if name in referenced or default_storage.get_modified_time(name) > cutoff:
            continue
        default_storage.delete(name)
        deleted.append(name)
    return deleted


def scan_orphans_delete(*, schema_name: str, older_than: timedelta | None = None) -> list[str]:
    """Deletes this partner's scan files that no registration refers to and that are older
    than the grace time; returns their names. Runs inside the partner's schema, over the
    folder in chunks of ORPHAN_BATCH names, so its memory does not grow with the partner."""
    grace = older_than if older_than is not None else getattr(settings, "SCAN_ORPHAN_GRACE", ORPHAN_GRACE)
    folder = f"{schema_name}/scans"
    cutoff = timezone.now() - grace
    deleted: list[str] = []
    filenames = _scan_filenames(folder)
    while chunk := list(itertools.islice(filenames, ORPHAN_BATCH)):
        deleted += _orphans_delete(folder, chunk, cutoff)
    if deleted:
        logger.warning("deleted %d scan files without a registration", len(deleted))
    return deleted

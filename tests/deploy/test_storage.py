"""The partner prefix of media names is checked on each call, against the schema of the moment."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.base import ContentFile
from django_tenants.utils import schema_context

from common.storage import PartnerFileSystemStorage


@pytest.mark.django_db
def test_each_partner_reaches_only_its_own_prefix(tmp_path: Any) -> None:
    storage = PartnerFileSystemStorage(location=tmp_path)  # one instance, as in a process

    with schema_context("p_autohaus"):
        own = storage.save("p_autohaus/scans/a.jpg", ContentFile(b"a"))
        with pytest.raises(SuspiciousFileOperation):
            storage.save("p_stadtwerk/scans/b.jpg", ContentFile(b"b"))
        with pytest.raises(SuspiciousFileOperation):
            storage.save("p_autohaus/../p_stadtwerk/scans/b.jpg", ContentFile(b"b"))
    with schema_context("p_stadtwerk"):
        other = storage.save("p_stadtwerk/scans/b.jpg", ContentFile(b"b"))
        with pytest.raises(SuspiciousFileOperation):
            storage.open(own)
        with pytest.raises(SuspiciousFileOperation):
            storage.delete(own)
    # the platform itself (public schema) reaches every prefix
    assert storage.open(own).read() == b"a" and storage.open(other).read() == b"b"
    assert sorted(path.name for path in tmp_path.rglob("*.jpg")) == ["a.jpg", "b.jpg"]

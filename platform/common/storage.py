"""Media storage with the partner prefix enforced on every call.

Every stored name starts with the partner's schema (`p_autohaus/scans/...`; see
registrations.services). These storages check that prefix against the schema the
database connection is set to at the moment of the call, which a request (or a task's
schema_context) decides: never a value kept by the process. Inside a partner's schema a
name outside its prefix is refused, so one partner's request cannot read, overwrite or
delete another's files, on the local disk or in the S3 bucket alike.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage
from django.db import connection
from django_tenants.utils import get_public_schema_name
from storages.backends.s3 import S3Storage


def partner_prefix() -> str | None:
    """The prefix names must carry now, or None outside any partner (the platform itself)."""
    schema = str(getattr(connection, "schema_name", get_public_schema_name()))
    return None if schema == get_public_schema_name() else f"{schema}/"


class PartnerPrefixMixin:
    def partner_check(self, name: str) -> str:
        prefix = partner_prefix()
        normalised = name.replace("\\", "/").lstrip("/")
        if prefix is not None and (not normalised.startswith(prefix) or ".." in normalised.split("/")):
            raise SuspiciousFileOperation(f"{name!r} is outside the prefix of partner schema {prefix[:-1]!r}")
        return name

    def _save(self, name: str, content: Any) -> str:
        return super()._save(self.partner_check(name), content)  # type: ignore[misc,no-any-return]

    def _open(self, name: str, mode: str = "rb") -> Any:
        return super()._open(self.partner_check(name), mode)  # type: ignore[misc]

    def delete(self, name: str) -> None:
        super().delete(self.partner_check(name))  # type: ignore[misc]

    def url(self, name: str | None, *args: Any, **kwargs: Any) -> str:
        return super().url(self.partner_check(name or ""), *args, **kwargs)  # type: ignore[misc,no-any-return]


class PartnerFileSystemStorage(PartnerPrefixMixin, FileSystemStorage):
    """The default run's media under MEDIA_ROOT (var/media: no URL serves it; scans reach a
    browser only through the signed scan views).

    Scans are personal data: files 0600 and folders 0700, readable by the app's own user only,
    not by every account on the host (Django's default would be 0644 and the umask's folders).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("file_permissions_mode", 0o600)
        kwargs.setdefault("directory_permissions_mode", 0o700)
        super().__init__(*args, **kwargs)


class PartnerS3Storage(PartnerPrefixMixin, S3Storage):
    """Production media in an S3-compatible bucket (settings: S3_BUCKET and friends).

    Every object is written with server-side encryption (SSE-S3, AES-256) unless the settings
    ask for something else (e.g. `"ServerSideEncryption": "aws:kms"` with a key id).
    """

    def get_default_settings(self) -> dict[str, Any]:
        defaults: dict[str, Any] = super().get_default_settings()
        defaults["object_parameters"] = {"ServerSideEncryption": "AES256", **defaults["object_parameters"]}
        return defaults

"""Scan error codes. IMGC001-003 are the spec's (section 8); the rest are ours, for input
the spec's flow never sends but a client can."""

from __future__ import annotations

from typing import Any

SIZE = "IMGC001"  # too small or too many pixels; details.given_width / given_height
NOT_A_ZLB = "IMGC002"  # readable, but not a Zulassungsbescheinigung Teil I
NOT_CLASSIFIABLE = "IMGC003"  # too little to read to classify it
UNSUPPORTED_TYPE = "IMGC004"  # not JPEG, PNG, WEBP, HEIC or PDF (by content, not by name)
FILE_TOO_LARGE = "IMGC005"  # over 10 MB
DAMAGED = "IMGC006"  # claims a type but cannot be read (broken, encrypted or empty PDF)
# Answered 429 {"detail", "error_code"} with Retry-After: too many uploads from this token's
# owner or this client address in the window.
UPLOAD_THROTTLED = "UPLOAD001"
UPLOAD_THROTTLED_MESSAGE = "Zu viele Uploads. Bitte versuchen Sie es später erneut."


class ScanRejected(Exception):
    def __init__(self, code: str, details: dict[str, Any] | None = None):
        self.code = code
        self.details = details or {}
        super().__init__(code)

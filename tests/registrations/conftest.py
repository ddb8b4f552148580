from __future__ import annotations

import pytest

from tests.fixtures.zlb.generate import document_set


@pytest.fixture(scope="session")
def generated_set() -> list[tuple[str, bytes, dict[str, str] | None]]:
    """24 ZLB variations (sizes, EXIF turns, skew, JPEG qualities, PDF, non-electric) and 12
    non-documents (photos, receipts, letters, blank pages), rendered once per session."""
    return document_set(24)

"""/readyz answers from reads only: a probe called every few seconds leaves nothing behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import connection
from django.test import Client


def test_readiness_writes_nothing(settings: Any, tmp_path: Path, db: None) -> None:
    # given a media folder whose every change shows in its modification time
    media = tmp_path / "media"
    media.mkdir()
    settings.MEDIA_ROOT = media
    before = media.stat().st_mtime_ns
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity")  # warm up the connection

    # when
    answer = Client().get("/readyz", HTTP_HOST="10.0.0.7:8000")

    # then ready, and the folder was not touched (a file written and removed changes its mtime)
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "ok"
    assert media.stat().st_mtime_ns == before
    assert list(media.iterdir()) == []
    assert not (tmp_path / "media" / ".readyz").exists()


def test_readiness_reports_a_media_folder_it_cannot_use(settings: Any, tmp_path: Path, db: None) -> None:
    missing_parent = tmp_path / "a-file"
    missing_parent.write_text("not a folder")
    settings.MEDIA_ROOT = missing_parent / "media"

    answer = Client().get("/readyz", HTTP_HOST="10.0.0.7:8000")

    assert answer.status_code == 503
    assert answer.json()["checks"]["storage"].startswith("error")
    assert not (missing_parent / "media").exists()

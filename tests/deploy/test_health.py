"""/healthz and /readyz: answered on any host, over plain HTTP, without a partner."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client


@pytest.mark.parametrize("host", ["10.244.1.17:8000", "autohaus.localhost", "nobody.localhost"])
def test_healthz_answers_on_any_host(client: Client, host: str) -> None:
    response = client.get("/healthz", HTTP_HOST=host)

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_checks_database_redis_and_storage(client: Client, settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"

    response = client.get("/readyz", HTTP_HOST="10.244.1.17:8000")

    assert response.status_code == 200, response.json()
    assert set(response.json()["checks"]) == {"database", "redis", "storage"}
    assert all(value.startswith("ok") for value in response.json()["checks"].values())
    # The storage check writes nothing: the media root (or its nearest parent) is only checked.
    assert not (tmp_path / "media").exists()
    assert not list(tmp_path.iterdir())


@pytest.mark.django_db
def test_readyz_is_503_when_a_dependency_is_down(client: Client, settings: Any, tmp_path: Any) -> None:
    # given a media root that cannot be created (a file stands where its parent should be)
    (tmp_path / "blocked").write_text("")
    settings.MEDIA_ROOT = tmp_path / "blocked" / "media"

    response = client.get("/readyz", HTTP_HOST="10.244.1.17:8000")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["checks"]["storage"].startswith("error: ")
    assert response.json()["checks"]["database"].startswith("ok")


@pytest.mark.django_db
def test_probes_are_not_redirected_to_https(client: Client, settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True

    probe = client.get("/healthz", HTTP_HOST="10.244.1.17:8000")
    page = client.get("/api/configs/autohaus/", HTTP_HOST="autohaus.localhost")

    assert probe.status_code == 200
    assert page.status_code == 301 and page["Location"].startswith("https://")


@pytest.mark.django_db
def test_readyz_stays_200_degraded_when_redis_is_down(client: Client, settings: Any, tmp_path: Any) -> None:
    # given a Redis URL on a port where nothing listens (Redis is shared by every web pod: a
    # 503 would take them all out of the Service at once)
    from tests.deploy.conftest import free_port

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"

    response = client.get("/readyz", HTTP_HOST="10.244.1.17:8000")

    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["redis"] == "error: ConnectionError"
    assert response.json()["checks"]["database"].startswith("ok")
    assert response.json()["checks"]["storage"].startswith("ok")

"""The same settings module with production variables: check --deploy, Redis cache and queue
with partner-prefixed keys, S3 media under the partner prefix, readiness against real services."""

from __future__ import annotations

import json
from typing import Any

import redis

from tests.deploy.conftest import BUCKET, REDIS_URL, manage, s3_client

PROBE = """
import json
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage, storages
from django_tenants.utils import schema_context
from huey.contrib.djhuey import HUEY
from common.health import readiness

out = {
    "storage": type(storages["default"]).__name__,
    "cache": settings.CACHES["default"]["BACKEND"],
    "huey": type(HUEY).__name__,
    "cookies_secure": [settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE],
    "hsts": [settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS],
    "csp": settings.CONTENT_SECURITY_POLICY,
    "log_format": settings.LOG_FORMAT,
}
saved, refused = [], []
for schema, other in (("p_alpha", "p_beta"), ("p_beta", "p_alpha")):
    with schema_context(schema):
        cache.set("greeting", "hello " + schema, 60)
        saved.append(default_storage.save(schema + "/scans/probe.txt", ContentFile(b"x")))
        try:
            default_storage.save(other + "/scans/intruder.txt", ContentFile(b"x"))
        except SuspiciousFileOperation:
            refused.append(schema)
with schema_context("p_alpha"):
    out["alpha_greeting"] = cache.get("greeting")
out["saved"], out["refused"] = saved, refused
out["ready"] = readiness()
print("PROBE" + json.dumps(out))
"""


def probe(env: dict[str, str]) -> dict[str, Any]:
    result = manage(env, "shell", "-c", PROBE)
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("PROBE"))
    return json.loads(line.removeprefix("PROBE"))  # type: ignore[no-any-return]


def test_check_deploy_gives_no_warning_with_production_variables(production_env: dict[str, str]) -> None:
    result = manage(production_env, "check", "--deploy", "--fail-level", "WARNING")

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout
    # The check is not blind: a forgotten DEBUG=0 (development defaults: cookies without
    # Secure, no HSTS) fails it, and so do Django's debug pages turned on.
    dev = manage({**production_env, "DEBUG": "1"}, "check", "--deploy", "--fail-level", "WARNING")
    assert dev.returncode != 0 and "security.W012" in dev.stderr
    pages = {**production_env, "DEBUG": "1", "DEBUG_PAGES": "1"}
    debug = manage(pages, "check", "--deploy", "--fail-level", "WARNING")
    assert debug.returncode != 0 and "security.W018" in debug.stderr


def test_production_backends_partner_prefixes_and_readiness(
    production_db: dict[str, str], moto_endpoint: str
) -> None:
    out = probe(production_db)

    assert out["storage"] == "PartnerS3Storage"
    assert out["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert out["huey"] == "RedisHuey"
    assert out["cookies_secure"] == [True, True]
    assert out["hsts"] == [31_536_000, True]
    assert "script-src 'self' https://www.googletagmanager.com;" in out["csp"]
    assert "'unsafe-inline'" not in out["csp"].split("script-src", 1)[1].split(";", 1)[0]
    assert out["log_format"] == "json"
    # cache keys carry the partner: one key name, two values, one per schema
    assert out["alpha_greeting"] == "hello p_alpha"
    keys = set(redis.Redis.from_url(REDIS_URL, decode_responses=True).keys("*greeting"))
    assert keys == {"p_alpha::1:greeting", "p_beta::1:greeting"}
    # media in the bucket under each partner's prefix; the other partner's prefix refused,
    # in one process switching partners, so nothing was kept per process
    assert out["saved"] == ["p_alpha/scans/probe.txt", "p_beta/scans/probe.txt"]
    assert out["refused"] == ["p_alpha", "p_beta"]
    listed = s3_client(moto_endpoint).list_objects_v2(Bucket=BUCKET, Prefix="media/")
    names = {item["Key"] for item in listed.get("Contents", [])}
    assert {"media/p_alpha/scans/probe.txt", "media/p_beta/scans/probe.txt"} <= names
    assert not any("intruder" in name for name in names)
    ready, checks = out["ready"]
    assert ready is True, checks
    assert set(checks) == {"database", "redis", "storage"}


def test_readiness_names_each_dependency_that_is_down_and_stays_ready_for_shared_ones(
    production_db: dict[str, str],
) -> None:
    env = {
        **production_db,
        "REDIS_URL": "redis://127.0.0.1:9/5",
        "S3_BUCKET": "no-such-bucket",
    }
    script = "import json; from common.health import readiness; print('PROBE' + json.dumps(readiness()))"

    result = manage(env, "shell", "-c", script)

    assert result.returncode == 0, result.stderr[-3000:]
    ready, checks = json.loads(result.stdout.split("PROBE", 1)[1])
    # Redis and the bucket are shared by every pod: reported, but the pod stays ready
    # (common.health); only the database or a pod's own media folder make it unready.
    assert ready is True
    assert checks["database"].startswith("ok")
    assert checks["redis"].startswith("error: ConnectionError")
    assert checks["storage"].startswith("error: ClientError")
    # the failures are logged as JSON lines, without the driver's message
    logged = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert {line["check"] for line in logged if line["message"] == "readiness check failed"} == {
        "redis",
        "storage",
    }

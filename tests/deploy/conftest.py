"""The production settings path on this machine: the real local PostgreSQL (a `deploy_`
database), Redis (database 5), S3 through moto's server mode, mails written to files."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
# One database and one Redis database per pytest-xdist worker: two workers' session fixtures
# must not drop or flush each other's (gw0 → deploy_pytest_gw0 and Redis 5, gw1 → ... 6).
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
DATABASE = f"deploy_pytest_{_WORKER}" if _WORKER else "deploy_pytest"
REDIS_URL = f"redis://127.0.0.1:6379/{5 + int(_WORKER.removeprefix('gw') or 0) % 10}"
BUCKET = "thg-media"
BASE_DOMAIN = "thg.test"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args!r} exited with {process.returncode}") from None
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port} after {seconds} s")


def services_available() -> str | None:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=2):
            pass
    except psycopg.Error as exc:
        return f"no PostgreSQL on 127.0.0.1:5432 ({type(exc).__name__})"
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"no Redis on 127.0.0.1:6379 ({type(exc).__name__})"
    return None


def recreate_database(name: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """A local S3-compatible server (moto's server mode) with the media bucket."""
    import boto3

    port = free_port()
    binary = Path(sys.executable).with_name("moto_server")
    process = subprocess.Popen(
        [str(binary), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        endpoint = f"http://127.0.0.1:{port}"
        s3_client(endpoint).create_bucket(Bucket=BUCKET)
        assert boto3  # imported above: a missing dependency fails here, not in a subprocess
        yield endpoint
    finally:
        process.terminate()
        process.wait(timeout=10)


def s3_client(endpoint: str) -> Any:
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="deploy-test",
        aws_secret_access_key="deploy-test-secret",
    )


@pytest.fixture(scope="session")
def production_env(moto_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The variables a production pod gets, pointing at a fresh `deploy_pytest` database."""
    missing = services_available()
    if missing:
        pytest.skip(missing)
    import redis

    recreate_database(DATABASE)
    redis.Redis.from_url(REDIS_URL).flushdb()
    work = tmp_path_factory.mktemp("production")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "HUEY_", "PYTEST", "DEBUG", "DATABASE_URL", "REDIS_URL"))
    }
    env.update(
        {
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/{DATABASE}",
            "REDIS_URL": REDIS_URL,
            "BASE_DOMAIN": BASE_DOMAIN,
            "S3_BUCKET": BUCKET,
            "S3_ENDPOINT_URL": moto_endpoint,
            "S3_REGION": "us-east-1",
            "S3_ADDRESSING_STYLE": "path",
            "AWS_ACCESS_KEY_ID": "deploy-test",
            "AWS_SECRET_ACCESS_KEY": "deploy-test-secret",
            "MAIL_DIR": str(work / "mail"),
            "VAR_DIR": str(work / "var"),
            "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
            "MIGRATE_PROCESSES": "2",
        }
    )
    yield env
    drop_database(DATABASE)
    redis.Redis.from_url(REDIS_URL).flushdb()


def manage(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def production_db(production_env: dict[str, str]) -> dict[str, str]:
    """The production database migrated and two partners provisioned, by the same commands
    the migrate job and the onboarding team run."""
    migrated = manage(production_env, "migrate_all")
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    for subdomain, name, domain in (("alpha", "Alpha GmbH", "thg.alpha.example"), ("beta", "Beta AG", None)):
        extra = ["--domain", domain, "--domain-verified"] if domain else []
        created = manage(production_env, "create_partner", subdomain, name, *extra)
        assert created.returncode == 0, created.stderr[-3000:]
    return production_env


def gunicorn_command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        str(ROOT / "deploy" / "gunicorn.conf.py"),
        "--bind",
        f"127.0.0.1:{port}",
    ]

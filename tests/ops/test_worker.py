"""The huey worker as `manage.py run_worker` runs it in the chart: its task, mail and queue
metrics and health endpoint, and a graceful stop (SIGTERM during a mail task: the mail arrives)."""

from __future__ import annotations

import email
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, _free_port, database_url, start_server
from tests.ops.test_metrics import samples

FIRST = "erika.worker@example.org"
SECOND = "otto.worker@example.org"


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    web_port: int
    health_port: int
    mail_dir: Path
    log: Path


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""  # not listening yet


def mail_request(port: int, address: str) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/auth/registration/otp/",
        data=f'{{"email": "{address}", "partner": "autohaus"}}'.encode(),
        headers={"Host": "autohaus.localhost", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 200


def wait_until(check, seconds: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s")


def mail_to(folder: Path, address: str) -> bool:
    return any(email.message_from_bytes(path.read_bytes())["To"] == address for path in folder.glob("*.eml"))


@pytest.fixture(scope="module")
def worker(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    folder = tmp_path_factory.mktemp("worker")
    queue = {
        "HUEY_IMMEDIATE": "0",
        "HUEY_FILENAME": str(folder / "huey.sqlite3"),
        "MAIL_DIR": str(folder / "mail"),
    }
    web, web_port = start_server(workers=1, threads=2, extra_env=queue)
    health_port = _free_port()
    env = {
        **os.environ,
        **queue,
        "DATABASE_URL": database_url(),
        "DEBUG": "1",
        "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
        "EMAIL_BACKEND": "tests.ops.slow_mail.SlowOutboxBackend",
        "HUEY_WORKERS": "1",
        "WORKER_HEALTH_PORT": str(health_port),
        "METRICS_ENABLED": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(folder / "prometheus"),
    }
    log = folder / "worker.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until(lambda: get(health_port, "/healthz")[0] == 200 if process.poll() is None else True, 60)
        assert process.poll() is None, log.read_text()
        yield Worker(process, web_port, health_port, folder / "mail", log)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        web.terminate()
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            web.kill()


def test_a_mail_task_shows_up_in_the_worker_metrics_without_personal_data(worker: Worker) -> None:
    # given the web process queues a login code mail, the worker sends it
    mail_request(worker.web_port, FIRST)
    wait_until(lambda: mail_to(worker.mail_dir, FIRST))

    # when Prometheus scrapes the worker (the task counts once the send returned)
    wait_until(lambda: "thg_tasks_total{" in get(worker.health_port, "/metrics")[1])
    status, text = get(worker.health_port, "/metrics")

    # then the task, its duration, the mail and the (empty) queue are there, by name only
    assert status == 200
    # (a periodic task, e.g. the custom-domain check every 5 minutes, may have run as well)
    tasks = {key: value for key, value in samples(text, "thg_tasks_total").items() if "mail_" in key}
    assert tasks == {'result="complete",task="mail_login_code"': 1.0}, text + worker.log.read_text()
    durations = {k: v for k, v in samples(text, "thg_task_duration_seconds_count").items() if "mail_" in k}
    assert durations == {'task="mail_login_code"': 1.0}
    assert samples(text, "thg_task_duration_seconds_sum")['task="mail_login_code"'] >= 2.0
    assert samples(text, "thg_mails_total") == {'result="sent",template="login_code"': 1.0}
    assert samples(text, "thg_task_queue_length") == {'state="pending"': 0.0, 'state="scheduled"': 0.0}
    assert "example.org" not in text and "erika" not in text
    assert get(worker.health_port, "/healthz") == (200, '{"status": "ok"}')


def test_sigterm_during_a_mail_task_lets_the_mail_arrive(worker: Worker) -> None:
    # given a mail task is running (its send takes two seconds)
    sends_before = len(list(worker.mail_dir.glob("sending-*")))
    mail_request(worker.web_port, SECOND)
    wait_until(lambda: len(list(worker.mail_dir.glob("sending-*"))) > sends_before)
    assert not mail_to(worker.mail_dir, SECOND)

    # when the pod stops: SIGTERM to the consumer
    worker.process.send_signal(signal.SIGTERM)
    exit_code = worker.process.wait(timeout=40)

    # then the running task finished first: the mail arrived, and the consumer exited cleanly
    assert mail_to(worker.mail_dir, SECOND), worker.log.read_text()
    assert exit_code == 0, worker.log.read_text()

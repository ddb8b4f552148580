"""Issue 13, item 4: every per-client limit keeps its budget for the real client address.

TRUSTED_PROXIES says which hops may be believed (common.client); without it X-Forwarded-For
counts for nothing, so a client of `make run` cannot choose a fresh budget per request.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, RequestFactory, override_settings

import tenants.api
from common.client import client_ip, trusted_proxies_parse, trusted_proxies_setting

pytestmark = pytest.mark.django_db

HOST = "autohaus.localhost"
INGRESS = "10.42.0.7"  # the ingress controller's pod, the server's TCP peer
CLIENTS = [f"203.0.113.{n}" for n in range(1, 32)]  # 31 clients on the internet


def send_code(client: Client, email: str, remote: str, forwarded: str | None = None) -> Any:
    extra: dict[str, Any] = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return client.post(
        "/api/auth/registration/otp/",
        {"email": email, "partner": "autohaus", "verify_email_url": ""},
        content_type="application/json",
        HTTP_HOST=HOST,
        **extra,
    )


@pytest.mark.parametrize("trusted", ["1", "10.0.0.0/8", "10.42.0.0/16, fd00::/8"])
@override_settings(LOGIN_SENDS_PER_ADDRESS_HOUR=1)
def test_31_clients_through_one_trusted_proxy_are_31_budgets(client: Client, trusted: str) -> None:
    with override_settings(TRUSTED_PROXIES=trusted):
        answers = [
            send_code(client, f"halter{n}@example.de", INGRESS, forwarded=address).status_code
            for n, address in enumerate(CLIENTS)
        ]
        # The budget is real: the first client's second send (another e-mail) is over it.
        again = send_code(client, "noch-einer@example.de", INGRESS, forwarded=CLIENTS[0])

    assert answers == [200] * 31
    assert again.status_code == 429
    assert again.json()["error_code"]


@pytest.mark.parametrize("trusted", [None, "", "0"])
@override_settings(LOGIN_SENDS_PER_ADDRESS_HOUR=1)
def test_a_spoofed_forwarded_for_without_a_trusted_proxy_changes_nothing(
    client: Client, trusted: str | None
) -> None:
    settings_override = {} if trusted is None else {"TRUSTED_PROXIES": trusted}
    with override_settings(**settings_override):
        first = send_code(client, "a@example.de", "198.51.100.9", forwarded="203.0.113.1")
        spoofed = [
            send_code(client, f"b{n}@example.de", "198.51.100.9", forwarded=address).status_code
            for n, address in enumerate(CLIENTS[1:4])
        ]

    assert first.status_code == 200
    assert spoofed == [429, 429, 429]


@override_settings(LOGIN_SENDS_PER_ADDRESS_HOUR=1, TRUSTED_PROXIES="10.0.0.0/8")
def test_a_peer_outside_the_trusted_networks_cannot_forward_for_anybody(client: Client) -> None:
    # Reaching the server around the ingress: the header is ignored, the peer is the client.
    first = send_code(client, "a@example.de", "198.51.100.9", forwarded="203.0.113.1")
    second = send_code(client, "b@example.de", "198.51.100.9", forwarded="203.0.113.2")

    assert first.status_code == 200
    assert second.status_code == 429


@override_settings(LOGIN_FREE_FAILURES_PER_ADDRESS=2, LOGIN_FREE_FAILURES_PER_USERNAME=100)
@pytest.mark.parametrize(
    ("trusted", "throttled"), [("1", False), ("", True)], ids=["behind-proxy", "no-proxy"]
)
def test_the_portal_login_throttle_counts_per_real_client(
    client: Client, trusted: str, throttled: bool
) -> None:
    def login(forwarded: str) -> int:
        response = client.post(
            "/api/auth/user/login/",
            {"username": "niemand@example.de", "password": "falsch", "recaptcha": "x"},
            content_type="application/json",
            HTTP_HOST=HOST,
            REMOTE_ADDR=INGRESS,
            HTTP_X_FORWARDED_FOR=forwarded,
        )
        return response.status_code

    with override_settings(BOT_CHECK_ENABLED=False, TRUSTED_PROXIES=trusted):
        failures = [login(address) for address in CLIENTS[:3]]
        # Three failures: from one address that is past the two free ones; from three, not.
        next_try = login(CLIENTS[3])

    assert 429 not in failures[:2]
    assert (next_try == 429) is throttled


def test_the_config_preview_throttle_counts_per_real_client(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tenants.api, "PREVIEWS_PER_MINUTE", 1)
    body: dict[str, Any] = {"config": {}}

    def preview(forwarded: str) -> int:
        return client.post(
            "/api/config_previews/",
            body,
            content_type="application/json",
            HTTP_HOST="localhost",
            REMOTE_ADDR=INGRESS,
            HTTP_X_FORWARDED_FOR=forwarded,
        ).status_code

    with override_settings(TRUSTED_PROXIES="1"):
        proxied = [preview(address) for address in CLIENTS[:3]]
    with override_settings(TRUSTED_PROXIES=""):
        direct = [preview(address) for address in CLIENTS[5:8]]

    assert proxied == [200, 200, 200]
    assert direct == [200, 429, 429]


# --- the parser ---------------------------------------------------------------------------------


def address_of(remote: str, forwarded: str | None, trusted: str) -> str:
    meta: dict[str, Any] = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    with override_settings(TRUSTED_PROXIES=trusted):
        return client_ip(RequestFactory().get("/", **meta))


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "expected"),
    [
        ("10.0.0.1", "1.2.3.4", "", "10.0.0.1"),
        ("10.0.0.1", "6.6.6.6, 1.2.3.4", "1", "1.2.3.4"),  # a client's own header entry is skipped
        ("10.0.0.1", "6.6.6.6, 1.2.3.4, 10.0.0.2", "2", "1.2.3.4"),
        ("10.0.0.1", None, "1", "10.0.0.1"),  # not through the proxy
        ("10.0.0.1", "6.6.6.6, 1.2.3.4, 10.0.0.2", "10.0.0.0/8", "1.2.3.4"),
        ("10.0.0.1", "10.9.9.9, 10.0.0.2", "10.0.0.0/8", "10.9.9.9"),  # all trusted: leftmost
        ("10.0.0.1", "garbage, 10.0.0.2", "10.0.0.0/8", "10.0.0.2"),
        ("10.0.0.1", "[2001:db8::1]:443", "10.0.0.0/8", "2001:db8::1"),
        ("10.0.0.1", "1.2.3.4:5678", "10.0.0.0/8", "1.2.3.4"),
        ("::ffff:10.0.0.1", "1.2.3.4", "10.0.0.0/8", "1.2.3.4"),
        ("fd00::5", "1.2.3.4", "fd00::/8", "1.2.3.4"),
        ("1.2.3.99", "6.6.6.6", "10.0.0.0/8", "1.2.3.99"),
    ],
)
def test_the_client_is_the_first_untrusted_hop_from_the_right(
    remote: str, forwarded: str | None, trusted: str, expected: str
) -> None:
    assert address_of(remote, forwarded, trusted) == expected


@pytest.mark.parametrize("bad", ["10.0.0.0/8,", "proxy.internal", "10.0.0.0/33", "-1"])
def test_a_malformed_setting_fails_loudly(bad: str) -> None:
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        trusted_proxies_parse(bad)


def test_the_environment_variable_is_read_when_settings_have_none(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.conf import settings

    monkeypatch.delattr(settings, "TRUSTED_PROXIES", raising=False)
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8")

    assert trusted_proxies_setting() == "10.0.0.0/8"


# --- deployment: the chart and gunicorn agree ---------------------------------------------------


@pytest.mark.parametrize(
    ("trusted", "allowed"),
    [("", []), ("0", []), ("1", ["*"]), ("10.0.0.0/8, fd00::/8", ["10.0.0.0/8", "fd00::/8"])],
)
def test_gunicorn_believes_x_forwarded_proto_from_the_same_proxies(
    monkeypatch: pytest.MonkeyPatch, trusted: str, allowed: list[str]
) -> None:
    import runpy

    from gunicorn.config import validate_string_to_addr_list

    from tests.conftest import ROOT

    monkeypatch.setenv("TRUSTED_PROXIES", trusted)
    conf = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))

    assert validate_string_to_addr_list(conf["forwarded_allow_ips"]) == allowed


def test_the_chart_sets_trusted_proxies_for_the_pods_behind_its_ingress() -> None:
    from tests.deploy.test_chart import env_of, render, workloads

    pods = workloads(render("trustedProxies=10.244.0.0/16"))

    for name, pod in pods.items():
        assert env_of(pod["containers"][0])["TRUSTED_PROXIES"]["value"] == "10.244.0.0/16", name
    default = env_of(workloads(render())["web"]["containers"][0])["TRUSTED_PROXIES"]["value"]
    assert trusted_proxies_parse(default)  # the default trusts the ingress, and parses

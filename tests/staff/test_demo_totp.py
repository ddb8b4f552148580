"""`tools/demo_totp.py SUB`: the demo back office's current code, for demo partners only; its
key is derived from this installation's SECRET_KEY, never a constant."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from tenants.demo import demo_totp_key
from tools.demo_totp import NoDemoCode, demo_code

pytestmark = pytest.mark.django_db


def test_the_printed_code_logs_the_demo_back_office_in(client: Client) -> None:
    code = demo_code("stadtwerk")
    assert len(code) == 6 and code.isdigit()

    with schema_context("p_stadtwerk"):
        step = client.post(
            "/admin/login/",
            {"username": "backoffice", "password": "Backoffice_2026!"},
            HTTP_HOST="stadtwerk.localhost",
        )
        assert step["Location"].startswith("/admin/login/code/")
        done = client.post("/admin/login/code/", {"otp_token": code}, HTTP_HOST="stadtwerk.localhost")
        assert done.status_code == 302 and done["Location"] == "/admin/"
        assert (
            client.get("/admin/quota/quotaapplication/", HTTP_HOST="stadtwerk.localhost").status_code == 200
        )
    # the code was used: the tool now prints the next one the device accepts
    assert demo_code("stadtwerk") != code


def test_only_demo_partners_have_a_known_code() -> None:
    with pytest.raises(NoDemoCode, match="not a demo partner"):
        demo_code("csv-export")


def test_the_demo_key_belongs_to_this_installation() -> None:
    with schema_context("p_autohaus"):
        device = TOTPDevice.objects.get(user__username="backoffice")
    assert device.confirmed and device.key == demo_totp_key("p_autohaus")
    assert demo_totp_key("p_autohaus") != demo_totp_key("p_stadtwerk")
    with override_settings(SECRET_KEY="another-installation"):
        assert demo_totp_key("p_autohaus") != device.key

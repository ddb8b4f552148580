"""Personal data encrypted at rest in billing.Client (issue 19: field encryption, rotation)."""

from __future__ import annotations

import importlib
from io import StringIO
from typing import Any

import pytest
from django.core.exceptions import FieldError
from django.core.management import call_command
from django.db import connection
from django.db.migrations import RunPython
from django.db.migrations.loader import MigrationLoader
from django.test import Client as HttpClient
from django.test import override_settings

from accounts.models import User
from billing.models import Client
from common.crypto import FieldDecryptionError, field_decrypt
from tests.billing.test_clients import VALID, auth, owner, registration, submit  # noqa: F401
from tests.billing.test_clients import _in_autohaus as _in_autohaus  # noqa: F401

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
IBAN = "DE89370400440532013000"
ENCRYPTED = [
    "street_name",
    "street_number",
    "account_name",
    "account_iban",
    "account_bic",
    "charge_card",
    "vat_number",
]
OLD_KEY, NEW_KEY = "old-field-key-" + "a" * 40, "new-field-key-" + "b" * 40


def raw(pk: int, columns: list[str] = ENCRYPTED) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(columns)} FROM billing_client WHERE id = %s", [pk])
        return dict(zip(columns, cursor.fetchone(), strict=True))


def created(client: HttpClient, auth: dict[str, str], owner: User, **change: Any) -> Client:  # noqa: F811
    registration(owner)
    response = submit(client, auth, {**VALID, **change})
    assert response.status_code == 201, response.content
    pk = response.json()["id"]
    assert client.post(f"/api/clients/{pk}/lock/", HTTP_HOST=HOST, headers=auth).status_code == 200
    return Client.objects.get(pk=pk)


def test_the_table_holds_no_plain_iban_or_address_after_an_api_submit(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    saved = created(client, auth, owner, street_number="12a", vat_number="")

    stored = raw(saved.pk, [*ENCRYPTED, "city", "last_name"])
    # Not stored in clear, nor in any spelling of it: every filled column is a Fernet token.
    dump = " ".join(str(v) for v in stored.values())
    for plain in (IBAN, "37040044", "Hauptstraße", "Hauptstra", "Erika Mustermann", "12a"):
        assert plain not in dump
    for name in ("street_name", "street_number", "account_name", "account_iban"):
        assert stored[name].startswith("gAAAA")  # Fernet's version byte, base64
        assert field_decrypt(stored[name]) == getattr(saved, name)
    # Empty optional fields stay empty; the fields left in clear are not encrypted by mistake.
    assert stored["charge_card"] == "" and stored["vat_number"] == ""
    assert stored["city"] == "Berlin" and stored["last_name"] == "Mustermann"
    # The same IBAN twice gives two different tokens (randomised: no equality leak).
    again = Client.objects.create(owner=owner, first_name="E", last_name="M", street_name="Hauptstraße",
                                  street_number="1", postal_code="10115", city="Berlin", account_iban=IBAN)  # fmt: skip
    assert raw(again.pk)["account_iban"] != stored["account_iban"]

    # Python and the API see the plain (API: masked) values as before.
    assert saved.account_iban == IBAN and saved.street_name == "Hauptstraße" and saved.street_number == "12a"
    previous = client.get("/api/clients/previous/", HTTP_HOST=HOST, headers=auth)
    body = previous.json()
    assert previous.status_code == 200
    assert body["account_iban_masked"] == "DE89 **** **** **** **30 00" and body["has_stored_iban"] is True
    assert body["street_name"] == "Hauptstraße" and body["street_number"] == "12a"
    assert IBAN not in previous.content.decode()


def test_the_portal_card_shows_the_masked_iban_and_the_address(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    created(client, auth, owner)

    response = client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=HOST, headers=auth)

    assert response.status_code == 200
    card = response.json()["results"][0]["registration"]["client"]
    assert card["account_iban"] == "DE89 **** **** **** **30 00"
    assert card["street_name"] == "Hauptstraße" and card["street_number"] == "12a"
    assert IBAN not in response.content.decode()


def test_a_token_changed_in_the_database_raises_a_clear_error(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    saved = created(client, auth, owner)
    token = raw(saved.pk)["account_iban"]
    # One character of the ciphertext changed: the MAC no longer matches.
    position = len(token) // 2
    tampered = token[:position] + ("A" if token[position] != "A" else "B") + token[position + 1 :]
    with connection.cursor() as cursor:
        cursor.execute("UPDATE billing_client SET account_iban = %s WHERE id = %s", [tampered, saved.pk])

    with pytest.raises(FieldDecryptionError, match=r"billing_client\.account_iban: the stored value cannot"):
        Client.objects.get(pk=saved.pk)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE billing_client SET street_name = 'Hauptstraße' WHERE id = %s", [saved.pk])
    # A plain value written around the ORM is refused too, not passed through as if decrypted.
    with pytest.raises(FieldDecryptionError, match=r"billing_client\.street_name"):
        Client.objects.only("street_name").get(pk=saved.pk)


def test_equality_lookups_on_encrypted_columns_are_refused() -> None:
    # A randomised token never equals another: such a filter would silently find nothing.
    with pytest.raises(FieldError, match="account_iban is encrypted"):
        Client.objects.filter(account_iban=IBAN).exists()
    assert Client.objects.filter(account_iban__isnull=True).count() == 0


def test_rotation_reencrypts_with_the_new_key_so_the_old_one_can_go(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    with override_settings(FIELD_ENCRYPTION_KEYS=[OLD_KEY]):
        saved = created(client, auth, owner)
        extra = [
            Client.objects.create(owner=owner, first_name="E", last_name="M", street_name=f"Weg {i}",
                                  street_number=str(i), postal_code="10115", city="Berlin", account_iban=IBAN)
            for i in range(4)
        ]  # fmt: skip
    before = raw(saved.pk)
    # The new key alone cannot read what the old one wrote.
    with override_settings(FIELD_ENCRYPTION_KEYS=[NEW_KEY]), pytest.raises(FieldDecryptionError):
        Client.objects.get(pk=saved.pk)

    out = StringIO()
    with override_settings(FIELD_ENCRYPTION_KEYS=[NEW_KEY, OLD_KEY]):
        call_command("rotate_field_keys", "--batch-size", "2", "--schema", "p_autohaus", stdout=out)
    assert "p_autohaus billing.Client: 5 rows re-encrypted" in out.getvalue()

    after = raw(saved.pk)
    assert all(after[name] != before[name] for name in ("account_iban", "street_name", "account_name"))
    with override_settings(FIELD_ENCRYPTION_KEYS=[NEW_KEY]):
        rotated = Client.objects.get(pk=saved.pk)
        assert (rotated.account_iban, rotated.street_name, rotated.account_name) == (
            IBAN,
            "Hauptstraße",
            "Erika Mustermann",
        )
        assert [c.street_name for c in Client.objects.filter(pk__in=[c.pk for c in extra]).order_by("pk")] == [
            "Weg 0", "Weg 1", "Weg 2", "Weg 3"
        ]  # fmt: skip
        assert rotated.updated_at == saved.updated_at  # rotation is not an edit
    with override_settings(FIELD_ENCRYPTION_KEYS=[OLD_KEY]), pytest.raises(FieldDecryptionError):
        Client.objects.get(pk=saved.pk)


def test_the_migration_encrypts_rows_stored_in_clear(owner: User) -> None:  # noqa: F811
    saved = Client.objects.create(owner=owner, first_name="E", last_name="M", street_name="x",
                                  street_number="1", postal_code="10115", city="Berlin")  # fmt: skip
    # A row as the schema held it before the migration: plain values.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE billing_client SET street_name = 'Hauptstraße', street_number = '12a', account_iban = %s,"
            " account_name = 'Erika Mustermann', vat_number = '' WHERE id = %s",
            [IBAN, saved.pk],
        )
    migration = importlib.import_module("billing.migrations.0002_encrypt_personal_fields")
    # The state the data step runs in: after 0001 and the AlterFields to plain text before it.
    state = MigrationLoader(connection).project_state(("billing", "0001_initial"))
    operations = migration.Migration.operations
    for operation in operations[: next(i for i, o in enumerate(operations) if isinstance(o, RunPython))]:
        operation.state_forwards("billing", state)

    migration.encrypt(state.apps, None)

    stored = raw(saved.pk)
    assert IBAN not in str(stored.values()) and "Hauptstraße" not in str(stored.values())
    assert stored["vat_number"] == ""
    again = Client.objects.get(pk=saved.pk)
    assert (again.account_iban, again.street_name, again.street_number) == (IBAN, "Hauptstraße", "12a")


def test_without_configured_keys_secret_key_rotation_keeps_the_data_readable(owner: User) -> None:  # noqa: F811
    # Unset FIELD_ENCRYPTION_KEYS: keys derived from SECRET_KEY (never the raw SECRET_KEY) and
    # its fallbacks, so a SECRET_KEY change done the Django way (old key into the fallbacks)
    # loses nothing, and rotate_field_keys moves the data onto the new one.
    first, second = "first-secret-" + "c" * 40, "second-secret-" + "d" * 40
    with override_settings(FIELD_ENCRYPTION_KEYS=[], SECRET_KEY=first, SECRET_KEY_FALLBACKS=[]):
        saved = Client.objects.create(owner=owner, first_name="E", last_name="M", street_name="Hauptstraße",
                                      street_number="1", postal_code="10115", city="Berlin", account_iban=IBAN)  # fmt: skip
    # Moving to own keys later: the SECRET_KEY listed after the new key reads the old data.
    with override_settings(FIELD_ENCRYPTION_KEYS=[NEW_KEY, first], SECRET_KEY=second):
        assert Client.objects.get(pk=saved.pk).account_iban == IBAN
    with override_settings(FIELD_ENCRYPTION_KEYS=[NEW_KEY]), pytest.raises(FieldDecryptionError):
        Client.objects.get(pk=saved.pk)
    with override_settings(FIELD_ENCRYPTION_KEYS=[], SECRET_KEY=second, SECRET_KEY_FALLBACKS=[first]):
        assert Client.objects.get(pk=saved.pk).account_iban == IBAN
        call_command("rotate_field_keys", stdout=StringIO())  # every partner schema
    with override_settings(FIELD_ENCRYPTION_KEYS=[], SECRET_KEY=second, SECRET_KEY_FALLBACKS=[]):
        assert Client.objects.get(pk=saved.pk).street_name == "Hauptstraße"

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection

from tenants.demo import DEMO_PARTNERS
from tenants.models import SUBDOMAIN_EXISTS, Domain, Partner
from tenants.services import partner_provision

pytestmark = pytest.mark.django_db


def tables_in(schema: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
        return {row[0] for row in cursor.fetchall()}


def applied_migrations(schema: str) -> set[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT app, name FROM "{schema}".django_migrations')
        return set(cursor.fetchall())


def test_a_new_partner_gets_a_clone_of_the_migrated_template() -> None:
    partner = partner_provision(subdomain="Neu-Partner", name="Neuer Partner", kind="utility")

    assert partner.subdomain == "neu-partner"
    assert partner.schema_name == "p_neu_partner"
    template = settings.TENANT_TEMPLATE_SCHEMA
    assert tables_in(partner.schema_name) == tables_in(template) != set()
    assert applied_migrations(partner.schema_name) == applied_migrations(template)
    assert list(partner.domains.values_list("domain", "is_primary")) == [("neu-partner.localhost", True)]
    assert partner.config["font_family"] == "Open Sans"


def test_a_duplicate_subdomain_is_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        partner_provision(subdomain="autohaus", name="Noch ein Autohaus")

    assert refused.value.message_dict["subdomain"] == [SUBDOMAIN_EXISTS]
    assert SUBDOMAIN_EXISTS == "Partner with this Subdomain already exists"


@pytest.mark.parametrize("subdomain", ["mit leerzeichen", "umlaut-ä", "-start", "ende-", "a_b", "x" * 64])
def test_a_subdomain_allows_letters_digits_and_hyphens_only(subdomain: str) -> None:
    with pytest.raises(ValidationError) as refused:
        partner_provision(subdomain=subdomain, name="Falsch")

    assert "subdomain" in refused.value.message_dict
    assert not Partner.objects.filter(name="Falsch").exists()


def test_an_invalid_configuration_is_refused_with_field_messages_and_nothing_is_created() -> None:
    with pytest.raises(ValidationError) as refused:
        partner_provision(subdomain="kaputt", name="Kaputt", config={"colors": {"text": "red"}})

    assert refused.value.message_dict["config"] == [
        "colors.text: Bitte eine Farbe als #rgb, #rrggbb oder #rrggbbaa angeben."
    ]
    assert not Partner.objects.filter(subdomain="kaputt").exists()
    assert tables_in("p_kaputt") == set()


def test_create_partner_command_takes_a_config_file_and_a_custom_domain(tmp_path: Path) -> None:
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps({"colors": {"button": "#123456"}, "authentication_flow": "otp"}))

    call_command(
        "create_partner",
        "solar",
        "Solar GmbH",
        "--kind",
        "wallbox",
        "--config",
        str(config_file),
        "--domain",
        "THG.Solar.example",
    )

    partner = Partner.objects.get(subdomain="solar")
    assert partner.kind == "wallbox"
    assert partner.config["colors"]["button"] == "#123456"
    assert partner.config["authentication_flow"] == "otp"
    assert set(Domain.objects.filter(tenant=partner).values_list("domain", flat=True)) == {
        "solar.localhost",
        "thg.solar.example",
    }


def test_create_partner_command_reports_field_errors(tmp_path: Path) -> None:
    config_file = tmp_path / "config.json"
    config_file.write_text(json.dumps({"gender_option": 9}))

    with pytest.raises(
        CommandError,
        match=re.escape(
            "config: gender_option: „9“ ist nicht möglich. Bitte eine der angebotenen Möglichkeiten wählen: "
            "Frau, Herr („1“)"
        ),
    ):
        call_command("create_partner", "solar2", "Solar", "--config", str(config_file))


def test_seed_demo_is_idempotent_and_provides_one_partner_per_kind_and_a_deactivated_one() -> None:
    before = Partner.objects.count()

    call_command("seed_demo", verbosity=0)

    assert Partner.objects.count() == before
    demo = {p["subdomain"] for p in DEMO_PARTNERS}
    partners = Partner.objects.filter(subdomain__in=demo)
    assert {p.kind for p in partners} == {"standard", "utility", "wallbox"}
    assert [p.subdomain for p in partners if not p.frontend_active] == ["inaktiv"]
    for partner in partners:
        config = partner.config
        assert config["logo"].startswith("data:image/svg+xml;base64,")
        assert config["pages"]["faq"] and config["pages"]["termsdetails"]["text"]
        assert config["pages"]["privacydetails"]["text"]

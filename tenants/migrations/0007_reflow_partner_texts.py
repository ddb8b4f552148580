"""Terms, privacy and finish texts stored before they were reflowed on save (issue 51): the
same reflow now, so a pasted document's hard line breaks stop breaking sentences on screen.
Published configurations and every version (a rollback brings back the reflowed text)."""

from __future__ import annotations

from typing import Any

from django.db import migrations

DOCUMENTS = ("termsdetails", "privacydetails", "next_year_termsdetails", "next_year_privacydetails", "finish")


def _reflowed(config: Any) -> bool:
    from common.partner_config import _base64_html

    pages = config.get("pages") if isinstance(config, dict) else None
    changed = False
    for name in DOCUMENTS:
        page = pages.get(name) if isinstance(pages, dict) else None
        if not isinstance(page, dict) or not page.get("text"):
            continue
        try:
            text = _base64_html(page["text"])
        except ValueError:
            continue  # not base64: left for the console to refuse
        if text != page["text"]:
            page["text"] = text
            changed = True
    return changed


def reflow(apps: Any, schema_editor: Any) -> None:
    Partner = apps.get_model("tenants", "Partner")
    ConfigVersion = apps.get_model("tenants", "ConfigVersion")
    for partner in Partner.objects.all().only("pk", "config", "config_version"):
        if _reflowed(partner.config):
            # a new config_version: the cached configuration answer and its ETag move on
            Partner.objects.filter(pk=partner.pk).update(
                config=partner.config, config_version=partner.config_version + 1
            )
    for version in ConfigVersion.objects.all().only("pk", "config"):
        if _reflowed(version.config):
            ConfigVersion.objects.filter(pk=version.pk).update(config=version.config)


class Migration(migrations.Migration):
    dependencies = [("tenants", "0006_quota_years")]

    operations = [migrations.RunPython(reflow, migrations.RunPython.noop)]

"""The partner's HTML texts stored before they were reflowed on save (issue 51): FAQ answers,
impressum, the short privacy notice and the advertisement's own HTML go through the same
common.partner_config.partner_html now that migration 0007 applied to the terms, privacy and
finish texts, so their hard line breaks stop breaking sentences on screen. Published
configurations and every version (a rollback brings back the reflowed text)."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def _html_texts(config: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(holder, key) of every HTML text of a stored configuration."""
    found: list[tuple[dict[str, Any], str]] = [(config, "impressum_details"), (config, "data_privacy_text")]
    advertisement = config.get("partneradvertisement")
    if isinstance(advertisement, dict):
        found.append((advertisement, "freetext"))
    pages = config.get("pages")
    faq = pages.get("faq") if isinstance(pages, dict) else None
    for item in faq if isinstance(faq, list) else []:
        if isinstance(item, dict):
            found.append((item, "answer"))
    return found


def _reflowed(config: Any) -> bool:
    from common.partner_config import partner_html

    if not isinstance(config, dict):
        return False
    changed = False
    for holder, key in _html_texts(config):
        value = holder.get(key)
        if not isinstance(value, str) or not value:
            continue
        text = partner_html(value)
        if text != value:
            holder[key] = text
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
    dependencies = [("tenants", "0008_quota_years_n2_n3_energy")]

    operations = [migrations.RunPython(reflow, migrations.RunPython.noop)]

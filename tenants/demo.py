"""The demo partners of `manage.py seed_demo`: one per kind, and one deactivated; the demo back
office's second factor."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from django.conf import settings


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def svg_data_url(svg: str) -> str:
    return "data:image/svg+xml;base64," + b64(svg)


def logo(label: str, color: str) -> str:
    width = 60 + round(len(label) * 10.5)
    return svg_data_url(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="48" viewBox="0 0 {width} 48">'
        f'<rect width="48" height="48" rx="12" fill="{color}"/>'
        '<path d="M27 8 15 27h9l-3 13 12-19h-9z" fill="#fff"/>'
        f'<text x="58" y="31" font-family="Arial, sans-serif" font-size="17" font-weight="700" fill="{color}">'
        f"{label}</text></svg>"
    )


def header_image(color_a: str, color_b: str) -> str:
    return svg_data_url(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="240" viewBox="0 0 1200 240">'
        f'<defs><linearGradient id="g"><stop offset="0" stop-color="{color_a}"/>'
        f'<stop offset="1" stop-color="{color_b}"/></linearGradient></defs>'
        '<rect width="1200" height="240" fill="url(#g)"/>'
        '<rect x="980" y="60" width="90" height="130" rx="16" fill="#fff" opacity=".9"/>'
        f'<circle cx="1025" cy="105" r="18" fill="{color_a}"/></svg>'
    )


TERMS = """Teilnahmebedingungen für die Vermarktung der THG-Quote

1. Sie übertragen uns das Recht, die THG-Minderungsquote Ihres Elektrofahrzeugs für das gewählte
Quotenjahr zu vermarkten.
2. Voraussetzung ist ein gültiger Fahrzeugschein (Zulassungsbescheinigung Teil 1) eines reinen
Elektrofahrzeugs, das auf Sie zugelassen ist.
3. Die Prämie wird ausgezahlt, sobald das Umweltbundesamt die Quote bestätigt hat.
"""

NEXT_YEAR_TERMS = TERMS.replace("gewählte\nQuotenjahr", "nächste\nQuotenjahr")

PRIVACY = """Online-Datenschutzinformation

Wir verarbeiten Ihre E-Mail-Adresse, die Daten Ihres Fahrzeugscheins und Ihre Auszahlungsdaten
ausschließlich, um Ihre THG-Quote beim Umweltbundesamt anzumelden und die Prämie auszuzahlen.
Sie können Auskunft, Berichtigung und Löschung Ihrer Daten jederzeit verlangen.
"""

FAQ = [
    {
        "question": "Was ist die THG-Quote?",
        "answer": "Halter von Elektrofahrzeugen können die eingesparten Treibhausgase jährlich "
        "als Quote verkaufen lassen und erhalten dafür eine Prämie.",
    },
    {
        "question": "Welche Unterlagen brauche ich?",
        "answer": "Ein Foto oder einen Scan der Vorderseite Ihres Fahrzeugscheins "
        "(Zulassungsbescheinigung Teil 1).",
    },
    {
        "question": "Wann erhalte ich mein Geld?",
        "answer": "Sobald das Umweltbundesamt die Quote bestätigt hat, in der Regel nach wenigen Wochen.",
    },
]


def advertisement_banner() -> str:
    return svg_data_url(
        '<svg xmlns="http://www.w3.org/2000/svg" width="960" height="160" viewBox="0 0 960 160">'
        '<rect width="960" height="160" rx="12" fill="#c81e1e"/>'
        '<text x="40" y="72" font-family="Roboto, Arial, sans-serif" font-size="34" font-weight="700" fill="#fff">'
        "Ökostrom für Ihr E-Auto</text>"
        '<text x="40" y="118" font-family="Roboto, Arial, sans-serif" font-size="24" fill="#fff">'
        "Jetzt zum Stadtwerke-Autostromtarif wechseln</text></svg>"
    )


def _config(*, label: str, colors: dict[str, str], **extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "page_title": f"{label} – THG-Prämie",
        "logo": logo(label, colors["button"]),
        "favicon": logo("", colors["button"]),
        "colors": colors,
        "impressum_details": f"<p><strong>{label} GmbH</strong><br>Musterstraße 1<br>10115 Berlin</p>",
        "show_impressum": True,
        "show_data_privacy": True,
        "data_privacy_text": "<p>Informationen zum Datenschutz finden Sie in unserer Datenschutzerklärung.</p>",
        "pages": {
            "faq": FAQ,
            "termsdetails": {"text": b64(TERMS)},
            "next_year_termsdetails": {"text": b64(NEXT_YEAR_TERMS)},
            "privacydetails": {"text": b64(PRIVACY)},
            "next_year_privacydetails": {"text": b64(PRIVACY)},
            "finish": {"text": b64("Wir melden uns, sobald Ihre Quote bestätigt ist.")},
        },
        "qa_create_choices": {"current_year": True, "next_year": True},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return config


DEMO_PARTNERS: list[dict[str, Any]] = [
    {
        "subdomain": "autohaus",
        "name": "Autohaus Sonnenschein",
        "kind": "standard",
        "frontend_active": True,
        "config": _config(
            label="Autohaus Sonnenschein",
            colors={
                "gradient_start": "#1e3a8a",
                "gradient_end": "#2563eb",
                "button": "#1d4ed8",
                "button_text": "#ffffff",
                "circle": "#a56a07",
                "text": "#111827",
                "input_border": "#94a3b8",
                "desktop_box": "#f8fafc",
                "desktop_button": "#1d4ed8",
            },
            by_provider_gmbh=True,
            display_title_dot=True,
            enable_private_business_registration=True,
            pages={
                "welcome": {
                    "title": "Ihre THG-Prämie vom Autohaus",
                    "register": "Registrieren Sie Ihr Elektroauto und sichern Sie sich jedes Jahr Ihre Prämie.",
                    "four_steps": "In vier Schritten zur Prämie",
                    "step1": "Teilnahmebedingungen akzeptieren",
                    "step2": "E-Mail-Adresse bestätigen",
                    "step3": "Fahrzeugschein fotografieren",
                    "step4": "Auszahlungsdaten eingeben",
                },
            },
        ),
    },
    {
        "subdomain": "stadtwerk",
        "name": "Stadtwerke Musterstadt",
        "kind": "utility",
        "frontend_active": True,
        "config": _config(
            label="Stadtwerke Musterstadt",
            colors={
                "gradient_start": "#b91c1c",
                "gradient_end": "#ef4444",
                "button": "#c81e1e",
                "button_text": "#ffffff",
                "circle": "#c81e1e",
                "text": "#1f2937",
                "input_border": "#9ca3af",
                "desktop_box": "#ffffff",
                "desktop_button": "#c81e1e",
            },
            font_family="Roboto",
            item_alignment="left",
            authentication_flow="otp",
            end_user_portal_enable=True,
            show_client_fee_euro_amount=True,
            display_vat=True,
            # No price for next year yet: the portal shows the utility placeholder instead.
            fees=[
                {"legislation_year": 2025, "vehicle_class": "M1", "client_fee": "80.00"},
                {"legislation_year": 2026, "vehicle_class": "M1", "client_fee": "85.00"},
                {"legislation_year": 2026, "vehicle_class": "N1", "client_fee": "250.00"},
            ],
            partneradvertisement={
                "id": 1,
                "type": "image",
                "image": advertisement_banner(),
                "url": "https://stadtwerke-musterstadt.example/e-mobilitaet",
                "enabled": True,
                # what a phone shows instead: the banner's second line would be 9 px there
                "headline": "Ökostrom für Ihr E-Auto",
                "text": "Jetzt zum Stadtwerke-Autostromtarif wechseln.",
                "button_label": "Zum Autostromtarif",
            },
            gender_option=3,
            pages={
                "welcome": {
                    "title": "THG-Quote mit den Stadtwerken",
                    "register": "Als Kunde der Stadtwerke erhalten Sie Ihre THG-Prämie schnell und sicher.",
                    "four_steps": "So einfach geht's",
                    "step1": "Bedingungen lesen und bestätigen",
                    "step2": "Code aus der E-Mail eingeben",
                    "step3": "Fahrzeugschein hochladen",
                    "step4": "Bankverbindung angeben",
                },
                "payment": {"payment_option": "BANKORCHARGECARD"},
            },
        ),
    },
    {
        "subdomain": "wallbox",
        "name": "Voltbox Wallboxen",
        "kind": "wallbox",
        "frontend_active": True,
        "config": _config(
            label="Voltbox",
            colors={
                "gradient_start": "#065f46",
                "gradient_end": "#10b981",
                "button": "#047857",
                "button_text": "#ffffff",
                "circle": "#0c875e",
                "text": "#0f172a",
                "input_border": "#6b7280",
                "desktop_box": "#ecfdf5",
                "desktop_button": "#047857",
            },
            font_family="Montserrat",
            wallbox={
                "header_image": header_image("#065f46", "#10b981"),
                "info_text": "Für Kundinnen und Kunden mit Voltbox-Wallbox: THG-Prämie in wenigen Minuten sichern.",
            },
            pages={
                "welcome": {
                    "title": "Voltbox THG-Bonus",
                    "register": "Laden Sie zu Hause und verdienen Sie zusätzlich mit der THG-Quote.",
                    "four_steps": "In vier Schritten",
                    "step1": "Bedingungen akzeptieren",
                    "step2": "E-Mail bestätigen",
                    "step3": "Fahrzeugschein scannen",
                    "step4": "Fertig",
                },
                "finish": {
                    "countdown_seconds": 5,
                    "is_auto_redirect_enabled": True,
                    "redirect_url": "https://voltbox.example/danke",
                },
                "payment": {"payment_option": "NONE"},
            },
        ),
    },
    {
        "subdomain": "inaktiv",
        "name": "Ehemaliger Partner",
        "kind": "standard",
        "frontend_active": False,
        "config": _config(
            label="Ehemaliger Partner",
            colors={
                "gradient_start": "#374151",
                "gradient_end": "#6b7280",
                "button": "#374151",
                "button_text": "#ffffff",
                "circle": "#6b7280",
                "text": "#111827",
                "input_border": "#9ca3af",
                "desktop_box": "#ffffff",
                "desktop_button": "#374151",
            },
        ),
    },
]


# The demo back office (`/admin/` on each demo partner's host); `tools/demo_totp.py SUB` prints
# its current code.
DEMO_STAFF_USERNAME = "backoffice"
# Its name in the partner area, where it is the partner admin.
DEMO_STAFF_NAME = "Demo Backoffice"


def demo_totp_key(schema_name: str) -> str:
    """The demo back office's authenticator key (hex, 20 bytes): fixed per installation, because
    it is derived from SECRET_KEY, and never a constant in the repository."""
    return hmac.new(
        settings.SECRET_KEY.encode(), f"demo-totp:{schema_name}".encode(), hashlib.sha1
    ).hexdigest()

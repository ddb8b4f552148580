"""The partner configuration of spec/registration-flow.md section 3, as a typed schema.

Every field has the spec's default, so `PartnerConfig()` is a complete, valid configuration
and a partner only stores what differs. Unknown keys are refused (a typo in a key would
otherwise silently do nothing). HTML fields are sanitised with nh3 while validating, so
whatever passes validation is safe to store and to serve.
"""

from __future__ import annotations

import base64
import binascii
import re
import warnings
from decimal import Decimal
from functools import cache
from typing import Annotated, Any, Literal

import nh3
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from common.payout_bounds import german_euros, payout_in_bounds, payout_max

HEX_COLOR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
ASSET_URL = re.compile(
    r"^(?:https?://[^\s\"'<>]+|/[^\s\"'<>]*|data:image/(?:png|jpeg|webp|gif|svg\+xml);base64,[A-Za-z0-9+/=]+)$"
)
WEB_URL = re.compile(r"^https?://[^\s\"'<>]+$")

# Fonts the web app ships itself (self-hosted, no third-party font service).
FontFamily = Literal["Open Sans", "Roboto", "Lato", "Montserrat", "Inter"]

# Partner HTML: FAQ answers, terms and privacy texts (base64), the finish text (base64),
# impressum, data privacy text and the advertisement's free text. The web app renders it with
# DOMPurify as a second line; this allow-list is the first and is what gets stored.
# Left out on purpose: style/class/id attributes (a fixed full-screen overlay, a look-alike
# login box), <style>, <form>/<input>/<button> (password phishing inside the partner's own
# page), <iframe>/<object>/<embed> (the FAQ video is the separate faq_youtube_video_link,
# embedded by the web app itself), <svg>/<math> (script and event handlers inside).
ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "li",
    "ol", "p", "span", "strong", "u", "ul", "img", "small", "sub", "sup", "table", "tbody", "td",
    "th", "thead", "tr",
}  # fmt: skip
# Removed together with their content: what is inside them is code or a trap, not text.
DROPPED_WITH_CONTENT = {
    "script", "style", "form", "button", "select", "textarea", "iframe", "object", "embed",
    "svg", "math", "template", "noscript", "title",
}  # fmt: skip
ALIGNABLE = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th"}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "target"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    # The rich-text editor's alignment, as the HTML attribute (a style attribute is refused).
    **{tag: {"align"} for tag in ALIGNABLE if tag not in {"td", "th"}},
}
ALLOWED_ATTRIBUTES["td"] |= {"align"}
ALLOWED_ATTRIBUTES["th"] |= {"align"}
# tel: for the phone number an impressum must give; no javascript:, data:, vbscript:, file:.
URL_SCHEMES = {"http", "https", "mailto", "tel"}
ATTRIBUTE_VALUES = {
    "align": {"left", "center", "right", "justify"},
    "target": {"_blank", "_self"},
}
SIZE = re.compile(r"^\d{1,4}$")


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    """Keep only known values of the attributes that take a fixed set."""
    allowed = ATTRIBUTE_VALUES.get(attribute)
    if allowed is not None:
        value = value.strip().lower()
        return value if value in allowed else None
    if attribute in {"width", "height", "colspan", "rowspan"}:
        return value if SIZE.match(value.strip()) else None
    return value


def sanitize_html(value: str) -> str:
    return nh3.clean(
        value,
        tags=ALLOWED_TAGS,
        clean_content_tags=DROPPED_WITH_CONTENT,
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


# A text with any of these is the partner's own HTML and keeps its structure; one without is
# plain text (perhaps with <strong> or a link) and is reflowed.
STRUCTURE_TAG = re.compile(r"<\s*(?:p|div|br|h[1-6]|ul|ol|li|table|blockquote|hr|pre)\b", re.IGNORECASE)
# A line that starts a list item ("1.", "2)", "-", "•") starts a line of its own.
LIST_ITEM = re.compile(r"^(?:\d{1,3}[.)]|[-–•*])\s")
EMPTY_PARAGRAPH = re.compile(r"<p>\s*</p>")
INLINE_TAG = re.compile(r"<[^>]*>")
# A block of at least three lines none longer than this is a set of lines (an impressum's
# address, a contact block, a signature), not a wrapped paragraph: it keeps its breaks. Text
# pasted from a document wraps at 60 to 100 characters; an address line rarely passes 50.
SHORT_LINE = 50
SHORT_BLOCK_LINES = 3


def _line_set(lines: list[str]) -> bool:
    return len(lines) >= SHORT_BLOCK_LINES and all(
        len(INLINE_TAG.sub("", line)) <= SHORT_LINE for line in lines
    )


def reflow_text(value: str) -> str:
    """Plain partner text as paragraphs that flow with the screen: a blank line parts two
    paragraphs, a single line break inside one is a space (a text pasted from a document
    keeps its hard breaks mid-sentence: "für das gewählte / Quotenjahr"), except before a
    list item, which keeps its own line, and in a block of short lines (an address), which
    keeps all of them. HTML with structure of its own keeps it, its line breaks spaces as
    HTML has them. No newline is left, so the web app's pre-line rendering adds nothing."""
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if "\n" not in text:
        return value  # one line: nothing to reflow
    if STRUCTURE_TAG.search(text):
        return re.sub(r"[ \t]*\n\s*", " ", text)
    paragraphs = []
    for block in re.split(r"\n[ \t]*\n\s*", text):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        keep_all = _line_set(lines)
        joined = lines[0]
        for line in lines[1:]:
            joined += ("<br>" if keep_all or LIST_ITEM.match(line) else " ") + line
        paragraphs.append(f"<p>{joined}</p>")
    return "".join(paragraphs)


def partner_html(value: str) -> str:
    """Partner HTML as it is stored and served, the one place for every HTML text of the
    configuration (FAQ answers, impressum, privacy notice, the advertisement's own HTML, and
    decoded the terms, privacy and finish texts): reflowed (reflow_text), then sanitised; a
    paragraph whose content the sanitiser took away (a form, a script) goes with it."""
    return EMPTY_PARAGRAPH.sub("", sanitize_html(reflow_text(value)))


def _base64_html(value: str) -> str:
    """A base64 text (terms, privacy, finish) holding HTML: decoded, made partner_html,
    encoded again."""
    if not value:
        return value
    try:
        text = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise ValueError("Bitte den Text base64-kodiert (UTF-8) angeben.") from exc
    return base64.b64encode(partner_html(text).encode("utf-8")).decode("ascii")


def _hex_color(value: str) -> str:
    if not HEX_COLOR.match(value):
        raise ValueError("Bitte eine Farbe als #rgb, #rrggbb oder #rrggbbaa angeben.")
    return value.lower()


def _asset_url(value: str | None) -> str | None:
    if value in (None, ""):
        return None
    assert value is not None
    if not ASSET_URL.match(value):
        raise ValueError(
            "Bitte eine http(s)-Adresse, einen Pfad mit / am Anfang oder ein Bild als base64-Data-URL angeben."
        )
    return value


def _web_url(value: str) -> str:
    if value and not WEB_URL.match(value):
        raise ValueError("Bitte eine http(s)-Adresse angeben.")
    return value


# The json_schema_extra markers tell the console's form (tenants.config_form) which widget a
# field gets: a colour picker, an HTML text area, a decoded text area for base64 HTML.
Color = Annotated[str, AfterValidator(_hex_color), Field(json_schema_extra={"format": "color"})]
AssetUrl = Annotated[str | None, AfterValidator(_asset_url)]
WebUrl = Annotated[str, AfterValidator(_web_url)]
Html = Annotated[str, AfterValidator(partner_html), Field(json_schema_extra={"x-html": True})]
Base64Html = Annotated[str, AfterValidator(_base64_html), Field(json_schema_extra={"x-base64-html": True})]
Text = Annotated[str, Field(max_length=5000)]
ShortText = Annotated[str, Field(max_length=300)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, validate_default=True)


with warnings.catch_warnings():
    # `register` is the spec's key; pydantic warns that it shadows BaseModel.register.
    warnings.filterwarnings("ignore", message='Field name "register"')

    class WelcomePage(Strict):
        title: ShortText = Field(default="Jetzt THG-Prämie sichern", title="Überschrift")
        register: Text = Field(
            default="Registrieren Sie Ihr Elektrofahrzeug und erhalten Sie Ihre jährliche THG-Prämie.",
            title="Einleitung",
            description="Der Satz unter der Überschrift der Startseite.",
        )
        four_steps: ShortText = Field(
            default="In vier Schritten zur Prämie", title="Überschrift der Schritte"
        )
        step1: ShortText = Field(default="Bedingungen akzeptieren", title="Schritt 1")
        step2: ShortText = Field(default="E-Mail-Adresse bestätigen", title="Schritt 2")
        step3: ShortText = Field(default="Fahrzeugschein fotografieren oder hochladen", title="Schritt 3")
        step4: ShortText = Field(default="Auszahlungsdaten angeben", title="Schritt 4")
        by_line: ShortText = Field(default="", title="Zeile unter den Schritten", description="Leer: keine.")


class FaqItem(Strict):
    model_config = ConfigDict(title="Frage")

    question: ShortText = Field(title="Frage")
    answer: Annotated[Html, Field(max_length=5000)] = Field(title="Antwort")


LOGIN_INTRO_LINK = "Bitte geben Sie Ihre E-Mail-Adresse ein. Wir senden Ihnen einen Link zur Bestätigung."
LOGIN_INTRO_CODE = "Bitte geben Sie Ihre E-Mail-Adresse ein. Wir senden Ihnen einen Code zur Bestätigung."


class LoginPage(Strict):
    intro: Text = Field(default=LOGIN_INTRO_LINK, title="Einleitung")
    contract_number: ShortText = Field(
        default="",
        title="Beschriftung des Felds für die Vertragsnummer",
        description="Leer: die Standardbeschriftung.",
    )
    invalid_login: ShortText = Field(
        default="Die Anmeldung ist fehlgeschlagen. Bitte versuchen Sie es erneut.",
        title="Meldung bei fehlgeschlagener Anmeldung",
    )
    display_partner_variable: bool = Field(default=False, title="Vertragsnummer abfragen")


class TermsPage(Strict):
    agreed: Text = Field(
        default="Ich akzeptiere die Allgemeinen Geschäftsbedingungen.", title="Text der Zustimmung"
    )
    display_checkbox_free_text_permission: bool = Field(
        default=False, title="Zusätzliche Einwilligung anzeigen"
    )
    free_text_permission_text: Text = Field(default="", title="Text der zusätzlichen Einwilligung")
    make_free_text_mandatory: bool = Field(default=False, title="Zusätzliche Einwilligung ist Pflicht")
    tnc_title: ShortText = Field(default="Teilnahmebedingungen", title="Überschrift der Bedingungen")
    show_email_promotions_flag: bool = Field(default=False, title="Einwilligung in Werbe-E-Mails anbieten")
    email_promotions_text: Text = Field(default="", title="Text der Werbe-Einwilligung")
    fly_out_text: Text = Field(default="", title="Hinweis über den Bedingungen")


class DocumentPage(Strict):
    text: Base64Html = Field(
        default="", title="Text", description="Leer lassen, wenn eine Datei angegeben ist."
    )
    file: AssetUrl = Field(
        default=None, title="Datei (URL)", description="Statt des Textes eine PDF-Datei, als Adresse."
    )


class FinishPage(Strict):
    text: Base64Html = Field(default="", title="Text", description="Erscheint unter der Überschrift (HTML).")
    title: ShortText = Field(default="Vielen Dank für Ihre Registrierung!", title="Überschrift")
    countdown_seconds: int = Field(
        default=0, ge=0, le=600, title="Sekunden bis zur Weiterleitung", description="0: keine."
    )
    is_auto_redirect_enabled: bool = Field(default=False, title="Automatisch weiterleiten")
    is_button_redirect_enabled: bool = Field(default=False, title="Schaltfläche zur Weiterleitung")
    redirect_url: WebUrl = Field(default="", title="Weiterleitung nach Abschluss (URL)")


PaymentOption = Literal["NONE", "BANK", "CHARGECARD", "BANKORCHARGECARD", "BANKANDOPTIONALCHARGECARD"]
PAYMENT_OPTIONS = {
    "NONE": "Keine Auszahlungsdaten abfragen",
    "BANK": "Bankkonto",
    "CHARGECARD": "Ladekarte",
    "BANKORCHARGECARD": "Bankkonto oder Ladekarte",
    "BANKANDOPTIONALCHARGECARD": "Bankkonto, Ladekarte optional",
}


def choices(labels: dict[Any, str]) -> Any:
    """The German names of a field's values, for the console's form (tenants.config_form)."""
    return {"x-choices": {str(value): label for value, label in labels.items()}}


class PaymentPage(Strict):
    payment_option: PaymentOption = Field(
        default="BANK", title="Auszahlungsart", json_schema_extra=choices(PAYMENT_OPTIONS)
    )
    title: ShortText = Field(default="Auszahlung", title="Überschrift")
    text_details: Text = Field(default="", title="Erläuterung")
    input_field_text: ShortText = Field(default="", title="Hinweis am Eingabefeld")
    chargecard_placeholder_text: ShortText = Field(
        default="Ladekarten-ID", title="Platzhalter der Ladekarten-ID"
    )
    client_detail_label: ShortText = Field(default="Ihre Daten", title="Überschrift der Kundendaten")
    text_for_bank: Text = Field(
        default="Die Prämie wird auf Ihr Bankkonto überwiesen.", title="Text bei Bankkonto"
    )
    text_for_chargecard: Text = Field(
        default="Die Prämie wird Ihrer Ladekarte gutgeschrieben.", title="Text bei Ladekarte"
    )
    text_for_bank_or_chargecard: Text = Field(
        default="Wählen Sie, ob die Prämie auf Ihr Bankkonto oder Ihre Ladekarte ausgezahlt wird.",
        title="Text bei Bankkonto oder Ladekarte",
    )
    text_for_bank_and_optional_chargecard: Text = Field(
        default="Die Prämie wird auf Ihr Bankkonto überwiesen; optional können Sie Ihre Ladekarten-ID angeben.",
        title="Text bei Bankkonto, Ladekarte optional",
    )
    placeholder_payment_option: ShortText = Field(
        default="Auszahlungsart wählen", title="Platzhalter der Auszahlungsart"
    )
    placeholder_first_name: ShortText = Field(default="Vorname", title="Platzhalter des Vornamens")
    placeholder_last_name: ShortText = Field(default="Nachname", title="Platzhalter des Nachnamens")


class Pages(Strict):
    welcome: WelcomePage = Field(default=WelcomePage(), title="Startseite")
    faq: list[FaqItem] = Field(default_factory=list, max_length=100, title="Häufige Fragen")
    login: LoginPage = Field(default=LoginPage(), title="Anmeldung")
    terms: TermsPage = Field(default=TermsPage(), title="Bedingungen annehmen")
    termsdetails: DocumentPage = Field(default=DocumentPage(), title="Teilnahmebedingungen")
    privacydetails: DocumentPage = Field(default=DocumentPage(), title="Datenschutzerklärung")
    next_year_termsdetails: DocumentPage = Field(
        default=DocumentPage(), title="Teilnahmebedingungen des nächsten Jahres"
    )
    next_year_privacydetails: DocumentPage = Field(
        default=DocumentPage(), title="Datenschutzerklärung des nächsten Jahres"
    )
    finish: FinishPage = Field(default=FinishPage(), title="Abschlussseite")
    payment: PaymentPage = Field(default=PaymentPage(), title="Auszahlungsseite")


class Colors(Strict):
    gradient_start: Color = Field(default="#0b6e4f", title="Farbverlauf: Anfang")
    gradient_end: Color = Field(default="#08a045", title="Farbverlauf: Ende")
    button: Color = Field(
        default="#0b6e4f", title="Schaltfläche", description="Die Markenfarbe der Schaltflächen."
    )
    button_text: Color = Field(default="#ffffff", title="Schrift auf der Schaltfläche")
    # White step numbers sit on it: #08a045 gave them 3.4:1 (themes.contrast wants 4.5:1).
    circle: Color = Field(
        default="#07893b", title="Kreis der Schritte", description="Die Ziffern darin sind weiß."
    )
    text: Color = Field(default="#1f2933", title="Text")
    input_border: Color = Field(default="#9aa5b1", title="Rahmen der Eingabefelder")
    desktop_box: Color = Field(default="#ffffff", title="Box am Desktop")
    desktop_button: Color = Field(default="#0b6e4f", title="Schaltfläche am Desktop")
    # Links in texts and on the pages: their own colour, so a light brand (a yellow button with
    # dark text) keeps readable links without darkening its button (themes.contrast charges
    # the link pairs to this field). Left out: the button colour, as before it existed.
    link: Color = Field(
        default="#0b6e4f",
        title="Links",
        description="Eigene Farbe für Links, damit eine helle Markenfarbe (z. B. Gelb) die Schaltflächen "
        "behält und Links trotzdem lesbar sind.",
    )

    @model_validator(mode="before")
    @classmethod
    def _link_follows_the_button(cls, data: Any) -> Any:
        button = data.get("button") if isinstance(data, dict) else None
        if isinstance(button, str) and HEX_COLOR.match(button.strip()) and "link" not in data:
            return {**data, "link": data["button"]}
        return data


class QaCreateChoices(Strict):
    current_year: bool = Field(default=True, title="Laufendes Quotenjahr anbieten")
    next_year: bool = Field(default=False, title="Nächstes Quotenjahr anbieten")
    current_year_title: ShortText = Field(
        default="Aktuelles Quotenjahr", title="Bezeichnung des laufenden Jahres"
    )
    current_year_subtext: Text = Field(default="", title="Zusatztext des laufenden Jahres")
    next_year_title: ShortText = Field(default="Nächstes Quotenjahr", title="Bezeichnung des nächsten Jahres")
    next_year_subtext: Text = Field(default="", title="Zusatztext des nächsten Jahres")
    no_allowed_registration_years_message: Text = Field(
        default="", title="Meldung, wenn kein Jahr offen ist", description="Leer: der Standardtext."
    )
    no_price_available: Text = Field(
        default="Für dieses Jahr ist noch kein Preis verfügbar.", title="Meldung ohne Preis"
    )
    placeholder_message: Text = Field(default="", title="Platzhalter der Jahresauswahl")


ADVERTISEMENT_TYPES = {
    "image": "Bild",
    "freetext": "Eigenes HTML",
    "text": "Überschrift, Text und Schaltfläche",
}


class PartnerAdvertisement(Strict):
    id: int | None = Field(
        default=None, title="Nummer", description="Frei wählbar, z. B. für die Auswertung."
    )
    # image: a banner picture; freetext: the partner's HTML; text: headline, text and a button
    # set in the site's own typography (legible on a phone, where a banner's text shrinks).
    type: Literal["image", "freetext", "text"] = Field(
        default="image",
        title="Art",
        description=(
            "Bild: ein Banner, nie höher als der Seitentitel es zulässt. Überschrift, Text und "
            "Schaltfläche: in der Schrift und den Farben der Seite gesetzt, auch auf dem Handy gut lesbar."
        ),
        json_schema_extra=choices(ADVERTISEMENT_TYPES),
    )
    freetext: Html = Field(default="", title="Eigenes HTML")
    image: AssetUrl = Field(default=None, title="Bild (URL)")
    url: WebUrl = Field(default="", title="Ziel des Klicks (URL)")
    enabled: bool = Field(default=False, title="Werbung anzeigen")
    headline: ShortText = Field(
        default="",
        title="Überschrift",
        description=(
            "Für die Anzeige mit Überschrift, Text und Schaltfläche. Bei einem Bild: Handys zeigen "
            "stattdessen Überschrift, Text und Schaltfläche, wenn die Schrift des Bildes dort kleiner "
            "als 12 px würde."
        ),
    )
    text: Text = Field(default="", title="Text", description="Ein bis zwei Sätze unter der Überschrift.")
    button_label: ShortText = Field(
        default="", title="Beschriftung der Schaltfläche", description="Leer: „Mehr erfahren“."
    )


class FeeRow(Strict):
    """What the partner pays the owner for one legislation year and vehicle class, before VAT."""

    model_config = ConfigDict(title="Preis")

    legislation_year: int = Field(ge=2020, le=2100, title="Quotenjahr")
    vehicle_class: Annotated[str, Field(pattern=r"^[A-Z][0-9A-Z]{0,3}$")] = Field(
        default="M1", title="Fahrzeugklasse", description="M1 (Pkw), N1, N2, N3, M3, L3e, L4e, L5e, L7e."
    )
    client_fee: Decimal = Field(ge=0, max_digits=8, decimal_places=2, title="Prämie je Fahrzeug (€, netto)")
    vat_percentage: Decimal = Field(
        default=Decimal("19"), ge=0, le=100, max_digits=5, decimal_places=2, title="Umsatzsteuer (%)"
    )

    @model_validator(mode="after")
    def _in_payout_bounds(self, info: ValidationInfo) -> FeeRow:
        """The platform's bounds per year and class (common.payout_bounds), checked when a
        configuration is saved (config_validate), not when a stored one is read."""
        checked = bool(info.context and info.context.get("payout_bounds"))
        if checked and not payout_in_bounds(self.client_fee, self.legislation_year, self.vehicle_class):
            ceiling = payout_max(self.legislation_year, self.vehicle_class)
            raise ValueError(
                f"Die Prämie muss über 0 und höchstens {german_euros(ceiling)} je Fahrzeug der Klasse "
                f"{self.vehicle_class} im Quotenjahr {self.legislation_year} liegen (Grenze der Plattform)."
            )
        return self


def _unique_fees(rows: list[FeeRow]) -> list[FeeRow]:
    seen = set()
    for row in rows:
        key = (row.legislation_year, row.vehicle_class)
        if key in seen:
            raise ValueError(
                f"Nur ein Preis je Quotenjahr und Fahrzeugklasse ({row.legislation_year}, {row.vehicle_class})."
            )
        seen.add(key)
    return rows


class Wallbox(Strict):
    """Branding only wallbox partners use: a header image above every screen and its text."""

    header_image: AssetUrl = Field(
        default=None, title="Kopfbild (URL)", description="Hochladen unter „Markenbilder“."
    )
    info_text: Text = Field(default="", title="Text zum Kopfbild")


def _payout_iban(value: str) -> str:
    from schwifty import IBAN
    from schwifty.exceptions import SchwiftyException

    if not value:
        return value
    try:
        iban = IBAN(value.replace(" ", ""))
    except SchwiftyException:
        raise ValueError("Bitte eine gültige IBAN angeben.") from None
    if not iban.in_sepa_zone:
        raise ValueError("Bitte eine IBAN aus dem SEPA-Raum angeben.")
    return str(iban.compact)


def _payout_bic(value: str) -> str:
    from schwifty import BIC
    from schwifty.exceptions import SchwiftyException

    if not value:
        return value
    try:
        return str(BIC(value.replace(" ", "").upper()).compact)
    except SchwiftyException:
        raise ValueError("Bitte eine gültige BIC angeben.") from None


class PayoutAccount(Strict):
    """The partner's own account the SEPA payout files debit (operations.sepa); never served
    by the public configuration call."""

    name: Annotated[str, Field(max_length=70)] = Field(default="", title="Kontoinhaber")
    iban: Annotated[str, AfterValidator(_payout_iban)] = Field(
        default="", title="IBAN", description="Von diesem Konto gehen die Auszahlungen an die Halter (SEPA)."
    )
    bic: Annotated[str, AfterValidator(_payout_bic)] = Field(default="", title="BIC", description="Optional.")

    @model_validator(mode="after")
    def _complete(self) -> PayoutAccount:
        if bool(self.name) != bool(self.iban):
            raise ValueError("Bitte Kontoinhaber und IBAN angeben, oder keines von beiden.")
        return self


class Invoicing(Strict):
    """The partner's legal data for the documents it issues to owners (operations.credit_notes):
    the self-billing credit notes of business owners (§ 14 Abs. 2 Satz 2, Abs. 4 UStG) and the
    payout statements of private owners. Never served by the public configuration call."""

    legal_name: Annotated[str, Field(max_length=200)] = Field(
        default="", title="Firma (wie im Handelsregister)"
    )
    street: Annotated[str, Field(max_length=200)] = Field(default="", title="Straße und Hausnummer")
    postal_code: Annotated[str, Field(max_length=10)] = Field(default="", title="Postleitzahl")
    city: Annotated[str, Field(max_length=100)] = Field(default="", title="Ort")
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] = Field(
        default="DE", title="Land", description="Zwei Buchstaben, z. B. DE."
    )
    # USt-IdNr. (e.g. DE123456789) and/or Steuernummer
    vat_id: Annotated[str, Field(max_length=20, pattern=r"^([A-Z]{2}[0-9A-Z]{2,13})?$")] = Field(
        default="", title="USt-IdNr.", description="z. B. DE123456789"
    )
    tax_number: Annotated[str, Field(max_length=20)] = Field(default="", title="Steuernummer")
    # A VAT-liable business owner's credit note: VAT shown (standard) or the recipient owes it
    # (reverse charge, § 13b UStG), as the partner's tax adviser decided.
    business_vat_mode: Literal["standard", "reverse_charge"] = Field(
        default="standard",
        title="Umsatzsteuer in Gutschriften an Unternehmen",
        description="Wie der Steuerberater des Partners es festgelegt hat.",
        json_schema_extra=choices(
            {
                "standard": "Ausweisen",
                "reverse_charge": "Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)",
            }
        ),
    )
    # The self-billing agreement as the terms carry it; printed on every credit note.
    self_billing_clause: Text = Field(
        default="Abrechnung im Gutschriftsverfahren (§ 14 Abs. 2 Satz 2 UStG) gemäß den Teilnahmebedingungen. "
        "Sie können dem Gutschriftsverfahren widersprechen.",
        title="Hinweis zum Gutschriftsverfahren",
        description="Steht auf jeder Gutschrift.",
    )


def _blank_is_none(value: Any) -> Any:
    # The console's form sends an emptied number field as "".
    return None if value == "" else value


# Days, or empty for the platform's default.
Days = Annotated[int | None, BeforeValidator(_blank_is_none)]


class Retention(Strict):
    """How long this partner keeps personal data, in days (privacy.retention applies it daily;
    docs/privacy.md). Empty: the platform's default (settings RETENTION_*). The bounds keep a
    partner within the law: long enough for what the process needs (an owner's objection to a
    refusal, the authority's questions after a payout), never longer than the purpose allows
    (GDPR Art. 5(1)(e)). Payout records are kept by tax law (10 years) and not configurable."""

    # Registrations and billing data of flows never finished (default 30)
    unfinished_days: Days = Field(
        default=None,
        ge=7,
        le=90,
        title="Abgebrochene Registrierungen (Tage)",
        description="7 bis 90; leer: 30.",
    )
    # Refused applications, after their last move (default 90)
    refused_days: Days = Field(
        default=None, ge=30, le=365, title="Abgelehnte Anträge (Tage)", description="30 bis 365; leer: 90."
    )
    # Login codes, links and spent sessions (default 30)
    login_days: Days = Field(
        default=None, ge=1, le=90, title="Anmeldecodes und -links (Tage)", description="1 bis 90; leer: 30."
    )
    # Device data of the flow (default 30)
    device_days: Days = Field(
        default=None, ge=1, le=90, title="Gerätedaten (Tage)", description="1 bis 90; leer: 30."
    )
    # Scans after the payout of every application of the vehicle (default 365)
    scans_after_payout_days: Days = Field(
        default=None,
        ge=30,
        le=1095,
        title="Scans nach der Auszahlung (Tage)",
        description="30 bis 1095; leer: 365.",
    )
    # The original scan after the authority submission released it (default 0: at once)
    original_scan_days: Days = Field(
        default=None,
        ge=0,
        le=90,
        title="Originalscan nach der Einreichung (Tage)",
        description="0 bis 90; leer: 0 (sofort).",
    )
    # Accounts without any activity, nothing in progress: erased as on the owner's request
    # (payout records kept pseudonymised). Default: never.
    inactive_account_days: Days = Field(
        default=None,
        ge=365,
        le=3650,
        title="Inaktive Konten (Tage)",
        description="365 bis 3650; leer: nie löschen.",
    )
    # Scans of a vehicle's document after its year's submission to the authority, in years
    # (default 3, the law's minimum, 38. BImSchV § 7: longer allowed, never shorter)
    scan_years_after_submission: Days = Field(
        default=None,
        ge=3,
        le=10,
        title="Scans nach der Einreichung beim UBA (Jahre)",
        description="3 bis 10 (gesetzliches Minimum 3); leer: 3.",
    )


class OwnerMails(Strict):
    """The status mails owners get (quota.owner_mails); a partner switches each one off."""

    received: bool = Field(default=True, title="Antrag eingegangen")
    submitted: bool = Field(default=True, title="beim Umweltbundesamt eingereicht")
    certified: bool = Field(default=True, title="Quote bescheinigt")
    refused: bool = Field(default=True, title="abgelehnt (Doppelvermarktung)")
    paid: bool = Field(default=True, title="Prämie ausgezahlt")
    payment_failed: bool = Field(default=True, title="Auszahlung fehlgeschlagen")


class PartnerConfig(Strict):
    pages: Pages = Field(default=Pages(), title="Seiten")
    colors: Colors = Field(
        default=Colors(), title="Farben", description="Zu wenig Kontrast wird beim Speichern abgelehnt."
    )
    page_title: ShortText = Field(
        default="THG-Quote", title="Titel der Website", description="Steht im Browser-Tab."
    )
    detail: Text = Field(default="", title="Kurzbeschreibung")
    favicon: AssetUrl = Field(
        default=None, title="Favicon (URL)", description="Hochladen unter „Markenbilder“."
    )
    logo: AssetUrl = Field(default=None, title="Logo (URL)", description="Hochladen unter „Markenbilder“.")
    # The logo's width / height and its smallest text's font size as a share of its height
    # (0: a mark without text), measured by the console on upload (tenants.brand); empty: the
    # theme compiler measures a data URL itself (themes.logo) and sizes the logo from them.
    logo_aspect: float | None = Field(
        default=None, gt=0, le=20, title="Seitenverhältnis des Logos", description="Beim Hochladen gemessen."
    )
    logo_text_share: float | None = Field(
        default=None, ge=0, le=1, title="Schriftanteil des Logos", description="Beim Hochladen gemessen."
    )
    by_provider_gmbh: bool = Field(default=False, title="Im Namen der Plattform-GmbH")
    provider_is_contractual_partner: bool = Field(default=False, title="Plattform-GmbH ist Vertragspartner")
    font_family: FontFamily = Field(default="Open Sans", title="Schriftart")
    item_alignment: Literal["left", "center", "right"] = Field(
        default="center",
        title="Ausrichtung der Überschriften",
        json_schema_extra=choices({"left": "Links", "center": "Mittig", "right": "Rechts"}),
    )
    display_title_dot: bool = Field(default=False, title="Punkt hinter Überschriften")
    partner: ShortText = Field(default="", title="Name des Partners auf der Website")
    authentication_flow: Literal["link", "otp"] = Field(
        default="link",
        title="Anmeldung der Halter",
        json_schema_extra=choices({"link": "Link per E-Mail", "otp": "Code per E-Mail"}),
    )
    faq_youtube_video_link: WebUrl = Field(default="", title="Video zu den häufigen Fragen (YouTube-Link)")
    gtm_id: Annotated[str, Field(max_length=40, pattern=r"^[A-Za-z0-9-]*$")] = Field(
        default="", title="Google-Tag-Manager-ID", description="z. B. GTM-ABC1234; leer: kein Tag Manager."
    )
    enable_private_business_registration: bool = Field(
        default=False, title="Privat- und Firmenkunden unterscheiden"
    )
    show_gender_option: bool = Field(default=True, title="Anrede abfragen")
    gender_option: Literal[1, 2, 3] = Field(
        default=1,
        title="Angebotene Anreden",
        json_schema_extra=choices(
            {1: "Frau, Herr", 2: "Frau, Herr, divers", 3: "Frau, Herr, divers, keine Angabe"}
        ),
    )
    show_impressum: bool = Field(
        default=False, title="Impressum anzeigen", description="Pflicht vor dem Aktivieren."
    )
    impressum_details: Html = Field(default="", title="Impressum")
    show_data_privacy: bool = Field(default=False, title="Datenschutzhinweis anzeigen")
    data_privacy_text: Html = Field(default="", title="Datenschutzhinweis (kurz)")
    end_user_portal_enable: bool = Field(default=False, title="Kundenportal")
    show_client_fee_euro_amount: bool = Field(default=False, title="Prämie in Euro zeigen")
    # The portal's fee rows: amounts with their VAT breakdown when display_vat is on.
    fees: Annotated[list[FeeRow], AfterValidator(_unique_fees), Field(max_length=200)] = Field(
        default_factory=list,
        title="Preise",
        description="Eine Zeile je Quotenjahr und Fahrzeugklasse; vor dem Aktivieren mindestens eine je "
        "offenem Jahr (oder die Preise im Partnerbereich).",
    )
    display_vat: bool = Field(default=False, title="Umsatzsteuer ausweisen")
    # Every portal login needs the e-mailed code, not only one from a new device.
    portal_login_extra_check: bool = Field(
        default=False, title="Code bei jeder Portal-Anmeldung", description="Nicht nur von einem neuen Gerät."
    )
    qa_create_choices: QaCreateChoices = Field(default=QaCreateChoices(), title="Quotenjahre")
    partneradvertisement: PartnerAdvertisement = Field(default=PartnerAdvertisement(), title="Werbung")
    wallbox: Wallbox = Field(default=Wallbox(), title="Wallbox-Partner")
    payout_account: PayoutAccount = Field(
        default=PayoutAccount(), title="Auszahlungskonto", description="Pflicht vor dem Aktivieren."
    )
    invoicing: Invoicing = Field(default=Invoicing(), title="Rechnungsangaben für Gutschriften")
    retention: Retention = Field(default=Retention(), title="Aufbewahrung personenbezogener Daten")
    owner_mails: OwnerMails = Field(default=OwnerMails(), title="E-Mails an Halter")

    @model_validator(mode="after")
    def _login_intro_follows_the_flow(self) -> PartnerConfig:
        # The default intro promises a link; a partner on the code login who did not write
        # its own intro gets the same sentence with a code (stored so by config_normalise).
        login = self.pages.login
        if (
            self.authentication_flow == "otp"
            and login.intro == LOGIN_INTRO_LINK
            and ("intro" not in login.model_fields_set or "login" not in self.pages.model_fields_set)
        ):
            # copies, never the shared default instances
            self.pages = self.pages.model_copy(
                update={"login": login.model_copy(update={"intro": LOGIN_INTRO_CODE})}
            )
        return self


class ConfigErrors(ValueError):
    """Invalid configuration, with one message per field path ('pages.finish.redirect_url')."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


# pydantic's own messages, by error type, in German: the console's operators read them.
GERMAN_MESSAGES = {
    "string_too_long": "Höchstens {max_length} Zeichen.",
    "string_too_short": "Mindestens {min_length} Zeichen.",
    "string_pattern_mismatch": "Das Format passt nicht.",
    "string_type": "Bitte einen Text angeben.",
    "literal_error": "Bitte eine der angebotenen Möglichkeiten wählen: {expected}.",
    "greater_than_equal": "Mindestens {ge}.",
    "greater_than": "Mehr als {gt}.",
    "less_than_equal": "Höchstens {le}.",
    "less_than": "Weniger als {lt}.",
    "int_parsing": "Bitte eine ganze Zahl angeben.",
    "int_type": "Bitte eine ganze Zahl angeben.",
    "int_from_float": "Bitte eine ganze Zahl angeben.",
    "float_parsing": "Bitte eine Zahl angeben.",
    "float_type": "Bitte eine Zahl angeben.",
    "decimal_parsing": "Bitte einen Betrag angeben, z. B. 85 oder 85.50.",
    "decimal_type": "Bitte einen Betrag angeben, z. B. 85 oder 85.50.",
    "decimal_max_places": "Höchstens {decimal_places} Nachkommastellen.",
    "decimal_max_digits": "Höchstens {max_digits} Ziffern.",
    "decimal_whole_digits": "Höchstens {whole_digits} Stellen vor dem Komma.",
    "bool_parsing": "Bitte ja oder nein angeben.",
    "bool_type": "Bitte ja oder nein angeben.",
    "extra_forbidden": "Unbekanntes Feld.",
    "missing": "Pflichtfeld.",
    "too_long": "Höchstens {max_length} Einträge.",
    "list_type": "Bitte eine Liste angeben.",
    "dict_type": "Bitte ein Objekt angeben.",
    "model_type": "Bitte ein Objekt angeben.",
}


@cache
def _json_schema() -> dict[str, Any]:
    return PartnerConfig.model_json_schema()


def _schema_node(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A schema node with its reference followed (pydantic's $ref, or allOf around one)."""
    while True:
        if "$ref" in node:
            node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
        elif "allOf" in node and len(node["allOf"]) == 1:
            node = {**node["allOf"][0], **{k: v for k, v in node.items() if k != "allOf"}}
        else:
            return node


def _choice_names(loc: tuple[Any, ...]) -> str | None:
    """The allowed values of the field at `loc` by their German names (the schema's x-choices),
    each with the value to write in a JSON import: 'Links („left“), Mittig („center“) oder
    Rechts („right“)'. None for a field the schema has no fixed values for."""
    schema = _json_schema()
    defs = schema.get("$defs", {})
    node: dict[str, Any] = schema
    for part in loc:
        node = _schema_node(node, defs)
        if isinstance(part, int):
            node = node.get("items") or {}
            continue
        options = [_schema_node(option, defs) for option in node.get("anyOf", [])]
        holder = next((o for o in [node, *options] if part in o.get("properties", {})), None)
        if holder is None:
            return None
        node = holder["properties"][part]
    node = _schema_node(node, defs)
    for option in [node, *(_schema_node(o, defs) for o in node.get("anyOf", []))]:
        values = option.get("enum") or ([option["const"]] if "const" in option else None)
        if values:
            names = {**(node.get("x-choices") or {}), **(option.get("x-choices") or {})}
            shown = [
                f"{names[str(value)]} („{value}“)" if str(value) in names else f"„{value}“"
                for value in values
            ]
            return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} oder {shown[-1]}"
    return None


def _message(error: Any) -> str:
    if error.get("type") in {"literal_error", "enum"}:
        # The allowed values by their German names, never pydantic's list of raw values.
        names = _choice_names(tuple(error.get("loc") or ()))
        if names is not None:
            given = str(error.get("input"))[:40]
            return f"„{given}“ ist nicht möglich. Bitte eine der angebotenen Möglichkeiten wählen: {names}."
    template = GERMAN_MESSAGES.get(error.get("type", ""))
    if template is not None:
        context = {
            key: (str(value).replace(" or ", " oder ") if key == "expected" else value)
            for key, value in (error.get("ctx") or {}).items()
        }
        try:
            return template.format(**context)
        except (KeyError, IndexError):
            pass
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def config_validate(data: Any) -> PartnerConfig:
    """Validate a stored or submitted configuration; raise ConfigErrors keyed by field path."""
    if data is None:
        data = {}
    try:
        return PartnerConfig.model_validate(data, context={"payout_bounds": True})
    except ValidationError as exc:
        errors: dict[str, list[str]] = {}
        for error in exc.errors():
            path = ".".join(str(part) for part in error["loc"]) or "config"
            errors.setdefault(path, []).append(_message(error))
        raise ConfigErrors(errors) from None


# Configuration the partner keeps to itself: never in the public configuration call.
PRIVATE_KEYS = frozenset({"payout_account", "retention", "invoicing", "owner_mails"})


def config_public(config: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in config.items() if key not in PRIVATE_KEYS}


def config_normalise(data: Any) -> dict[str, Any]:
    """The configuration as stored: validated, sanitised, every default filled in."""
    return config_validate(data).model_dump(mode="json")

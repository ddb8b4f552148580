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
from typing import Annotated, Any, Literal

import nh3
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

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


def _base64_html(value: str) -> str:
    """A base64 text (terms, privacy, finish) holding HTML: decoded, sanitised, encoded again."""
    if not value:
        return value
    try:
        text = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise ValueError("Enter the text base64-encoded (UTF-8).") from exc
    return base64.b64encode(sanitize_html(text).encode("utf-8")).decode("ascii")


def _hex_color(value: str) -> str:
    if not HEX_COLOR.match(value):
        raise ValueError("Enter a colour as #rgb, #rrggbb or #rrggbbaa.")
    return value.lower()


def _asset_url(value: str | None) -> str | None:
    if value in (None, ""):
        return None
    assert value is not None
    if not ASSET_URL.match(value):
        raise ValueError("Enter an http(s) URL, a path starting with / or a base64 image data URL.")
    return value


def _web_url(value: str) -> str:
    if value and not WEB_URL.match(value):
        raise ValueError("Enter an http(s) URL.")
    return value


# The json_schema_extra markers tell the console's form (tenants.config_form) which widget a
# field gets: a colour picker, an HTML text area, a decoded text area for base64 HTML.
Color = Annotated[str, AfterValidator(_hex_color), Field(json_schema_extra={"format": "color"})]
AssetUrl = Annotated[str | None, AfterValidator(_asset_url)]
WebUrl = Annotated[str, AfterValidator(_web_url)]
Html = Annotated[str, AfterValidator(sanitize_html), Field(json_schema_extra={"x-html": True})]
Base64Html = Annotated[str, AfterValidator(_base64_html), Field(json_schema_extra={"x-base64-html": True})]
Text = Annotated[str, Field(max_length=5000)]
ShortText = Annotated[str, Field(max_length=300)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, validate_default=True)


with warnings.catch_warnings():
    # `register` is the spec's key; pydantic warns that it shadows BaseModel.register.
    warnings.filterwarnings("ignore", message='Field name "register"')

    class WelcomePage(Strict):
        title: ShortText = "Jetzt THG-Prämie sichern"
        register: Text = "Registrieren Sie Ihr Elektrofahrzeug und erhalten Sie Ihre jährliche THG-Prämie."
        four_steps: ShortText = "In vier Schritten zur Prämie"
        step1: ShortText = "Bedingungen akzeptieren"
        step2: ShortText = "E-Mail-Adresse bestätigen"
        step3: ShortText = "Fahrzeugschein fotografieren oder hochladen"
        step4: ShortText = "Auszahlungsdaten angeben"
        by_line: ShortText = ""


class FaqItem(Strict):
    question: ShortText
    answer: Annotated[Html, Field(max_length=5000)]


LOGIN_INTRO_LINK = "Bitte geben Sie Ihre E-Mail-Adresse ein. Wir senden Ihnen einen Link zur Bestätigung."
LOGIN_INTRO_CODE = "Bitte geben Sie Ihre E-Mail-Adresse ein. Wir senden Ihnen einen Code zur Bestätigung."


class LoginPage(Strict):
    intro: Text = LOGIN_INTRO_LINK
    contract_number: ShortText = ""
    invalid_login: ShortText = "Die Anmeldung ist fehlgeschlagen. Bitte versuchen Sie es erneut."
    display_partner_variable: bool = False


class TermsPage(Strict):
    agreed: Text = "Ich akzeptiere die Allgemeinen Geschäftsbedingungen."
    display_checkbox_free_text_permission: bool = False
    free_text_permission_text: Text = ""
    make_free_text_mandatory: bool = False
    tnc_title: ShortText = "Teilnahmebedingungen"
    show_email_promotions_flag: bool = False
    email_promotions_text: Text = ""
    fly_out_text: Text = ""


class DocumentPage(Strict):
    text: Base64Html = ""
    file: AssetUrl = None


class FinishPage(Strict):
    text: Base64Html = ""
    title: ShortText = "Vielen Dank für Ihre Registrierung!"
    countdown_seconds: int = Field(default=0, ge=0, le=600)
    is_auto_redirect_enabled: bool = False
    is_button_redirect_enabled: bool = False
    redirect_url: WebUrl = ""


PaymentOption = Literal["NONE", "BANK", "CHARGECARD", "BANKORCHARGECARD", "BANKANDOPTIONALCHARGECARD"]


class PaymentPage(Strict):
    payment_option: PaymentOption = "BANK"
    title: ShortText = "Auszahlung"
    text_details: Text = ""
    input_field_text: ShortText = ""
    chargecard_placeholder_text: ShortText = "Ladekarten-ID"
    client_detail_label: ShortText = "Ihre Daten"
    text_for_bank: Text = "Die Prämie wird auf Ihr Bankkonto überwiesen."
    text_for_chargecard: Text = "Die Prämie wird Ihrer Ladekarte gutgeschrieben."
    text_for_bank_or_chargecard: Text = (
        "Wählen Sie, ob die Prämie auf Ihr Bankkonto oder Ihre Ladekarte ausgezahlt wird."
    )
    text_for_bank_and_optional_chargecard: Text = (
        "Die Prämie wird auf Ihr Bankkonto überwiesen; optional können Sie Ihre Ladekarten-ID angeben."
    )
    placeholder_payment_option: ShortText = "Auszahlungsart wählen"
    placeholder_first_name: ShortText = "Vorname"
    placeholder_last_name: ShortText = "Nachname"


class Pages(Strict):
    welcome: WelcomePage = WelcomePage()
    faq: list[FaqItem] = Field(default_factory=list, max_length=100)
    login: LoginPage = LoginPage()
    terms: TermsPage = TermsPage()
    termsdetails: DocumentPage = DocumentPage()
    privacydetails: DocumentPage = DocumentPage()
    next_year_termsdetails: DocumentPage = DocumentPage()
    next_year_privacydetails: DocumentPage = DocumentPage()
    finish: FinishPage = FinishPage()
    payment: PaymentPage = PaymentPage()


class Colors(Strict):
    gradient_start: Color = "#0b6e4f"
    gradient_end: Color = "#08a045"
    button: Color = "#0b6e4f"
    button_text: Color = "#ffffff"
    # White step numbers sit on it: #08a045 gave them 3.4:1 (themes.contrast wants 4.5:1).
    circle: Color = "#07893b"
    text: Color = "#1f2933"
    input_border: Color = "#9aa5b1"
    desktop_box: Color = "#ffffff"
    desktop_button: Color = "#0b6e4f"


class QaCreateChoices(Strict):
    current_year: bool = True
    next_year: bool = False
    current_year_title: ShortText = "Aktuelles Quotenjahr"
    current_year_subtext: Text = ""
    next_year_title: ShortText = "Nächstes Quotenjahr"
    next_year_subtext: Text = ""
    no_allowed_registration_years_message: Text = ""
    no_price_available: Text = "Für dieses Jahr ist noch kein Preis verfügbar."
    placeholder_message: Text = ""


class PartnerAdvertisement(Strict):
    id: int | None = None
    type: Literal["image", "freetext"] = "image"
    freetext: Html = ""
    image: AssetUrl = None
    url: WebUrl = ""
    enabled: bool = False


class FeeRow(Strict):
    """What the partner pays the owner for one legislation year and vehicle class, before VAT."""

    legislation_year: int = Field(ge=2020, le=2100)
    vehicle_class: Annotated[str, Field(pattern=r"^[A-Z][0-9A-Z]{0,3}$")] = "M1"
    client_fee: Decimal = Field(ge=0, max_digits=8, decimal_places=2)
    vat_percentage: Decimal = Field(default=Decimal("19"), ge=0, le=100, max_digits=5, decimal_places=2)


def _unique_fees(rows: list[FeeRow]) -> list[FeeRow]:
    seen = set()
    for row in rows:
        key = (row.legislation_year, row.vehicle_class)
        if key in seen:
            raise ValueError(
                f"Only one fee per year and vehicle class ({row.legislation_year}, {row.vehicle_class})."
            )
        seen.add(key)
    return rows


class Wallbox(Strict):
    """Branding only wallbox partners use: a header image above every screen and its text."""

    header_image: AssetUrl = None
    info_text: Text = ""


def _payout_iban(value: str) -> str:
    from schwifty import IBAN
    from schwifty.exceptions import SchwiftyException

    if not value:
        return value
    try:
        iban = IBAN(value.replace(" ", ""))
    except SchwiftyException:
        raise ValueError("Enter a valid IBAN.") from None
    if not iban.in_sepa_zone:
        raise ValueError("Enter an IBAN of the SEPA zone.")
    return str(iban.compact)


def _payout_bic(value: str) -> str:
    from schwifty import BIC
    from schwifty.exceptions import SchwiftyException

    if not value:
        return value
    try:
        return str(BIC(value.replace(" ", "").upper()).compact)
    except SchwiftyException:
        raise ValueError("Enter a valid BIC.") from None


class PayoutAccount(Strict):
    """The partner's own account the SEPA payout files debit (operations.sepa); never served
    by the public configuration call."""

    name: Annotated[str, Field(max_length=70)] = ""
    iban: Annotated[str, AfterValidator(_payout_iban)] = ""
    bic: Annotated[str, AfterValidator(_payout_bic)] = ""

    @model_validator(mode="after")
    def _complete(self) -> PayoutAccount:
        if bool(self.name) != bool(self.iban):
            raise ValueError("Enter both the account holder and the IBAN, or neither.")
        return self


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
    unfinished_days: Days = Field(default=None, ge=7, le=90)
    # Refused applications, after their last move (default 90)
    refused_days: Days = Field(default=None, ge=30, le=365)
    # Login codes, links and spent sessions (default 30)
    login_days: Days = Field(default=None, ge=1, le=90)
    # Device data of the flow (default 30)
    device_days: Days = Field(default=None, ge=1, le=90)
    # Scans after the payout of every application of the vehicle (default 365)
    scans_after_payout_days: Days = Field(default=None, ge=30, le=1095)
    # The original scan after the authority submission released it (default 0: at once)
    original_scan_days: Days = Field(default=None, ge=0, le=90)
    # Accounts without any activity, nothing in progress: erased as on the owner's request
    # (payout records kept pseudonymised). Default: never.
    inactive_account_days: Days = Field(default=None, ge=365, le=3650)


class PartnerConfig(Strict):
    pages: Pages = Pages()
    colors: Colors = Colors()
    page_title: ShortText = "THG-Quote"
    detail: Text = ""
    favicon: AssetUrl = None
    logo: AssetUrl = None
    by_provider_gmbh: bool = False
    provider_is_contractual_partner: bool = False
    font_family: FontFamily = "Open Sans"
    item_alignment: Literal["left", "center", "right"] = "center"
    display_title_dot: bool = False
    partner: ShortText = ""
    authentication_flow: Literal["link", "otp"] = "link"
    faq_youtube_video_link: WebUrl = ""
    gtm_id: Annotated[str, Field(max_length=40, pattern=r"^[A-Za-z0-9-]*$")] = ""
    enable_private_business_registration: bool = False
    show_gender_option: bool = True
    gender_option: Literal[1, 2, 3] = 1
    show_impressum: bool = False
    impressum_details: Html = ""
    show_data_privacy: bool = False
    data_privacy_text: Html = ""
    end_user_portal_enable: bool = False
    show_client_fee_euro_amount: bool = False
    # The portal's fee rows: amounts with their VAT breakdown when display_vat is on.
    fees: Annotated[list[FeeRow], AfterValidator(_unique_fees), Field(max_length=200)] = Field(
        default_factory=list
    )
    display_vat: bool = False
    # Every portal login needs the e-mailed code, not only one from a new device.
    portal_login_extra_check: bool = False
    qa_create_choices: QaCreateChoices = QaCreateChoices()
    partneradvertisement: PartnerAdvertisement = PartnerAdvertisement()
    wallbox: Wallbox = Wallbox()
    payout_account: PayoutAccount = PayoutAccount()
    retention: Retention = Retention()

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


def _message(error: Any) -> str:
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def config_validate(data: Any) -> PartnerConfig:
    """Validate a stored or submitted configuration; raise ConfigErrors keyed by field path."""
    if data is None:
        data = {}
    try:
        return PartnerConfig.model_validate(data)
    except ValidationError as exc:
        errors: dict[str, list[str]] = {}
        for error in exc.errors():
            path = ".".join(str(part) for part in error["loc"]) or "config"
            errors.setdefault(path, []).append(_message(error))
        raise ConfigErrors(errors) from None


# Configuration the partner keeps to itself: never in the public configuration call.
PRIVATE_KEYS = frozenset({"payout_account", "retention"})


def config_public(config: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in config.items() if key not in PRIVATE_KEYS}


def config_normalise(data: Any) -> dict[str, Any]:
    """The configuration as stored: validated, sanitised, every default filled in."""
    return config_validate(data).model_dump(mode="json")

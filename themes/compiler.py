"""Theme compiler: partner configuration + kind -> the bundle the web app and Storybook use.

Pure and deterministic: the same configuration and kind give byte-identical JSON, so the
bundle is cached by the hash of its input and can be compared with golden files. React
only calls `createTheme(bundle.mui)`; everything partner-specific is decided here.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any, Literal

from common.partner_config import PartnerConfig
from themes.logo import ad_banner_box, logo_box
from themes.perceptual import status_palette
from themes.texts import texts_for

Kind = Literal["standard", "utility", "wallbox"]
KINDS: tuple[Kind, ...] = ("standard", "utility", "wallbox")

COMPILER_VERSION = "10"

FONT_PACKAGES = {
    "Open Sans": "open-sans",
    "Roboto": "roboto",
    "Lato": "lato",
    "Montserrat": "montserrat",
    "Inter": "inter",
}


def config_hash(config: dict[str, Any], kind: str) -> str:
    payload = json.dumps([COMPILER_VERSION, kind, config], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _tokens(config: PartnerConfig, kind: Kind) -> dict[str, Any]:
    colors = config.colors
    return {
        "gradient": f"linear-gradient(135deg, {colors.gradient_start} 0%, {colors.gradient_end} 100%)",
        "button": colors.button,
        "buttonText": colors.button_text,
        "circle": colors.circle,
        "text": colors.text,
        "inputBorder": colors.input_border,
        "desktopBox": colors.desktop_box,
        "desktopButton": colors.desktop_button,
        "itemAlignment": config.item_alignment,
        "titleDot": config.display_title_dot,
        # Utility partners set titles in upper case with a coloured underline.
        "titleStyle": "utility" if kind == "utility" else "default",
        "headerImage": config.wallbox.header_image if kind == "wallbox" else None,
        "headerInfoText": config.wallbox.info_text if kind == "wallbox" else "",
    }


def _palette(config: PartnerConfig) -> dict[str, Any]:
    colors = config.colors
    # A focused field is outlined in the primary, a field in error in the error colour: the
    # status colours keep a perceptual distance from the brand (themes.perceptual).
    status = status_palette(colors.button)
    return {
        "mode": "light",
        "primary": {"main": colors.button, "contrastText": colors.button_text},
        "secondary": {"main": colors.circle, "contrastText": "#ffffff"},
        "error": {"main": status["error"]},
        "warning": {"main": status["warning"]},
        "success": {"main": status["success"]},
        # Links (MuiLink, partner HTML): their own colour, never the button's (themes.contrast).
        "link": {"main": colors.link},
        "text": {"primary": colors.text},
        "background": {"default": "#ffffff", "paper": colors.desktop_box},
    }


# The weights every partner font is loaded in (web/src/theme/fonts.ts): a weight the page
# has no face for would be synthesised by the browser (smeared bold) or fall back to 400.
FONT_WEIGHTS = (400, 700)
# MUI's `sm` breakpoint: below it is a phone.
PHONE = "@media (max-width:599.95px)"


def _typography(config: PartnerConfig, kind: Kind) -> dict[str, Any]:
    """Every variant the screens use, sized for a phone first: the page title (h1) is the
    largest text on a screen; section headings (h3, legends, the billing summary) sit
    between it and the body. MUI's defaults (h3 at 3rem, h4 at 2.125rem) never show."""
    family = f'"{config.font_family}", "Helvetica Neue", Arial, sans-serif'
    bold, regular = FONT_WEIGHTS[1], FONT_WEIGHTS[0]
    # German titles are long single words ("Teilnahmebedingungen" at 28 px is wider than a
    # 320 px phone's column): they hyphenate, or break, instead of widening the page.
    wrap: dict[str, Any] = {"overflowWrap": "anywhere", "hyphens": "auto"}
    title: dict[str, Any] = {"fontWeight": bold, "textAlign": config.item_alignment, **wrap}
    heading: dict[str, Any] = {"fontWeight": bold, **wrap}
    if kind == "utility":
        title = {**title, "textTransform": "uppercase", "letterSpacing": "0.04em"}
    return {
        "fontFamily": family,
        "fontWeightLight": regular,
        "fontWeightRegular": regular,
        "fontWeightMedium": bold,
        "fontWeightBold": bold,
        # On a phone the title steps down (22 px): "BESTÄTIGUNGSCODE" in the utility kind's
        # upper case fits a 390 px card instead of breaking its last letter onto a line.
        "h1": {**title, "fontSize": "1.75rem", "lineHeight": 1.25, PHONE: {"fontSize": "1.375rem"}},
        "h2": {**title, "fontSize": "1.375rem", "lineHeight": 1.3},
        "h3": {**heading, "fontSize": "1.125rem", "lineHeight": 1.35},
        "h4": {**heading, "fontSize": "1.0625rem", "lineHeight": 1.4},
        "h5": {**heading, "fontSize": "1rem", "lineHeight": 1.4},
        "h6": {**heading, "fontSize": "0.9375rem", "lineHeight": 1.4},
        "subtitle1": {"fontWeight": bold, "fontSize": "1rem", "lineHeight": 1.5},
        "subtitle2": {"fontWeight": bold, "fontSize": "0.875rem", "lineHeight": 1.45},
        "body1": {"fontWeight": regular, "fontSize": "1rem", "lineHeight": 1.5},
        "body2": {"fontWeight": regular, "fontSize": "0.875rem", "lineHeight": 1.45},
        "caption": {"fontWeight": regular, "fontSize": "0.75rem", "lineHeight": 1.4},
        "overline": {
            "fontWeight": bold,
            "fontSize": "0.75rem",
            "lineHeight": 1.6,
            "letterSpacing": "0.08em",
            "textTransform": "uppercase",
        },
        "button": {"textTransform": "none", "fontWeight": bold, "fontSize": "1rem", "lineHeight": 1.5},
    }


def _components(config: PartnerConfig, kind: Kind) -> dict[str, Any]:
    colors = config.colors
    radius = {"standard": 24, "utility": 4, "wallbox": 0}[kind]
    field_radius = {"standard": 8, "utility": 4, "wallbox": 0}[kind]
    components: dict[str, Any] = {
        "MuiButton": {
            "defaultProps": {"disableElevation": True},
            "styleOverrides": {
                "root": {"borderRadius": radius, "paddingLeft": 24, "paddingRight": 24, "minHeight": 44},
                "containedPrimary": {"backgroundColor": colors.button, "color": colors.button_text},
            },
        },
        "MuiLink": {
            "styleOverrides": {
                "root": {"color": colors.link, "textDecorationColor": _translucent(colors.link, 0.4)}
            }
        },
        # Inputs and selects: 16 px text so a phone does not zoom into the field on focus.
        "MuiInputBase": {"styleOverrides": {"input": {"fontSize": "1rem"}}},
        "MuiOutlinedInput": {
            "styleOverrides": {
                "root": {"borderRadius": field_radius},
                "notchedOutline": {"borderColor": colors.input_border},
            },
        },
        "MuiInputLabel": {"styleOverrides": {"root": {"fontSize": "1rem"}}},
        "MuiFormHelperText": {"styleOverrides": {"root": {"fontSize": "0.8125rem", "marginLeft": 0}}},
        "MuiCheckbox": {"styleOverrides": {"root": {"color": colors.input_border}}},
        "MuiDialog": {"styleOverrides": {"paper": {"borderRadius": field_radius, "margin": 16}}},
        "MuiDialogTitle": {"styleOverrides": {"root": {"fontSize": "1.125rem", "fontWeight": 700}}},
        "MuiAlert": {"styleOverrides": {"root": {"fontSize": "0.9375rem", "borderRadius": field_radius}}},
    }
    return components


def _translucent(color: str, alpha: float) -> str:
    """A #rgb/#rrggbb colour at the given opacity, as MUI underlines a link."""
    digits = color.lstrip("#")[:6] if len(color) != 4 else "".join(c * 2 for c in color.lstrip("#"))
    red, green, blue = (int(digits[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({red}, {green}, {blue}, {alpha})"


def _flags(config: PartnerConfig, kind: Kind) -> dict[str, Any]:
    return {
        "isUtility": kind == "utility",
        "isWallbox": kind == "wallbox",
        "providerBranded": config.by_provider_gmbh,
        "authenticationFlow": config.authentication_flow,
        "privateBusinessRegistration": config.enable_private_business_registration,
        "showGenderOption": config.show_gender_option,
        "genderOption": config.gender_option,
        "showImpressum": config.show_impressum and bool(config.impressum_details),
        "showDataPrivacy": config.show_data_privacy and bool(config.pages.privacydetails.text),
        "endUserPortal": config.end_user_portal_enable,
        "showClientFee": config.show_client_fee_euro_amount,
        "paymentOption": config.pages.payment.payment_option,
        # Wallbox partners offer fewer options: no further uploads after validation.
        "multipleUploads": kind != "wallbox",
        # Finish counts down to the partner's page for wallbox partners that ask for it.
        "finishCountdown": kind == "wallbox"
        and config.pages.finish.is_auto_redirect_enabled
        and config.pages.finish.countdown_seconds > 0,
        "tagManager": config.gtm_id if _is_tag_manager_id(config.gtm_id) else None,
    }


def _is_tag_manager_id(gtm_id: str) -> bool:
    return gtm_id.startswith("GTM") and len(gtm_id) >= 10


def theme_compile(config: dict[str, Any], kind: str) -> dict[str, Any]:
    """Compile a normalised configuration (see config_normalise) for a partner kind."""
    result: dict[str, Any] = json.loads(theme_compile_json(config, kind))
    return result


def theme_compile_json(config: dict[str, Any], kind: str) -> str:
    """The bundle as JSON text, cached by configuration and kind.

    The cache holds one string per entry rather than a tree of dicts: long-lived objects are
    what every garbage collection walks, and a process serving many partners keeps many.
    """
    return _compile_cached(json.dumps(config, sort_keys=True, separators=(",", ":")), kind)


@lru_cache(maxsize=1024)
def _compile_cached(config_json: str, kind: str) -> str:
    return json.dumps(_compile(config_json, kind), ensure_ascii=False, separators=(",", ":"))


def _compile(config_json: str, kind: str) -> dict[str, Any]:
    if kind not in KINDS:
        raise ValueError(f"unknown partner kind {kind!r}")
    partner_kind: Kind = kind  # type: ignore[assignment]
    raw = json.loads(config_json)
    config = PartnerConfig.model_validate(raw)
    return {
        "version": config_hash(raw, kind),
        "kind": kind,
        "mui": {
            "palette": _palette(config),
            "typography": _typography(config, partner_kind),
            "shape": {"borderRadius": 8},
            "components": _components(config, partner_kind),
        },
        "tokens": _tokens(config, partner_kind),
        "font": {"family": config.font_family, "package": FONT_PACKAGES[config.font_family]},
        "assets": {
            "logo": config.logo,
            "favicon": config.favicon,
            # the logo's size per viewport, its text legible (themes.logo)
            "logoBox": logo_box(config.logo, config.logo_aspect, config.logo_text_share),
            # the advertisement image's height bound by the page title's size (themes.logo)
            "adBanner": ad_banner_box(
                config.partneradvertisement.image if config.partneradvertisement.type == "image" else None
            ),
        },
        "texts": texts_for(config),
        "flags": _flags(config, partner_kind),
    }

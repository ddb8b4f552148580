"""The bundle the theme compiler makes (themes.compiler), as the configuration call sends it
under `theme` (tenants.schemas.PartnerConfigOut): the shape the web app's generated types are
made from. The compiler builds plain dicts (cached as JSON text); tests/api/test_configs.py
checks its real answers against these."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema

from common.partner_config import PaymentOption

Kind = Literal["standard", "utility", "wallbox"]


class ThemeTokensOut(Schema):
    # the bundle's keys are the web app's: camel case
    gradient: str
    button: str
    buttonText: str
    circle: str
    text: str
    inputBorder: str
    desktopBox: str
    desktopButton: str
    itemAlignment: Literal["left", "center", "right"]
    titleDot: bool
    titleStyle: Literal["default", "utility"]
    headerImage: str | None
    headerInfoText: str


class ThemeFontOut(Schema):
    family: str
    package: str


class LogoSizeOut(Schema):
    width: int
    height: int
    textPx: float


class LogoBoxOut(Schema):
    """The logo's size per viewport, chosen so its text is legible (themes.logo.logo_box)."""

    aspect: float
    textShare: float
    wide: bool
    showName: bool
    phone: LogoSizeOut
    desktop: LogoSizeOut


class AdSizeOut(Schema):
    maxHeight: int
    largestTextPx: float
    smallestTextPx: float | None
    legible: bool | None  # the smallest text at least 12 px; null: not measured (a raster image)


class AdBannerOut(Schema):
    """The advertisement image's height bound by the page title's size (themes.logo.ad_banner_box)."""

    aspect: float
    textShare: float
    smallestShare: float | None
    phone: AdSizeOut
    desktop: AdSizeOut


class ThemeAssetsOut(Schema):
    logo: str | None
    favicon: str | None
    logoBox: LogoBoxOut | None
    adBanner: AdBannerOut | None


class ThemeTextsOut(Schema):
    de: dict[str, str]
    en: dict[str, str]


class ThemeFlagsOut(Schema):
    isUtility: bool
    isWallbox: bool
    providerBranded: bool
    authenticationFlow: Literal["link", "otp"]
    privateBusinessRegistration: bool
    showGenderOption: bool
    genderOption: int
    showImpressum: bool
    showDataPrivacy: bool
    endUserPortal: bool
    showClientFee: bool
    paymentOption: PaymentOption
    multipleUploads: bool
    finishCountdown: bool
    tagManager: str | None


class ThemeBundleOut(Schema):
    version: str
    kind: Kind
    # MUI's theme options (palette, typography, shape, components): React hands them to
    # createTheme as they are.
    mui: dict[str, Any]
    tokens: ThemeTokensOut
    font: ThemeFontOut
    assets: ThemeAssetsOut
    texts: ThemeTextsOut
    flags: ThemeFlagsOut

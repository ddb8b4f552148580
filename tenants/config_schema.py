"""The partner configuration schema moved to common.partner_config (a leaf module that tenants,
themes and the apps read, issue 50); these names stay importable from here until the apps'
imports, changed in small steps beside other work, all name common.partner_config."""

from common.partner_config import (
    LOGIN_INTRO_CODE,
    LOGIN_INTRO_LINK,
    Colors,
    ConfigErrors,
    DocumentPage,
    FeeRow,
    Pages,
    PartnerConfig,
    Retention,
    _base64_html,
    config_normalise,
    config_public,
    config_validate,
    reflow_text,
)

__all__ = [
    "LOGIN_INTRO_CODE",
    "LOGIN_INTRO_LINK",
    "Colors",
    "ConfigErrors",
    "DocumentPage",
    "FeeRow",
    "Pages",
    "PartnerConfig",
    "Retention",
    "_base64_html",
    "config_normalise",
    "config_public",
    "config_validate",
    "reflow_text",
]

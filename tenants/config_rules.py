"""The rules a partner's configuration is held to wherever it is saved (the model's clean, the
provisioning and publishing services, the console's form): the typed schema (defaults filled in,
HTML sanitised: common.partner_config) and the contrast gate of its colours (themes.contrast).
Imports no model, so tenants.models may use it."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from pydantic import ValidationError as PydanticValidationError

from common.partner_config import Colors, ConfigErrors, config_normalise
from themes.contrast import contrast_errors


def config_check(config: Any) -> dict[str, Any]:
    """Validate and normalise a configuration, then check its colours' contrast (WCAG 2.2 AA,
    themes.contrast); raise ConfigErrors keyed by field path ('colors.button')."""
    try:
        normalised = config_normalise(config)
    except ConfigErrors as exc:
        # The colours are checked even when another field is wrong: one round of messages.
        colors = config.get("colors") if isinstance(config, dict) else None
        if not any(path.startswith("colors") for path in exc.errors):
            try:
                checked = Colors.model_validate(colors or {}).model_dump()
            except PydanticValidationError:
                raise exc from None
            raise ConfigErrors({**exc.errors, **contrast_errors({"colors": checked})}) from None
        raise
    errors = contrast_errors(normalised)
    if errors:
        raise ConfigErrors(errors)
    return normalised


def config_clean(config: Any) -> dict[str, Any]:
    """Validate and normalise a configuration, raising a ValidationError per field path."""
    try:
        return config_check(config)
    except ConfigErrors as exc:
        raise ValidationError(
            {
                "config": [
                    f"{path}: {message}" for path, messages in exc.errors.items() for message in messages
                ]
            }
        ) from None

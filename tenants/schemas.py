"""Shapes of the partner calls: `GET /api/configs/{subdomain}/` and `POST /api/config_previews/`
answer the public partner configuration (spec/registration-flow.md section 3) with the compiled
theme bundle; the web app's types are generated from these (issue 50).

The configuration's part is made from the configuration schema itself (common.partner_config),
so a field added there is in the answer's type at once: each of its models becomes a `Config…Out`
with the same fields, without the private ones (PRIVATE_KEYS), without defaults (the answer is
the normalised configuration, every field filled in: tenants.selectors) and without validators
(the stored configuration was validated when it was saved)."""

from __future__ import annotations

import types
import warnings
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from ninja import Field, Schema
from pydantic import BaseModel, create_model
from pydantic.json_schema import SkipJsonSchema

from common.partner_config import PRIVATE_KEYS, PartnerConfig
from themes.schemas import ThemeBundleOut


def _out_type(annotation: Any) -> Any:
    """A configuration field's type as the answer has it: its models as their Out models,
    constraints and validators (Annotated) left out."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _out_type(get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _out_model(annotation)
    if origin is list:
        return list[_out_type(get_args(annotation)[0])]  # type: ignore[misc]
    if origin is dict:
        key, value = get_args(annotation)
        return dict[_out_type(key), _out_type(value)]  # type: ignore[misc]
    if origin is Union or origin is types.UnionType:
        return Union[tuple(_out_type(arg) for arg in get_args(annotation))]  # noqa: UP007
    return annotation


@cache
def _out_model(
    model: type[BaseModel], name: str | None = None, leave_out: frozenset[str] = frozenset()
) -> Any:
    fields: dict[str, Any] = {
        key: (_out_type(field.annotation), ...)
        for key, field in model.model_fields.items()
        if key not in leave_out
    }
    with warnings.catch_warnings():
        # `register` is the spec's key (the welcome page); pydantic warns that it shadows BaseModel.register.
        warnings.filterwarnings("ignore", message='Field name "register"')
        return create_model(name or f"Config{model.__name__}Out", __base__=Schema, **fields)


# The public configuration: what the partner shows on its site (the payout account, invoicing,
# retention and owner mails never leave the server).
PublicConfigOut: type[Schema] = _out_model(PartnerConfig, "PublicConfigOut", PRIVATE_KEYS)


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class OpenYearOut(Schema):
    year: int
    open_until: str = Field(description="The last day a registration is taken for the year (ISO date).")
    days_left: int | None = Field(description="Days until then, in the last weeks; else null.")


class QuotaYearsOut(Schema):
    """The quota years open on the day (tenants.quota_years, the server's calendar)."""

    today: str
    open_years: list[OpenYearOut]


class PartnerConfigOut(PublicConfigOut):  # type: ignore[misc,valid-type]
    subdomain: str
    name: str
    kind: Literal["standard", "utility", "wallbox"]
    frontend_active: bool
    # Absent from the designer preview's answer (a configuration that is no partner yet) and
    # from Storybook's fixtures; left out of the body, never null.
    quota_years: QuotaYearsOut | SkipJsonSchema[None] = Field(None, json_schema_extra=_no_default)
    # Only on a console preview link's answer (tenants.preview): the page shows "Vorschau".
    preview: bool | SkipJsonSchema[None] = Field(None, json_schema_extra=_no_default)
    theme: ThemeBundleOut


class ConfigErrorsOut(Schema):
    """An invalid configuration: the configuration schema's German messages per field path."""

    errors: dict[str, list[str]]

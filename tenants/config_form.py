"""The console's configuration form: generated from PartnerConfig's JSON schema and shown with
django-jsonform, in sections the onboarding team thinks in (brand, texts, legal, flow, payout,
portal, fees, advertisement) instead of one JSON text.

The form's data is the configuration regrouped: `{"marke": {"colors": ..., "logo": ...},
"texte": {"welcome": ..., ...}, ...}`; `config_ungroup` turns it back, and a plain
configuration (JSON import, the command line's shape) is accepted as it is. Validation stays
where it was (config_clean: the typed schema, nh3, the contrast gate); its messages are put on
the fields of the form by their path.
"""

from __future__ import annotations

import base64
import binascii
import json
from functools import cache
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django_jsonform.constants import JOIN_SYMBOL
from django_jsonform.widgets import JSONFormWidget

from tenants.config_schema import PartnerConfig

# (key, German title, configuration paths). A path is a top-level key or `pages.<page>`; its
# key in the section is its last part.
SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "marke",
        "Marke",
        (
            "page_title",
            "partner",
            "colors",
            "logo",
            "favicon",
            "font_family",
            "item_alignment",
            "display_title_dot",
            "by_provider_gmbh",
            "provider_is_contractual_partner",
            "detail",
            "wallbox",
        ),
    ),  # fmt: skip
    (
        "texte",
        "Texte",
        (
            "pages.welcome",
            "pages.login",
            "pages.terms",
            "pages.finish",
            "pages.faq",
            "faq_youtube_video_link",
        ),
    ),
    (
        "rechtliches",
        "Rechtliches",
        (
            "show_impressum",
            "impressum_details",
            "show_data_privacy",
            "data_privacy_text",
            "pages.termsdetails",
            "pages.privacydetails",
            "pages.next_year_termsdetails",
            "pages.next_year_privacydetails",
            "retention",
        ),
    ),  # fmt: skip
    (
        "ablauf",
        "Ablauf",
        (
            "authentication_flow",
            "enable_private_business_registration",
            "show_gender_option",
            "gender_option",
            "qa_create_choices",
            "gtm_id",
        ),
    ),  # fmt: skip
    ("auszahlung", "Auszahlung", ("pages.payment", "payout_account")),
    (
        "portal",
        "Kundenportal",
        ("end_user_portal_enable", "portal_login_extra_check", "show_client_fee_euro_amount", "display_vat"),
    ),
    ("gebuehren", "Gebühren", ("fees",)),
    ("werbung", "Werbung", ("partneradvertisement",)),
)
SECTION_KEYS = {key for key, _, _ in SECTIONS}


def _path_of(section: str, key: str) -> str:
    for name, _, paths in SECTIONS:
        if name == section:
            for path in paths:
                if path.rsplit(".", 1)[-1] == key:
                    return path
    raise KeyError(f"{section}.{key}")


def _get(config: dict[str, Any], path: str) -> Any:
    value: Any = config
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


# --- Schema: pydantic's JSON schema -> django-jsonform's ------------------------------------


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        return _resolve(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    if "allOf" in node and len(node["allOf"]) == 1:
        return _resolve({**node["allOf"][0], **{k: v for k, v in node.items() if k != "allOf"}}, defs)
    return node


def _convert(node: dict[str, Any], defs: dict[str, Any], title: str) -> dict[str, Any]:
    node = _resolve(node, defs)
    if "anyOf" in node:
        # str | None (an optional asset URL), Decimal (number or string): one plain input.
        options = [_resolve(option, defs) for option in node["anyOf"]]
        kinds = [option.get("type") for option in options]
        chosen = next(o for o in options if o.get("type") == ("string" if "string" in kinds else kinds[0]))
        if "integer" in kinds and "null" in kinds:
            chosen = next(o for o in options if o.get("type") == "integer")
        return _convert(
            {**chosen, **{k: v for k, v in node.items() if k not in {"anyOf", "default"}}}, defs, title
        )
    kind = node.get("type")
    out: dict[str, Any] = {"title": title}
    if kind == "object":
        out["type"] = "object"
        out["keys"] = {
            name: _convert(child, defs, name) for name, child in node.get("properties", {}).items()
        }
        return out
    if kind == "array":
        out["type"] = "array"
        out["items"] = _convert(node["items"], defs, title.rstrip("s") or title)
        if "maxItems" in node:
            out["maxItems"] = node["maxItems"]
        return out
    if "enum" in node:
        out["type"] = kind or "string"
        out["choices"] = node["enum"]
        return out
    if "const" in node:
        out["type"] = kind or "string"
        out["choices"] = [node["const"]]
        return out
    out["type"] = kind or "string"
    for limit in ("minimum", "maximum"):
        if limit in node:
            out[limit] = node[limit]
    if node.get("format") == "color":
        out["format"] = "color"
    elif node.get("x-html") or node.get("x-base64-html"):
        out["widget"] = "textarea"
        out["help_text"] = (
            "HTML; erlaubt sind Absätze, Listen, Links, Tabellen (wird beim Speichern bereinigt)."
        )
    elif kind == "string" and node.get("maxLength", 0) > 300:
        out["widget"] = "textarea"
    if "maxLength" in node:
        out["maxLength"] = node["maxLength"]
    return out


@cache
def _pydantic_schema() -> dict[str, Any]:
    return PartnerConfig.model_json_schema()


def _node_at(path: str) -> dict[str, Any]:
    schema = _pydantic_schema()
    defs = schema["$defs"]
    node: dict[str, Any] = schema
    for part in path.split("."):
        node = _resolve(node, defs)["properties"][part]
    return node


@cache
def config_form_schema() -> dict[str, Any]:
    """The form's schema (django-jsonform's dialect): one section per SECTIONS entry."""
    defs = _pydantic_schema()["$defs"]
    return {
        "type": "object",
        "title": "Konfiguration",
        "keys": {
            key: {
                "type": "object",
                "title": title,
                "keys": {
                    path.rsplit(".", 1)[-1]: _convert(_node_at(path), defs, path.rsplit(".", 1)[-1])
                    for path in paths
                },
            }
            for key, title, paths in SECTIONS
        },
    }


@cache
def _marked_paths(marker: str) -> tuple[str, ...]:
    """Configuration paths (dotted, list items as '*') whose schema carries `marker`."""
    schema = _pydantic_schema()
    defs = schema["$defs"]
    found: list[str] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        node = _resolve(node, defs)
        if node.get(marker):
            found.append(prefix)
        for name, child in node.get("properties", {}).items():
            walk(child, f"{prefix}.{name}" if prefix else name)
        if "items" in node:
            walk(node["items"], f"{prefix}.*")

    walk(schema, "")
    return tuple(found)


def _nullable_paths() -> set[str]:
    schema = _pydantic_schema()
    defs = schema["$defs"]
    found: set[str] = set()

    def walk(node: dict[str, Any], prefix: str) -> None:
        if any(option.get("type") == "null" for option in node.get("anyOf", [])):
            found.add(prefix)
        node = _resolve(node, defs)
        for name, child in node.get("properties", {}).items():
            walk(child, f"{prefix}.{name}" if prefix else name)

    walk(schema, "")
    return found


# --- Data: configuration <-> form ----------------------------------------------------------


def _set(config: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    target = config
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value


def _base64_decode(value: Any) -> Any:
    if not isinstance(value, str) or not value:
        return value
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return value


def config_group(config: dict[str, Any]) -> dict[str, Any]:
    """A stored configuration as the form's sections; base64 HTML shown decoded."""
    decoded = json.loads(json.dumps(config))
    for path in _marked_paths("x-base64-html"):
        value = _get(decoded, path)
        if value is not None:
            _set(decoded, path, _base64_decode(value))
    return {
        key: {
            path.rsplit(".", 1)[-1]: _get(decoded, path) for path in paths if _get(decoded, path) is not None
        }
        for key, _, paths in SECTIONS
    }


def is_grouped(data: Any) -> bool:
    return isinstance(data, dict) and bool(data) and set(data) <= SECTION_KEYS


def config_ungroup(data: dict[str, Any]) -> dict[str, Any]:
    """The form's sections as a configuration: base64 HTML encoded again, empty optional
    values as null. Unknown keys are kept, so the schema refuses them by name."""
    config: dict[str, Any] = {}
    for section, values in data.items():
        if not isinstance(values, dict):
            config[section] = values
            continue
        for key, value in values.items():
            try:
                path = _path_of(section, key)
            except KeyError:
                path = key
            _set(config, path, value)
    for path in _nullable_paths():
        if _get(config, path) == "":
            _set(config, path, None)
    for path in _marked_paths("x-base64-html"):
        value = _get(config, path)
        if isinstance(value, str) and value:
            _set(config, path, base64.b64encode(value.encode("utf-8")).decode("ascii"))
    return config


def error_map(errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """Configuration messages by path ('pages.finish.redirect_url') as the widget's error map
    (section and keys joined by django-jsonform's symbol); paths outside the sections go to
    the form's top."""
    mapped: dict[str, list[str]] = {}
    for path, messages in errors.items():
        parts = path.split(".")
        section = None
        for length in (2, 1):
            if length > len(parts):
                continue
            head = ".".join(parts[:length])
            for key, _, paths in SECTIONS:
                if head in paths:
                    section = [key, parts[length - 1], *parts[length:]]
                    break
            if section:
                break
        coords = JOIN_SYMBOL.join(section) if section else ""
        mapped.setdefault(coords, []).extend(messages)
    return mapped


class ConfigFormField(forms.JSONField):
    """The configuration in the django-jsonform widget; posts in either shape are accepted."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", JSONFormWidget(schema=config_form_schema))
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> str:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                return value
        if isinstance(value, dict) and not is_grouped(value):
            value = config_group(value)
        return super().prepare_value(value)  # type: ignore[no-any-return]

    def to_python(self, value: Any) -> Any:
        data = super().to_python(value)
        if is_grouped(data):
            return config_ungroup(data)
        return data

    def bound_data(self, data: Any, initial: Any) -> Any:
        bound = super().bound_data(data, initial)
        return config_group(bound) if isinstance(bound, dict) and not is_grouped(bound) else bound

    def show_errors(self, errors: dict[str, list[str]]) -> None:
        self.widget.add_error(error_map(errors))  # type: ignore[attr-defined]


def config_import_parse(raw: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"Kein gültiges JSON: {exc.msg} (Zeile {exc.lineno}, Spalte {exc.colno})."
        ) from None
    if not isinstance(data, dict):
        raise ValidationError("Die Konfiguration muss ein JSON-Objekt sein.")
    return config_ungroup(data) if is_grouped(data) else data

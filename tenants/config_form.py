"""The console's configuration form: generated from PartnerConfig's JSON schema and shown with
django-jsonform, in sections the onboarding team thinks in (Marke, Texte, Rechtliche Seiten, Jahre und Preise,
Auszahlungskonto, Anmeldung und Kundenportal, E-Mails) instead of one JSON text, every field
with the German title and help text of the schema (common.partner_config).

The form's data is the configuration regrouped: `{"marke": {"colors": ..., "logo": ...},
"texte": {"welcome": ..., ...}, ...}`; `config_ungroup` turns it back, and a plain
configuration (JSON import, the command line's shape) is accepted as it is. Validation stays
where it was (config_clean: the typed schema, nh3, the contrast gate); its messages are put on
the fields of the form by their path.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from decimal import Decimal
from functools import cache
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import strip_tags
from django.utils.text import Truncator
from django_jsonform.constants import JOIN_SYMBOL
from django_jsonform.widgets import JSONFormWidget

from common.partner_config import PartnerConfig

# (key, German title, configuration paths). A path is a top-level key or `pages.<page>`; its
# key in the section is its last part. The labels and help texts of the fields are the
# schema's own (common.partner_config: each field's title and description).
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
            "detail",
            "by_provider_gmbh",
            "provider_is_contractual_partner",
            "wallbox",
            "partneradvertisement",
            "logo_aspect",
            "logo_text_share",
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
        "Rechtliche Seiten",
        (
            "show_impressum",
            "impressum_details",
            "pages.termsdetails",
            "pages.privacydetails",
            "show_data_privacy",
            "data_privacy_text",
            "pages.next_year_termsdetails",
            "pages.next_year_privacydetails",
            "retention",
        ),
    ),  # fmt: skip
    (
        "jahre",
        "Jahre und Preise",
        ("qa_create_choices", "fees", "show_client_fee_euro_amount", "display_vat"),
    ),
    ("auszahlung", "Auszahlungskonto", ("payout_account", "invoicing", "pages.payment")),
    (
        "ablauf",
        "Anmeldung und Kundenportal",
        (
            "authentication_flow",
            "enable_private_business_registration",
            "show_gender_option",
            "gender_option",
            "end_user_portal_enable",
            "portal_login_extra_check",
            "gtm_id",
        ),
    ),  # fmt: skip
    ("mails", "E-Mails", ("owner_mails",)),
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
        # the field's own title and description, never its model's docstring (developer's
        # English, which pydantic puts in as the description)
        target = _resolve(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        target = {k: v for k, v in target.items() if k != "description"}
        return {**target, **{k: v for k, v in node.items() if k in {"title", "description"}}}
    if "allOf" in node and len(node["allOf"]) == 1:
        return _resolve({**node["allOf"][0], **{k: v for k, v in node.items() if k != "allOf"}}, defs)
    return node


HTML_HELP = "HTML; erlaubt sind Absätze, Listen, Links, Tabellen (wird beim Speichern bereinigt)."


def _choices(node: dict[str, Any], values: list[Any]) -> list[Any]:
    """The values with their German names (x-choices in the schema), as django-jsonform shows
    them; a value without a name is shown as it is (a font's name)."""
    names = node.get("x-choices") or {}
    return [{"title": names.get(str(value), str(value)), "value": value} for value in values]


def _convert(node: dict[str, Any], defs: dict[str, Any], title: str) -> dict[str, Any]:
    """One field of the schema in django-jsonform's dialect: its German title and help text
    are the schema's title and description (`title` is the fallback, the key's name)."""
    node = _resolve(node, defs)
    if "anyOf" in node:
        # str | None (an optional asset URL), Decimal (number or string): one plain input.
        options = [_resolve(option, defs) for option in node["anyOf"]]
        kinds = [option.get("type") for option in options]
        chosen = next(o for o in options if o.get("type") == ("string" if "string" in kinds else kinds[0]))
        if "integer" in kinds and "null" in kinds:
            chosen = next(o for o in options if o.get("type") == "integer")
        keep = {k: v for k, v in node.items() if k != "anyOf" and (k != "default" or v is not None)}
        return _convert({**chosen, **keep}, defs, title)
    kind = node.get("type")
    out: dict[str, Any] = {"title": node.get("title") or title}
    if node.get("description"):
        out["help_text"] = node["description"]
    if kind in {"object", "array"} and node.get("description"):
        out["description"] = node["description"]  # django-jsonform shows a group's description
    if kind == "object":
        out["type"] = "object"
        out["keys"] = {
            name: _convert(child, defs, name) for name, child in node.get("properties", {}).items()
        }
        return out
    if kind == "array":
        out["type"] = "array"
        out["items"] = _convert(node["items"], defs, out["title"])
        if "maxItems" in node:
            out["maxItems"] = node["maxItems"]
        return out
    if "enum" in node:
        out["type"] = kind or "string"
        out["choices"] = _choices(node, node["enum"])
        return out
    if "const" in node:
        out["type"] = kind or "string"
        out["choices"] = _choices(node, [node["const"]])
        return out
    out["type"] = kind or "string"
    for limit in ("minimum", "maximum"):
        if limit in node:
            out[limit] = node[limit]
    if node.get("format") == "color":
        out["format"] = "color"
    elif node.get("x-html") or node.get("x-base64-html"):
        out["widget"] = "textarea"
        out["help_text"] = " ".join(filter(None, [out.get("help_text"), HTML_HELP]))
    elif kind == "string" and node.get("maxLength", 0) > 300:
        out["widget"] = "textarea"
    if "maxLength" in node:
        out["maxLength"] = node["maxLength"]
    if "default" in node and not isinstance(node["default"], dict | list):
        # a new list item (a price row) starts from the schema's defaults: M1, 19 %
        out["default"] = node["default"]
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


def path_label(path: str) -> str:
    """A configuration path ('pages.finish.redirect_url') as the form names it: section and
    German titles ('Texte › Abschlussseite › Weiterleitung nach Abschluss (URL)'); list items
    by their number from 1. A path the form does not know stays as it is."""
    coords = next(iter(error_map({path: [""]})))
    if not coords:
        return path
    names, _node = _path_titles(coords.split(JOIN_SYMBOL))
    return " › ".join(names)


def _path_titles(parts: list[str]) -> tuple[list[str], dict[str, Any] | None]:
    """The form's German titles of a path's parts from the top (list items by their number
    from 1) and the last part's form node; None when a part is unknown, whose own name then
    ends the titles."""
    node: dict[str, Any] = config_form_schema()
    names: list[str] = []
    for part in parts:
        if node.get("type") == "array" and part.isdigit():
            names.append(f"Nr. {int(part) + 1}")
            node = node["items"]
            continue
        child = node.get("keys", {}).get(part)
        if child is None:
            names.append(part)
            return names, None
        names.append(str(child["title"]))
        node = child
    return names, node


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


# --- Summary: a configuration as people read it (the console's version pages) ----------------

SUMMARY_TEXT_MAX = 240
_DECIMAL_TEXT = re.compile(r"-?\d+\.\d+")
_BLOCK_END = re.compile(r"<(?:br|/p|/div|/li|/h\d|/tr|/td|/th)\b[^>]*>", re.IGNORECASE)


def _summary_value(node: dict[str, Any], value: Any) -> str:
    """One value in words: a choice by its German name, yes/no, German decimals, HTML as its
    text, an embedded image as such, long texts shortened."""
    if value is None or value == "":
        return "–"
    for choice in node.get("choices") or ():
        if isinstance(choice, dict) and choice.get("value") == value:
            return str(choice.get("title", value))
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if isinstance(value, float):
        return f"{value:g}".replace(".", ",")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict | list):
        return f"{len(value)} Einträge"
    text = str(value)
    if text.startswith("data:image/"):
        return "eingebettetes Bild"
    if _DECIMAL_TEXT.fullmatch(text) or (text.isdigit() and "€" in str(node.get("title", ""))):
        # a euro amount (its title says "€") with its cents, as German prices are written
        amount = f"{Decimal(text):.2f}" if "€" in str(node.get("title", "")) else text
        return amount.replace(".", ",")
    # a block's end is a space between words in the text ("GmbH</p><p>Straße")
    text = " ".join(html.unescape(strip_tags(_BLOCK_END.sub(" ", text))).split())
    return Truncator(text).chars(SUMMARY_TEXT_MAX) if text else "–"


def _summary_rows(node: dict[str, Any], value: Any, names: list[str], rows: list[tuple[str, str]]) -> None:
    kind = node.get("type")
    if kind == "object" and "keys" in node:
        data = value if isinstance(value, dict) else {}
        for key, child in node["keys"].items():
            if key in data:
                _summary_rows(child, data[key], [*names, str(child.get("title") or key)], rows)
        return
    if kind == "array" and "items" in node:
        items = value if isinstance(value, list) else []
        item = node["items"]
        if not items:
            rows.append((" › ".join(names), "keine"))
        elif item.get("type") == "object":
            for number, entry in enumerate(items, start=1):
                _summary_rows(item, entry, [*names, f"Nr. {number}"], rows)
        else:
            rows.append((" › ".join(names), ", ".join(_summary_value(item, entry) for entry in items)))
        return
    rows.append((" › ".join(names), _summary_value(node, value)))


def config_summary(config: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """A stored configuration per section of the form, each field by its German title (nested
    ones joined: 'Farben › Schaltfläche') with its value in words, for pages that show a
    configuration to people rather than as JSON with its keys."""
    schema = config_form_schema()
    grouped = config_group(config)
    sections = []
    for key, section in schema["keys"].items():
        rows: list[tuple[str, str]] = []
        _summary_rows(section, grouped.get(key) or {}, [], rows)
        if rows:
            sections.append((str(section["title"]), rows))
    return sections


def _path_node(path: str) -> tuple[str, list[str], dict[str, Any]] | None:
    """A configuration path ('fees.0.client_fee') as its section's title, the field's German
    titles within the section (list items by their number from 1) and its form node."""
    coords = next(iter(error_map({path: [""]})))
    if not coords:
        return None
    names, node = _path_titles(coords.split(JOIN_SYMBOL))
    return None if node is None else (names[0], names[1:], node)


def _base64_html(path: str) -> bool:
    pattern = re.compile(r"\d+")
    wildcard = pattern.sub("*", path)
    return wildcard in _marked_paths("x-base64-html")


def _changed_value(path: str, node: dict[str, Any], shown: Any) -> str:
    """A value of a change list (tenants.selectors.config_diff: strings, JSON for what is not
    a string, shortened with '…') in words."""
    if shown is None or shown == "null":  # a key that was added or removed, a value set to None
        return "–"
    value: Any = shown
    if isinstance(shown, str) and node.get("type") != "string":
        try:
            value = json.loads(shown)
        except json.JSONDecodeError:
            value = shown
    if isinstance(value, list | dict) and not value:
        return "keine"
    if isinstance(value, str) and _base64_html(path):
        # stored as base64, and a long one is shortened: the decodable beginning
        cut = value.endswith("…")
        raw = value.rstrip("…")
        raw = raw[: len(raw) - len(raw) % 4]
        try:
            value = base64.b64decode(raw, validate=True).decode("utf-8", errors="ignore")
        except binascii.Error:
            return _summary_value(node, value)
        text = _summary_value(node, value)
        return f"{text} …" if cut and text != "–" else text
    return _summary_value(node, value)


def config_changes_summary(
    changes: dict[str, Any],
) -> tuple[list[tuple[str, list[tuple[str, str]]]], dict[str, Any]]:
    """A change list of the console's audit log ({'colors.button': '#0055aa', ...}) per section
    of the form, each field by its German title and its value in words, as config_summary shows
    a whole configuration; what is no configuration path comes back as it is."""
    sections: dict[str, list[tuple[str, str]]] = {}
    rest: dict[str, Any] = {}
    for path, value in changes.items():
        found = _path_node(path) if "." in path or path in _TOP_LEVEL_PATHS else None
        if found is None:
            rest[path] = value
            continue
        title, names, node = found
        sections.setdefault(title, []).append((" › ".join(names), _changed_value(path, node, value)))
    order = [str(section["title"]) for section in config_form_schema()["keys"].values()]
    return [(title, sections[title]) for title in order if title in sections], rest


_TOP_LEVEL_PATHS = frozenset(path for _, _, paths in SECTIONS for path in paths if "." not in path)

"""Golden files: the compiled bundle of each kind, byte for byte. After an intended change,
regenerate with UPDATE_GOLDEN=1 and review the diff like code."""

import json
import os
from pathlib import Path

import pytest

from common.partner_config import config_normalise
from tenants.demo import DEMO_PARTNERS
from themes.compiler import KINDS, theme_compile
from themes.perceptual import STATUS_DISTANCE, colour_distance

GOLDEN = Path(__file__).parent / "golden"
WEB_FIXTURES = Path(__file__).resolve().parents[2] / "web" / "src" / "test" / "fixtures"


def demo_config(kind: str) -> dict:  # type: ignore[type-arg]
    demo = next(p for p in DEMO_PARTNERS if p["kind"] == kind and p["frontend_active"])
    return config_normalise(demo["config"])


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_compiles_to_its_golden_bundle(kind: str) -> None:
    bundle = json.dumps(theme_compile(demo_config(kind), kind), indent=1, sort_keys=True, ensure_ascii=False)
    golden = GOLDEN / f"{kind}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(bundle + "\n", encoding="utf-8")

    assert bundle + "\n" == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", KINDS)
def test_each_kinds_status_colours_keep_their_distance_from_the_primary(kind: str) -> None:
    """Error, warning and success at CIEDE2000 >= STATUS_DISTANCE from the demo partner's
    primary of every kind, and from the same brand in every other kind's theme."""
    for config_kind in KINDS:
        palette = theme_compile(demo_config(config_kind), kind)["mui"]["palette"]
        primary = palette["primary"]["main"]
        for status in ("error", "warning", "success"):
            assert colour_distance(palette[status]["main"], primary) >= STATUS_DISTANCE, (config_kind, status)


def test_the_compiler_is_deterministic_and_keyed_by_the_configuration() -> None:
    config = demo_config("standard")

    first = theme_compile(config, "standard")
    again = theme_compile(json.loads(json.dumps(config)), "standard")
    other = theme_compile({**config, "colors": {**config["colors"], "button": "#000000"}}, "standard")

    assert first == again
    assert first["version"] == again["version"]
    assert other["version"] != first["version"]
    assert other["mui"]["palette"]["primary"]["main"] == "#000000"


def test_kinds_differ_where_the_spec_says() -> None:
    config = demo_config("wallbox")

    standard, utility, wallbox = (theme_compile(config, kind) for kind in KINDS)

    assert standard["tokens"]["titleStyle"] == "default"
    assert utility["tokens"]["titleStyle"] == "utility"
    assert utility["mui"]["typography"]["h1"]["textTransform"] == "uppercase"
    assert wallbox["tokens"]["headerImage"] == config["wallbox"]["header_image"]
    assert standard["tokens"]["headerImage"] is None
    assert wallbox["flags"]["multipleUploads"] is False
    assert standard["flags"]["multipleUploads"] is True


def test_palette_typography_and_alignment_come_from_the_configuration() -> None:
    config = demo_config("utility")

    bundle = theme_compile(config, "utility")

    assert bundle["mui"]["palette"]["primary"]["main"] == config["colors"]["button"]
    assert bundle["mui"]["typography"]["fontFamily"].startswith('"Roboto"')
    assert bundle["font"] == {"family": "Roboto", "package": "roboto"}
    assert bundle["tokens"]["itemAlignment"] == "left"
    assert bundle["texts"]["de"]["welcome.title"] == config["pages"]["welcome"]["title"]
    assert bundle["texts"]["de"]["deactivated.text"] == "Diese Website ist nicht aktiv."


@pytest.mark.parametrize(
    ("gtm_id", "injected"),
    [("GTM-ABCDEFG", True), ("GTM-12345", False), ("GTM123456", False), ("UA-123456789", False), ("", False)],
)
def test_the_tag_manager_is_only_named_for_a_gtm_id_of_ten_characters_or_more(
    gtm_id: str, injected: bool
) -> None:
    bundle = theme_compile(config_normalise({"gtm_id": gtm_id}), "standard")

    assert (bundle["flags"]["tagManager"] == gtm_id) is injected


@pytest.mark.parametrize("kind", KINDS)
def test_the_web_apps_contract_fixtures_are_what_the_compiler_makes(kind: str) -> None:
    path = WEB_FIXTURES / f"config-{kind}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        old = json.loads(path.read_text(encoding="utf-8"))
        config = config_normalise(
            {
                k: v
                for k, v in old.items()
                if k not in {"frontend_active", "subdomain", "kind", "name", "theme"}
            }
        )
        fresh = {**config, **{k: old[k] for k in ("frontend_active", "subdomain", "kind", "name")}}
        fresh["theme"] = theme_compile(config, kind)
        path.write_text(json.dumps(fresh, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    fixture = json.loads(path.read_text(encoding="utf-8"))
    config = {
        key: value
        for key, value in fixture.items()
        if key not in {"frontend_active", "subdomain", "kind", "name", "theme"}
    }

    assert fixture["theme"] == theme_compile(config_normalise(config), kind)


def test_every_scan_refusal_code_has_its_message() -> None:
    """The upload screen shows `error.<code>` for a scan refused with any IMGC code the server
    sends (registrations.errors): none without its German text."""
    from registrations import errors
    from themes.texts import FIXED_DE

    codes = {value for value in vars(errors).values() if isinstance(value, str) and value.startswith("IMGC")}
    assert {"IMGC001", "IMGC002", "IMGC003", "IMGC007"} <= codes
    assert not {code for code in codes if f"error.{code}" not in FIXED_DE}

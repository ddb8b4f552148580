"""WCAG 2.2 contrast at the gate: the pairs the web app draws, the large-text threshold, and the
nearest passing shade that the refusal suggests."""

import pytest

from common.partner_config import config_normalise
from tenants.demo import DEMO_PARTNERS
from themes.contrast import (
    contrast_errors,
    contrast_problems,
    contrast_ratio,
    is_large_text,
    nearest_passing_shade,
    ratio_text,
    required_ratio,
)


def test_ratios_are_the_wcag_formula() -> None:
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#000", "#fff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.478, abs=0.001)
    assert contrast_ratio("#1d4ed8", "#1d4ed8") == pytest.approx(1.0)
    # a translucent colour counts as it ends on screen (blended over the white page)
    assert contrast_ratio("#ffffff", "#00000080") == pytest.approx(
        contrast_ratio("#ffffff", "#7f7f7f"), abs=0.01
    )


def test_ratios_are_shown_rounded_down() -> None:
    assert ratio_text(4.4999) == "4,49"
    assert ratio_text(2.0) == "2,00"


@pytest.mark.parametrize(
    ("size", "bold", "large"),
    [(24, False, True), (23.9, False, False), (18.66, True, True), (18.6, True, False), (16, True, False)],
)
def test_large_text_is_24px_or_bold_from_18_66px(size: float, bold: bool, large: bool) -> None:
    assert is_large_text(size, bold) is large
    assert required_ratio(size, bold) == (3.0 if large else 4.5)


@pytest.mark.parametrize("demo", DEMO_PARTNERS, ids=lambda d: d["subdomain"])
def test_the_demo_partners_and_the_defaults_pass(demo: dict) -> None:  # type: ignore[type-arg]
    assert contrast_problems(config_normalise(demo["config"])) == []
    assert contrast_problems(config_normalise({})) == []


def test_a_light_button_is_refused_naming_the_pair_its_ratio_and_a_passing_shade() -> None:
    config = config_normalise({"colors": {"button": "#8ab4f8", "desktop_button": "#1d4ed8"}})

    errors = contrast_errors(config)

    # links follow the button when the configuration names no link colour of its own
    assert list(errors) == ["colors.button", "colors.link"]
    first = errors["colors.button"][0]
    assert "Schrift der Schaltfläche auf der Schaltfläche (#ffffff auf #8ab4f8)" in first
    assert f"hat {ratio_text(contrast_ratio('#ffffff', '#8ab4f8'))}:1" in first
    assert "mindestens 4,50:1" in first
    suggestion = first.rsplit("Nächster passender Farbton: ", 1)[1].rstrip(".")
    # the suggestion passes every pair charged to the button (text on it, link on page and box)
    fixed = config_normalise({"colors": {"button": suggestion, "desktop_button": "#1d4ed8"}})
    assert contrast_errors(fixed) == {}
    assert contrast_ratio("#ffffff", suggestion) >= 4.5
    # ... and is near: the same hue, only a little darker than the next darker step would be
    darker_still = nearest_passing_shade({**config["colors"], "button": suggestion}, "button")
    assert darker_still == suggestion


def test_every_pair_is_checked() -> None:
    config = config_normalise(
        {
            "colors": {
                "button": "#ffff00",
                "button_text": "#ffffff",
                "desktop_button": "#ffff00",
                "text": "#cccccc",
                "desktop_box": "#ffffff",
                "circle": "#ffcc00",
            }
        }
    )

    labels = [problem.label for problem in contrast_problems(config)]

    assert labels == [
        "Schrift der Schaltfläche auf der Schaltfläche",
        "Schrift der Schaltfläche auf der Desktop-Schaltfläche",
        "Text auf dem Seitenhintergrund",
        "Text auf der Desktop-Box",
        "Linkfarbe auf dem Seitenhintergrund",
        "Linkfarbe auf der Desktop-Box",
        "Ziffer (weiß) im Kreis",
    ]


def test_grey_text_suggests_a_darker_grey() -> None:
    config = config_normalise({"colors": {"text": "#999999"}})

    (problem, box_problem) = contrast_problems(config)

    assert problem.field == box_problem.field == "colors.text"
    assert problem.suggestion is not None
    assert contrast_ratio(problem.suggestion, "#ffffff") >= 4.5
    assert problem.suggestion < "#999999"  # a darker grey of the same hue (none)


def test_no_shade_is_suggested_when_none_can_pass() -> None:
    # text on the white page needs a dark text, on this dark box a light one: no grey does both
    config = config_normalise({"colors": {"text": "#333333", "desktop_box": "#1f2933"}})

    problem = next(p for p in contrast_problems(config) if p.field == "colors.text")

    assert problem.suggestion is None
    assert "Kein Farbton" in problem.message


def test_a_yellow_brand_keeps_its_button_and_only_the_link_is_darkened() -> None:
    # a light brand: yellow buttons with dark text on them pass; as a link, yellow does not
    yellow = {"button": "#ffd400", "desktop_button": "#ffd400", "button_text": "#1f2933"}
    config = config_normalise({"colors": {**yellow, "link": "#ffd400"}})

    problems = contrast_problems(config)

    assert {problem.field for problem in problems} == {"colors.link"}
    suggestion = problems[0].suggestion
    assert suggestion is not None and contrast_ratio(suggestion, "#ffffff") >= 4.5
    # the suggested link colour passes, the button stays the brand's yellow
    fixed = config_normalise({"colors": {**yellow, "link": suggestion}})
    assert contrast_errors(fixed) == {}
    assert fixed["colors"]["button"] == "#ffd400"
    # and the theme draws links in it, buttons in yellow
    from themes.compiler import theme_compile

    mui = theme_compile(fixed, "standard")["mui"]
    assert mui["palette"]["primary"]["main"] == "#ffd400"
    assert mui["palette"]["link"]["main"] == suggestion
    assert mui["components"]["MuiLink"]["styleOverrides"]["root"]["color"] == suggestion


def test_a_configuration_without_a_link_colour_keeps_its_links_in_the_button_colour() -> None:
    # stored before colors.link existed: nothing changes on screen
    config = config_normalise({"colors": {"button": "#1d4ed8", "desktop_button": "#1d4ed8"}})

    assert config["colors"]["link"] == "#1d4ed8"
    assert config_normalise({})["colors"]["link"] == config_normalise({})["colors"]["button"]

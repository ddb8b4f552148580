import base64

import pytest

from common.partner_config import ConfigErrors, config_normalise, config_validate


def test_an_empty_configuration_gets_the_spec_defaults() -> None:
    config = config_normalise({})

    assert config["font_family"] == "Open Sans"
    assert config["item_alignment"] == "center"
    assert config["authentication_flow"] == "link"
    assert config["gender_option"] == 1
    assert config["pages"]["payment"]["payment_option"] == "BANK"
    assert config["partneradvertisement"]["enabled"] is False


def test_every_section_3_group_is_in_the_schema() -> None:
    config = config_normalise({})

    assert set(config["pages"]) == {
        "welcome",
        "faq",
        "login",
        "terms",
        "termsdetails",
        "privacydetails",
        "next_year_termsdetails",
        "next_year_privacydetails",
        "finish",
        "payment",
    }
    for key in (
        "colors",
        "page_title",
        "detail",
        "favicon",
        "logo",
        "display_title_dot",
        "partner",
        "faq_youtube_video_link",
        "gtm_id",
        "enable_private_business_registration",
        "show_gender_option",
        "show_impressum",
        "impressum_details",
        "show_data_privacy",
        "data_privacy_text",
        "end_user_portal_enable",
        "show_client_fee_euro_amount",
        "qa_create_choices",
        "partneradvertisement",
    ):
        assert key in config
    assert {"id", "type", "freetext", "image", "url", "enabled"} <= set(config["partneradvertisement"])
    assert {"no_allowed_registration_years_message", "no_price_available", "placeholder_message"} <= set(
        config["qa_create_choices"]
    )


def test_invalid_values_are_refused_with_a_message_per_field() -> None:
    with pytest.raises(ConfigErrors) as refused:
        config_validate(
            {
                "colors": {"button": "blue"},
                "gender_option": 4,
                "authentication_flow": "sms",
                "pages": {"finish": {"countdown_seconds": -1, "redirect_url": "javascript:alert(1)"}},
                "unknown_key": True,
            }
        )

    errors = refused.value.errors
    assert set(errors) == {
        "colors.button",
        "gender_option",
        "authentication_flow",
        "pages.finish.countdown_seconds",
        "pages.finish.redirect_url",
        "unknown_key",
    }
    assert errors["colors.button"] == ["Bitte eine Farbe als #rgb, #rrggbb oder #rrggbbaa angeben."]
    assert errors["pages.finish.redirect_url"] == ["Bitte eine http(s)-Adresse angeben."]


def test_base64_texts_must_decode() -> None:
    with pytest.raises(ConfigErrors) as refused:
        config_validate({"pages": {"termsdetails": {"text": "not base64!"}}})

    assert refused.value.errors == {
        "pages.termsdetails.text": ["Bitte den Text base64-kodiert (UTF-8) angeben."]
    }
    text = base64.b64encode("AGB für alle".encode()).decode()
    assert config_validate({"pages": {"termsdetails": {"text": text}}}).pages.termsdetails.text == text


def test_html_fields_are_sanitised() -> None:
    config = config_normalise(
        {
            "impressum_details": '<p onclick="steal()">Firma<script>alert(1)</script></p>'
            '<a href="javascript:alert(1)">x</a><img src="https://cdn.example/a.png" onerror="x()">',
            "data_privacy_text": "<iframe src='https://evil.example'></iframe><b>Datenschutz</b>",
            "partneradvertisement": {"type": "freetext", "freetext": '<a href="https://a.example">Jetzt</a>'},
        }
    )

    assert config["impressum_details"] == (
        '<p>Firma</p><a rel="noopener noreferrer">x</a><img src="https://cdn.example/a.png">'
    )
    assert config["data_privacy_text"] == "<b>Datenschutz</b>"
    assert config["partneradvertisement"]["freetext"] == (
        '<a href="https://a.example" rel="noopener noreferrer">Jetzt</a>'
    )


def test_asset_urls_refuse_scriptable_schemes() -> None:
    with pytest.raises(ConfigErrors) as refused:
        config_validate({"logo": "javascript:alert(1)", "favicon": "data:text/html;base64,PHNjcmlwdD4="})

    assert set(refused.value.errors) == {"logo", "favicon"}


@pytest.mark.django_db
def test_the_model_refuses_an_invalid_configuration_on_full_clean() -> None:
    from django.core.exceptions import ValidationError

    from tenants.models import Partner

    partner = Partner.objects.get(subdomain="autohaus")
    partner.config = {
        **partner.config,
        "impressum_details": "<script>x()</script><b>ok</b>",
        "colors": {"text": "nope"},
    }

    with pytest.raises(ValidationError) as refused:
        partner.full_clean()

    assert refused.value.message_dict["config"] == [
        "colors.text: Bitte eine Farbe als #rgb, #rrggbb oder #rrggbbaa angeben."
    ]
    partner.config["colors"] = {"text": "#000"}
    partner.full_clean()
    assert partner.config["impressum_details"] == "<b>ok</b>"


def test_the_default_login_intro_follows_the_login_flow() -> None:
    from common.partner_config import LOGIN_INTRO_CODE, LOGIN_INTRO_LINK, config_normalise

    # the code login does not promise a link (the demo stadtwerk said 'Link' and sent a code)
    stored = config_normalise({"authentication_flow": "otp"})
    assert stored["pages"]["login"]["intro"] == LOGIN_INTRO_CODE
    assert config_normalise(stored)["pages"]["login"]["intro"] == LOGIN_INTRO_CODE
    assert config_normalise({})["pages"]["login"]["intro"] == LOGIN_INTRO_LINK
    # a partner's own intro is kept, whatever the flow
    own = {"authentication_flow": "otp", "pages": {"login": {"intro": "Ihre Kundennummer bitte."}}}
    assert config_normalise(own)["pages"]["login"]["intro"] == "Ihre Kundennummer bitte."

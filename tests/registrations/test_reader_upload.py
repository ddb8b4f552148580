"""Through the API: a phone photo of a realistic ZB I, turned in its pixels, is accepted and its
fields are read into the registration; a Teil II photo is refused."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from django.test import Client
from django_tenants.utils import schema_context
from PIL import Image, ImageFilter

from accounts.models import User
from registrations.models import BevRegistration
from tests.fixtures.zlb import realistic
from tests.registrations.test_api import auth, owner, upload  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


def phone_photo(seed: str, turn: int) -> tuple[bytes, dict[str, str]]:
    rng = random.Random(seed)
    car = realistic.vehicle(rng, energy="0004")
    photo: Image.Image = realistic.photograph(rng, realistic.render_form(rng, car.values), quality="phone")
    return realistic.encode(photo.rotate(turn, expand=True), "jpeg", quality=85), car.expected


def test_a_turned_phone_photo_is_accepted_with_its_fields_read(
    client: Client,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    data, expected = phone_photo("upload-turned", 90)

    response = upload(client, auth, data)

    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    day, month, year = expected["B"].split(".")
    assert str(registration.first_registration) == f"{year}-{month}-{day}"
    assert registration.energy_code == "0004" and registration.is_electric is True
    assert registration.vehicle_class == expected["J"]
    # every field the reader stored is the printed one, with its confidence; what it could not
    # validate is listed as unread (and then flagged), never stored wrong
    stored = {
        "E": registration.vin,
        "I": registration.registration_date.strftime("%d.%m.%Y") if registration.registration_date else "",
        "D.1": registration.make,
        "D.3": registration.model,
        "A": registration.plate,
        "2.1": registration.maker_key,
        "P.3": registration.fuel,
    }
    for code, value in stored.items():
        if value:
            assert value == expected[code].upper(), code
            assert 0 < registration.confidence[code] <= 1, code
        else:
            assert code not in registration.confidence, code
    assert registration.confidence["B"] > 0 and registration.confidence["10"] > 0
    assert registration.confidence["J"] > 0
    assert registration.needs_review == bool(registration.unread)
    assert set(registration.unread) <= {"E", "B", "I", "J", "10", "A"}


def test_a_teil_ii_photo_is_refused(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    response = upload(client, auth, realistic.wrong_sample(0, "teil2").data)

    assert response.status_code == 400
    assert response.json()["zlb_scan"]["error_code"] in {"IMGC002", "IMGC003"}
    assert not BevRegistration.objects.exists()


def test_a_photo_too_blurred_to_read_is_refused_with_imgc007(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    data, _ = phone_photo("upload-blurred", 0)
    photo = Image.open(io.BytesIO(data))
    photo.thumbnail((1200, 1200))

    response = upload(client, auth, realistic.encode(photo.filter(ImageFilter.GaussianBlur(2)), "jpeg"))

    assert response.status_code == 400
    assert response.json()["zlb_scan"]["error_code"] == "IMGC007"
    assert not BevRegistration.objects.exists()

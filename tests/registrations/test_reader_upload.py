"""Through the API: a phone photo of the real ZB I layout, turned in its pixels, is accepted and
its fields are read into the registration with the rule that decided each; a Teil II photo is
refused; a photo too blurred for a person to read is refused with IMGC007."""

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
from tests.fixtures.zlb import generate
from tests.fixtures.zlb.real import conditions, documents, wrong
from tests.registrations.test_api import auth, owner, upload  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


def phone_photo(seed: int, turn: int, family: str = "liberation") -> tuple[bytes, dict[str, str]]:
    page, expected, _ = documents.real_face(seed, family=family, energy="0004")
    photo = conditions.photograph(random.Random(f"upload-{seed}"), page, quality="phone")
    return generate.encode(photo.rotate(turn, expand=True), "jpeg", quality=88), expected


def test_a_turned_phone_photo_is_accepted_with_its_fields_read(
    client: Client,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    data, expected = phone_photo(11, 90)

    response = upload(client, auth, data)

    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    assert registration.vin == expected["E"]
    assert registration.check_digit == expected["3"]
    assert registration.decided_by["E"] in {"field3", "field3_choice"}
    assert str(registration.first_registration) == expected["B"]
    assert registration.energy_code == "0004" and registration.is_electric is True
    assert registration.vehicle_class == expected["J"]
    # every field the reader stored is the printed one, with its confidence and its rule; what it
    # could not settle is left empty (the fields the quota needs listed as unread), never wrong
    stored = {
        "I": str(registration.registration_date or ""),
        "D.1": registration.make,
        "P.3": registration.fuel,
        "C1.1": registration.holder_name,
        "C1.2": registration.holder_first_names,
    }
    for code, value in stored.items():
        if value:
            assert value.upper() == expected[code].upper(), code
            assert 0 < registration.confidence[code] <= 1 and registration.decided_by[code], code
        else:
            assert code not in registration.confidence, code
    assert registration.needs_review == bool(registration.unread)
    assert set(registration.unread) <= {"I"}
    # where each value lies on the stored picture (the review shows its crop beside it)
    x0, y0, x1, y1 = registration.field_boxes["E"]
    assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1


def test_a_teil_ii_photo_is_refused(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    data, _ = wrong.wrong_document(0, "teil2")

    response = upload(client, auth, data)

    assert response.status_code == 400
    assert response.json()["zlb_scan"]["error_code"] in {"IMGC002", "IMGC003"}
    assert not BevRegistration.objects.exists()


def test_a_photo_too_blurred_to_read_is_refused_with_imgc007(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    data, _ = phone_photo(12, 0)
    photo = Image.open(io.BytesIO(data))
    photo.thumbnail((1200, 1200))

    response = upload(client, auth, generate.encode(photo.filter(ImageFilter.GaussianBlur(3)), "jpeg"))

    assert response.status_code == 400
    assert response.json()["zlb_scan"]["error_code"] == "IMGC007"
    assert not BevRegistration.objects.exists()

"""The redacted display copy (issue 19): after the document check the holder's name and address
are blacked out; the portal's URLs serve only that copy; the original waits for the authority
submission and is deleted after it."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import cv2
import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from PIL import Image

from accounts.models import User
from billing.models import Client as BillingClient
from quota.models import QuotaApplication
from registrations import files
from registrations.cleanup import scan_orphans_delete
from registrations.models import BevRegistration
from registrations.reader import Reading
from registrations.redaction import redacted_image
from registrations.services import scan_original_release, scan_originals_expire
from tenants.models import Partner
from tests.privacy.redaction_samples import at_size, sample
from tests.registrations.test_api import _in_autohaus as _in_autohaus  # noqa: F401
from tests.registrations.test_api import auth, owner, upload  # noqa: F401

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"


def _gray(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("L"))


def _hull(mask: np.ndarray) -> np.ndarray:
    """The convex hull of a mask's pixels, as a mask (the area the ink's lines span)."""
    points = np.column_stack(np.nonzero(mask)[::-1]).astype(np.int32)
    hull = np.zeros(mask.shape, np.uint8)
    cv2.fillPoly(hull, [cv2.convexHull(points)], 1)
    return hull.astype(bool)


def _served(client: Client, registration: BevRegistration, kind: str) -> Any:
    partner = Partner.objects.get(subdomain="autohaus")
    return client.get(files.scan_url(partner=partner, registration=registration, kind=kind), HTTP_HOST=HOST)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kind", "seed"), [("scan", 0), ("phone", 0)])
def test_the_portal_image_has_the_holder_blacked_out_and_the_vin_intact(
    client: Client,
    auth: dict[str, str],  # noqa: F811
    kind: str,
    seed: int,
) -> None:
    # given a realistic document and where its holder's and VIN's ink lies
    truth = sample(seed, kind)

    # when it is uploaded and the portal's image URL is opened
    response = upload(client, auth, truth.data)
    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    served = _served(client, registration, "scan")

    # then the holder's ink is black, the VIN's pixels are those of the original
    assert served.status_code == 200
    shown = _gray(b"".join(served.streaming_content))
    with default_storage.open(registration.zlb_scan, "rb") as handle:
        original = _gray(handle.read())
    assert shown.shape == original.shape
    size = (shown.shape[1], shown.shape[0])
    holder, vin = at_size(truth.holder, size), at_size(truth.vin, size)
    assert holder.sum() > 300 and vin.sum() > 300
    assert (shown[holder] < 40).mean() > 0.99, "name/address pixels left visible"
    assert (original[holder] < 40).mean() < 0.9  # the original shows them (the test can fail)
    assert np.abs(shown[vin].astype(int) - original[vin]).mean() < 6, "the VIN area was touched"
    assert registration.redaction == "boxes"
    # the holder panel is one flat black field, not only the ink: nothing of a name's shape
    panel = _hull(holder)
    assert panel.sum() > 3 * holder.sum()
    assert (shown[panel] < 40).mean() > 0.99 and shown[panel].std() < 8
    assert original[panel].std() > 20  # the original has text and guilloche there
    # the vehicle panels keep their detail: every value's ink as sharp as in the original
    vehicle = at_size(truth.vehicle, size)
    assert vehicle.sum() > 10 * vin.sum() // 2
    assert np.abs(shown[vehicle].astype(int) - original[vehicle]).mean() < 6, "vehicle data touched"
    rows, cols = np.nonzero(vehicle)
    region = (slice(rows.min(), rows.max() + 1), slice(cols.min(), cols.max() + 1))
    assert shown[region].std() > 0.9 * original[region].std(), "the vehicle panels lost contrast"
    # the small version is made from the redacted copy, not from the original
    small = _gray(b"".join(_served(client, registration, "resized").streaming_content))
    small_holder = at_size(truth.holder, (small.shape[1], small.shape[0]))
    assert (small[small_holder] < 60).mean() > 0.97


def test_a_picture_without_a_located_form_is_a_neutral_card() -> None:
    rng = np.random.default_rng(3)
    picture = Image.fromarray(rng.integers(0, 255, (600, 900, 3), dtype=np.uint8))

    redacted, method = redacted_image(picture, Reading(is_zlb=False, readable=True, score=0))

    assert method == "neutral"
    assert redacted.size == picture.size
    pixels = np.asarray(redacted)
    # nothing of the picture survives: one background colour and the text's few greys
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) < 300
    assert (pixels == (236, 239, 241)).all(axis=2).mean() > 0.9


def test_no_url_serves_an_unredacted_scan(client: Client, owner: User) -> None:  # noqa: F811
    # given a row stored before the redaction existed
    default_storage.save("p_autohaus/scans/legacy.jpg", io.BytesIO(b"\xff\xd8\xffold"))
    registration = BevRegistration.objects.create(
        owner=owner, sequence=999999, zlb_scan="p_autohaus/scans/legacy.jpg",
        resized_image="p_autohaus/scans/legacy.jpg", original_content_type="image/jpeg", width=1, height=1,
    )  # fmt: skip

    for kind in ("scan", "resized"):
        assert _served(client, registration, kind).status_code == 404


def _application(registration: BevRegistration, status: str, year: int = 2026) -> QuotaApplication:
    client = BillingClient.objects.create(
        owner=registration.owner, first_name="Ina", last_name="Muster", street_name="Weg", street_number="1",
        postal_code="12345", city="Berlin",
    )  # fmt: skip
    return QuotaApplication.objects.create(
        registration=registration, client=client, legislation_year=year, status=status
    )


def test_the_original_is_deleted_after_the_authority_submission(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    assert upload(client, auth, sample(0, "scan").data).status_code == 201
    registration = BevRegistration.objects.get()
    original = registration.zlb_scan
    waiting = _application(registration, "qa_entered", 2026)
    submitted = _application(registration, "qa_sent_to_uba", 2027)

    # one application still waits for its submission: the original stays
    assert scan_original_release(registration) is False
    assert default_storage.exists(original)

    # the last one went out: deleted, the display copy stays and is still served
    waiting.status = "qa_sent_to_uba"
    waiting.save(update_fields=["status"])
    assert submitted.pk and scan_original_release(registration) is True
    registration.refresh_from_db()
    assert not default_storage.exists(original)
    assert registration.zlb_scan == "" and registration.original_deleted_at is not None
    assert default_storage.exists(registration.display_scan)
    assert _served(client, registration, "scan").status_code == 200
    assert scan_original_release(registration) is False  # idempotent


def test_a_retention_period_keeps_the_original_until_it_ends(
    client: Client,
    auth: dict[str, str],  # noqa: F811
    settings: Any,
) -> None:
    settings.ORIGINAL_SCAN_RETENTION = timedelta(days=30)
    assert upload(client, auth, sample(0, "scan").data).status_code == 201
    registration = BevRegistration.objects.get()
    _application(registration, "qa_sent_to_uba")

    assert scan_original_release(registration) is False
    assert scan_originals_expire(now=timezone.now() + timedelta(days=29)) == 0
    assert default_storage.exists(registration.zlb_scan)
    assert scan_originals_expire(now=timezone.now() + timedelta(days=31)) == 1
    assert not default_storage.exists(registration.zlb_scan)


def test_the_orphan_sweep_keeps_display_copies(client: Client, auth: dict[str, str]) -> None:  # noqa: F811
    assert upload(client, auth, sample(0, "scan").data).status_code == 201
    registration = BevRegistration.objects.get()

    assert scan_orphans_delete(schema_name="p_autohaus", older_than=timedelta(0)) == []
    for name in (registration.zlb_scan, registration.display_scan, registration.resized_image):
        assert default_storage.exists(name)


def _mosaic(client: Client, auth: dict[str, str], *, keep_original: bool) -> tuple[BevRegistration, str]:  # noqa: F811
    """A registration whose display copy is what it was before issue 51: the whole picture
    pixelated (a coarse mosaic)."""
    assert upload(client, auth, sample(0, "scan").data).status_code == 201
    registration = BevRegistration.objects.get()
    with default_storage.open(registration.zlb_scan, "rb") as handle:
        original = Image.open(handle).convert("RGB")
    coarse = original.resize((original.width // 24, original.height // 24), Image.Resampling.BOX)
    buffer = io.BytesIO()
    coarse.resize(original.size, Image.Resampling.NEAREST).save(buffer, "JPEG")
    old = default_storage.save(
        f"p_autohaus/scans/{registration.uuid}-mosaic.jpg", ContentFile(buffer.getvalue())
    )
    update: dict[str, Any] = {"display_scan": old, "redaction": "pixelated"}
    if not keep_original:
        default_storage.delete(registration.zlb_scan)
        update["zlb_scan"] = ""
    BevRegistration.objects.filter(pk=registration.pk).update(**update)
    return registration, old


def test_a_mosaic_of_before_is_made_again_with_the_holder_panel_blacked_out(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    registration, old = _mosaic(client, auth, keep_original=True)

    call_command("redact_scans", "--schema", "p_autohaus", stdout=io.StringIO())

    registration.refresh_from_db()
    assert registration.redaction == "boxes"
    assert not default_storage.exists(old)
    shown = _gray(b"".join(_served(client, registration, "scan").streaming_content))
    with default_storage.open(registration.zlb_scan, "rb") as handle:
        original = _gray(handle.read())
    # sharp again outside the holder panel: most of the picture is the original's
    assert (np.abs(shown.astype(int) - original) < 8).mean() > 0.6
    assert (shown < 20).mean() > 0.05  # and the panel is black
    # a second run leaves the new copy alone
    out = io.StringIO()
    call_command("redact_scans", "--schema", "p_autohaus", stdout=out)
    assert "p_autohaus: 0 scans redacted" in out.getvalue()


def test_a_mosaic_whose_original_is_gone_becomes_the_neutral_card(
    client: Client,
    auth: dict[str, str],  # noqa: F811
) -> None:
    registration, old = _mosaic(client, auth, keep_original=False)

    call_command("redact_scans", "--schema", "p_autohaus", stdout=io.StringIO())

    registration.refresh_from_db()
    assert registration.redaction == "neutral"
    assert not default_storage.exists(old)
    for kind in ("scan", "resized"):
        shown = np.asarray(
            Image.open(io.BytesIO(b"".join(_served(client, registration, kind).streaming_content))).convert(
                "RGB"
            )
        ).astype(int)
        # the card's quiet background, nothing of the mosaic
        assert (np.abs(shown - (236, 239, 241)).max(axis=2) < 6).mean() > 0.9

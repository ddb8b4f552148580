"""Bulk uploads through HTTP: the archive and the owner CSV are checked whole before anything is
stored; each file runs the flow's intake and document check in a huey task (immediate mode in
tests: the real task code, run when the upload's transaction commits); progress per file;
rollback removes everything it created, and is refused once an application moved on."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts.models import User
from authority.models import VehicleClaim
from billing.models import Client as BillingClient
from operations import archive as zip_check
from operations.models import BulkUpload, BulkUploadItem
from quota.models import QuotaApplication, QuotaStatus
from quota.services import quota_application_move
from registrations.models import BevRegistration
from staff.models import AuditEntry
from tenants.models import Partner
from tests.fixtures.zlb.generate import photo, zlb_document
from tests.operations.conftest import API, HOST, OTHER_HOST, SessionFactory

pytestmark = pytest.mark.django_db
UPLOADS = API + "bulk_uploads/"
HEADER = "file_name;email;gender;first_name;last_name;street_name;street_number;postal_code;city;account_iban;vehicle_owner_type"


@pytest.fixture(scope="session")
def scans() -> dict[str, bytes]:
    # Seeds whose VIN the reader gets right (the duplicate check needs it)
    first, _ = zlb_document(1)
    second, _ = zlb_document(2, fmt="pdf")
    same_car, _ = zlb_document(1, fmt="png")  # other bytes, the same vehicle as `first`
    return {"first": first, "second": second, "same_car": same_car, "photo": photo(5)}


def zip_of(files: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def csv_row(
    file_name: str, email: str, last_name: str = "Müller", iban: str = "DE89370400440532013000"
) -> str:
    return f"{file_name};{email};Frau;Anna;{last_name};Hauptstraße;1;10115;Berlin;{iban};privat"


Upload = Callable[..., Any]


@pytest.fixture
def upload(django_capture_on_commit_callbacks: Any) -> Upload:
    def send(
        client: Client, archive: bytes, owners_csv: bytes | None = None, host: str = HOST, **form: str
    ) -> Any:
        body: dict[str, Any] = {
            "archive": SimpleUploadedFile("flotte.zip", archive, "application/zip"),
            **form,
        }
        if owners_csv is not None:
            body["owners_csv"] = SimpleUploadedFile("halter.csv", owners_csv, "text/csv")
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(UPLOADS, body, HTTP_HOST=host)

    return send


@pytest.fixture
def rollback(django_capture_on_commit_callbacks: Any) -> Upload:
    """The rollback call; the scans are deleted once its transaction commits."""

    def send(client: Client, upload_id: int, host: str = HOST) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"{UPLOADS}{upload_id}/rollback/", HTTP_HOST=host)

    return send


def stored_files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def nothing_stored(root: Path) -> bool:
    return not BulkUpload.objects.exists() and not BevRegistration.objects.exists() and not stored_files(root)


# ---------------------------------------------------------------- the whole path


def test_a_fleet_upload_with_owner_data_registers_each_scan_and_reports_each_file(
    autohaus: Partner, admin: Client, upload: Upload, scans: dict[str, bytes], settings: Any
) -> None:
    # given: two documents, the same file twice, a photo that is no document, the same car again
    archive = zip_of(
        {
            "flotte/a.jpg": scans["first"],
            "flotte/b.pdf": scans["second"],
            "flotte/b-kopie.pdf": scans["second"],
            "flotte/urlaub.jpg": scans["photo"],
            "flotte/a-nochmal.png": scans["same_car"],
        }
    )
    rows = [
        csv_row("a.jpg", "anna@flotte.example"),
        csv_row("b.pdf", "ben@flotte.example", "Schäfer"),
        csv_row("b-kopie.pdf", "ben@flotte.example", "Schäfer"),
        csv_row("urlaub.jpg", "cem@flotte.example"),
        csv_row("a-nochmal.png", "anna@flotte.example"),
    ]
    owners_csv = ("\ufeff" + HEADER + "\r\n" + "\r\n".join(rows) + "\r\n").encode("utf-8")

    # when
    created = upload(admin, archive, owners_csv)

    # then
    assert created.status_code == 201, created.content
    assert created.json()["has_csv"] is True and created.json()["csv_encoding"] == "utf-8-sig"
    progress = admin.get(f"{UPLOADS}{created.json()['id']}/", HTTP_HOST=HOST).json()
    assert progress["status"] == "ready" and progress["progress"] == 1.0
    items = {item["file_name"]: item for item in progress["items"]}
    assert items["a.jpg"]["status"] == "accepted" and items["b.pdf"]["status"] == "accepted"
    assert (items["b-kopie.pdf"]["status"], items["b-kopie.pdf"]["error_code"]) == ("duplicate", "BULK032")
    assert items["urlaub.jpg"]["status"] == "refused" and items["urlaub.jpg"]["error_code"] in (
        "IMGC002",
        "IMGC003",
    )
    assert (items["a-nochmal.png"]["status"], items["a-nochmal.png"]["error_code"]) == (
        "duplicate",
        "BULK033",
    )
    assert items["a-nochmal.png"]["details"]["sequence"] == items["a.jpg"]["registration"]["sequence"]
    assert progress["counts"] == {"pending": 0, "accepted": 2, "refused": 1, "duplicate": 2}
    # the owners, their billing data and one application each, as the flow would make them
    anna = User.objects.get(email="anna@flotte.example")
    client = BillingClient.objects.get(owner=anna)
    assert (client.last_name, client.account_iban, client.locked_at is not None) == (
        "Müller",
        "DE89370400440532013000",
        True,
    )
    application = QuotaApplication.objects.get(registration__owner=anna)
    assert application.status == QuotaStatus.CREATED
    assert items["a.jpg"]["applications"] == [
        {"id": application.pk, "legislation_year": application.legislation_year, "status": "qa_created"}
    ]
    registration = BevRegistration.objects.get(pk=items["a.jpg"]["registration"]["id"])
    assert registration.locked_at is not None and registration.vin
    # the raw files are gone; the two registrations' scans stay (original, redacted display copy
    # and its small version each)
    root = Path(settings.MEDIA_ROOT)
    assert not list(root.rglob("bulk/*/*"))
    assert len(list(root.rglob("scans/*"))) == 6
    assert AuditEntry.objects.filter(action="bulk_upload.create", object_id=str(progress["id"])).exists()


def test_without_owner_data_the_scans_belong_to_one_account_of_the_upload(
    autohaus: Partner, admin: Client, upload: Upload, rollback: Upload, scans: dict[str, bytes], settings: Any
) -> None:
    created = upload(admin, zip_of({"a.jpg": scans["first"]}))

    assert created.status_code == 201
    progress = admin.get(f"{UPLOADS}{created.json()['id']}/", HTTP_HOST=HOST).json()
    assert progress["status"] == "bevRegistration_bulk_created"
    assert progress["items"][0]["status"] == "accepted" and progress["items"][0]["applications"] == []
    upload_row = BulkUpload.objects.get(pk=progress["id"])
    assert (
        BevRegistration.objects.get(pk=progress["items"][0]["registration"]["id"]).owner_id
        == upload_row.owner_id
    )
    assert not upload_row.owner.has_usable_password()  # type: ignore[union-attr]

    # rollback takes the registration, its scans and the account back
    rolled = rollback(admin, progress["id"])
    assert rolled.status_code == 200 and rolled.json()["status"] == "bevRegistration_bulk_is_rolled_back"
    assert not BevRegistration.objects.exists()
    assert not User.objects.filter(pk=upload_row.owner_id).exists()
    assert not stored_files(Path(settings.MEDIA_ROOT))


def test_an_upload_where_nothing_passes_is_rejected(
    autohaus: Partner, admin: Client, upload: Upload, scans: dict[str, bytes]
) -> None:
    created = upload(admin, zip_of({"urlaub.jpg": scans["photo"]}))

    progress = admin.get(f"{UPLOADS}{created.json()['id']}/", HTTP_HOST=HOST).json()
    assert progress["status"] == "bevRegistration_bulk_rejected"
    listing = admin.get(UPLOADS, HTTP_HOST=HOST).json()
    assert listing["count"] == 1 and listing["results"][0]["counts"]["refused"] == 1


def test_rollback_removes_everything_and_is_refused_past_entered(
    autohaus: Partner, admin: Client, upload: Upload, rollback: Upload, scans: dict[str, bytes], settings: Any
) -> None:
    # given: one upload whose application the back office already picked up, one still entered
    moved_on = upload(
        admin, zip_of({"a.jpg": scans["first"]}), _csv(csv_row("a.jpg", "rolf@flotte.example")).encode()
    ).json()
    picked_up = QuotaApplication.objects.get(registration__owner__email="rolf@flotte.example")
    quota_application_move(application=picked_up, status=QuotaStatus.ENTERED, actor=None)
    quota_application_move(application=picked_up, status=QuotaStatus.PICKED_UP, actor=None)
    entered_only = upload(
        admin, zip_of({"b.pdf": scans["second"]}), _csv(csv_row("b.pdf", "rita@flotte.example")).encode()
    ).json()
    entered = QuotaApplication.objects.get(registration__owner__email="rita@flotte.example")
    quota_application_move(application=entered, status=QuotaStatus.ENTERED, actor=None)
    # each registration: the scan, its resized copy and the redacted display copy
    assert len(stored_files(Path(settings.MEDIA_ROOT))) == 6
    claimed = set(VehicleClaim.objects.values_list("application_id", flat=True))
    assert {picked_up.pk, entered.pk} <= claimed  # both vehicles hold their year in the registry

    # when
    refused = rollback(admin, moved_on["id"])
    rolled = rollback(admin, entered_only["id"])
    twice = rollback(admin, entered_only["id"])

    # then
    assert refused.status_code == 409 and refused.json()["error_code"] == "BULK041"
    assert refused.json()["applications"] == [{"id": picked_up.pk, "status": "qa_picked_up"}]
    assert QuotaApplication.objects.filter(pk=picked_up.pk).exists()
    assert rolled.status_code == 200, rolled.content
    assert rolled.json()["status"] == "bevRegistration_bulk_is_rolled_back"
    assert rolled.json()["removed"] == {"applications": 1, "registrations": 1, "clients": 1, "owners": 1}
    assert not QuotaApplication.objects.filter(pk=entered.pk).exists()
    assert not User.objects.filter(email="rita@flotte.example").exists()
    assert BevRegistration.objects.count() == 1  # rolf's stays
    assert len(stored_files(Path(settings.MEDIA_ROOT))) == 3
    assert twice.status_code == 409 and twice.json()["error_code"] == "BULK042"
    assert AuditEntry.objects.filter(action="bulk_upload.rollback").count() == 1
    # the rolled-back upload's items keep their outcome, not the owner's CSV row or file name
    (item,) = BulkUploadItem.objects.filter(upload_id=entered_only["id"])
    assert (
        item.status == "accepted"
        and item.owner_data == ""
        and item.file_name == ""
        and item.stored_path == ""
    )
    assert BulkUploadItem.objects.get(upload_id=moved_on["id"]).owner_data != ""
    # the rolled-back vehicle is free again for any partner; the kept one still holds its year
    remaining = set(VehicleClaim.objects.values_list("application_id", flat=True))
    assert entered.pk not in remaining and picked_up.pk in remaining


# ---------------------------------------------------------------- bad archives: nothing stored


def _bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("scan.jpg", b"\xff\xd8\xff" + bytes(9 * 1024 * 1024))
    return buffer.getvalue()


def _lying_header() -> bytes:
    """A member whose central directory claims 3 bytes while it inflates to 5 MB."""
    data = bytearray(_bomb())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0]
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (3).to_bytes(4, "little")  # uncompressed size
    local = info.header_offset
    data[local + 22 : local + 26] = (3).to_bytes(4, "little")
    return bytes(data)


def _symlink() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("link.jpg")
        info.create_system = 3
        info.external_attr = 0o120777 << 16
        archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


JPEG = b"\xff\xd8\xff\xe0" + bytes(200)
BAD_ARCHIVES = {
    "not a zip": (b"PK\x03\x04 kaputt", "BULK001"),
    "a text file": (b"Hallo, das ist kein Archiv", "BULK001"),
    "empty": (zip_of({"leer/": b""}), "BULK008"),
    "path traversal": (zip_of({"../../etc/cron.d/x.jpg": JPEG}), "BULK005"),
    "absolute path": (zip_of({"/tmp/x.jpg": JPEG}), "BULK005"),
    "backslashes": (zip_of({"..\\..\\x.jpg": JPEG}), "BULK005"),
    "symlink": (_symlink(), "BULK005"),
    "nested zip by name": (zip_of({"a.jpg": JPEG, "mehr.zip": zip_of({"b.jpg": JPEG})}), "BULK006"),
    "nested zip in disguise": (zip_of({"a.jpg": JPEG, "b.jpg": zip_of({"c.jpg": JPEG})}), "BULK006"),
    "not a scan": (zip_of({"a.jpg": JPEG, "notiz.txt": b"Bitte schnell bearbeiten"}), "BULK007"),
    "an executable named like a scan": (zip_of({"a.jpg": b"MZ\x90\x00" + bytes(100)}), "BULK007"),
    "zip bomb": (_bomb(), "BULK004"),
    # zipfile stops at the declared size and the CRC then fails: refused as a broken archive
    "lying header": (_lying_header(), "BULK001"),
    "one name twice": (zip_of({"a/scan.jpg": JPEG, "b/scan.jpg": JPEG}), "BULK010"),
    "too many files": (zip_of({f"{n}.jpg": JPEG for n in range(501)}, zipfile.ZIP_STORED), "BULK002"),
}


@pytest.mark.parametrize("case", list(BAD_ARCHIVES))
def test_a_bad_archive_is_refused_with_a_clear_error_and_nothing_stored(
    autohaus: Partner, admin: Client, upload: Upload, settings: Any, case: str
) -> None:
    data, code = BAD_ARCHIVES[case]

    refused = upload(admin, data)

    assert refused.status_code == 400, refused.content
    assert refused.json()["archive"]["error_code"] == code
    assert refused.json()["archive"]["message"]
    assert nothing_stored(Path(settings.MEDIA_ROOT))


def test_too_much_uncompressed_data_is_refused(
    autohaus: Partner, admin: Client, upload: Upload, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the 200 MB limit, scaled down: three stored files of 400 KB against a 1 MB limit
    monkeypatch.setattr(zip_check, "MAX_TOTAL_UNCOMPRESSED", 1024 * 1024)
    big = b"\xff\xd8\xff" + bytes(400 * 1024)

    refused = upload(admin, zip_of({f"{n}.jpg": big for n in range(3)}, zipfile.ZIP_STORED))

    assert refused.status_code == 400 and refused.json()["archive"]["error_code"] == "BULK003"
    assert nothing_stored(Path(settings.MEDIA_ROOT))


def test_a_missing_archive_or_an_unoffered_year_is_refused(
    autohaus: Partner, admin: Client, upload: Upload
) -> None:
    with_year = upload(admin, zip_of({"a.jpg": JPEG}), registration_years="1999")
    without = admin.post(UPLOADS, {}, HTTP_HOST=HOST)

    assert with_year.status_code == 400 and "registration_years" in with_year.json()
    assert without.status_code == 400 and without.json()["archive"]["error_code"] == "BULK000"
    assert not BulkUpload.objects.exists()


# ---------------------------------------------------------------- bad CSVs: nothing stored


def _csv(*rows: str, header: str = HEADER) -> str:
    return header + "\n" + "\n".join(rows) + "\n"


BAD_CSVS = {
    "utf-16": (_csv(csv_row("a.jpg", "a@x.example")).encode("utf-16"), "BULK020"),
    "binary": (b"\x81\x8d\x8f\x90\x9d" * 20, "BULK020"),
    "a required column missing": (_csv("a.jpg;Anna", header="file_name;first_name").encode(), "BULK021"),
    "an unknown column": (
        _csv(csv_row("a.jpg", "a@x.example") + ";x", header=HEADER + ";lieblingsfarbe").encode(),
        "BULK021",
    ),
    "no rows": ((HEADER + "\n").encode(), "BULK024"),
    "a row for a file not in the archive": (
        _csv(csv_row("a.jpg", "a@x.example"), csv_row("fehlt.jpg", "b@x.example")).encode(),
        "BULK023",
    ),
    "a file without a row": (_csv(csv_row("b.jpg", "a@x.example")).encode(), "BULK023"),
    "an invalid IBAN and e-mail": (_csv(csv_row("a.jpg", "kein-at", iban="DE00123")).encode(), "BULK022"),
}


@pytest.mark.parametrize("case", list(BAD_CSVS))
def test_a_bad_owner_csv_is_refused_with_a_clear_error_and_nothing_stored(
    autohaus: Partner, admin: Client, upload: Upload, settings: Any, case: str
) -> None:
    data, code = BAD_CSVS[case]

    refused = upload(admin, zip_of({"a.jpg": JPEG}), data)

    assert refused.status_code == 400, refused.content
    body = refused.json()
    assert body["status"] == "unstructured_data_upload_failed"
    assert body["owners_csv"]["error_code"] == code and body["owners_csv"]["message"]
    assert nothing_stored(Path(settings.MEDIA_ROOT))


def test_the_row_errors_name_row_and_field(autohaus: Partner, admin: Client, upload: Upload) -> None:
    refused = upload(
        admin, zip_of({"a.jpg": JPEG}), _csv(csv_row("a.jpg", "kein-at", iban="DE00123")).encode()
    )

    rows = refused.json()["owners_csv"]["details"]["rows"]
    assert rows[0]["row"] == 2 and rows[0]["file_name"] == "a.jpg"
    assert set(rows[0]["errors"]) >= {"email", "account_iban"}


def test_a_windows_1252_csv_is_read_as_such(autohaus: Partner, admin: Client, upload: Upload) -> None:
    # given: an Excel export on a German Windows, with a name the check refuses on purpose
    data = _csv(csv_row("a.jpg", "kein-at", last_name="Größe")).encode("cp1252")

    refused = upload(admin, zip_of({"a.jpg": JPEG}), data)

    # then: decoded (the e-mail is what is wrong, not the umlauts)
    errors = refused.json()["owners_csv"]["details"]["rows"][0]["errors"]
    assert set(errors) == {"email"}


# ---------------------------------------------------------------- roles and partners


def test_viewers_follow_but_do_not_upload_or_roll_back(
    autohaus: Partner, admin: Client, session: SessionFactory, upload: Upload, scans: dict[str, bytes]
) -> None:
    created = upload(admin, zip_of({"urlaub.jpg": scans["photo"]})).json()
    viewer = session("viewer")

    posted = upload(viewer, zip_of({"a.jpg": JPEG}))
    listing = viewer.get(UPLOADS, HTTP_HOST=HOST)
    progress = viewer.get(f"{UPLOADS}{created['id']}/", HTTP_HOST=HOST)
    rollback = viewer.post(f"{UPLOADS}{created['id']}/rollback/", HTTP_HOST=HOST)
    anonymous = Client().get(UPLOADS, HTTP_HOST=HOST)

    assert posted.status_code == 403 and BulkUpload.objects.count() == 1
    assert listing.status_code == 200 and progress.status_code == 200
    assert rollback.status_code == 403
    assert anonymous.status_code == 401
    back_office = session("back_office")
    assert back_office.post(f"{UPLOADS}{created['id']}/rollback/", HTTP_HOST=HOST).status_code == 200


def test_another_partner_sees_none_of_it(
    autohaus: Partner, admin: Client, session: SessionFactory, upload: Upload, scans: dict[str, bytes]
) -> None:
    created = upload(admin, zip_of({"urlaub.jpg": scans["photo"]})).json()
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    other = session("partner_admin", host=OTHER_HOST, partner=stadtwerk)

    assert other.get(UPLOADS, HTTP_HOST=OTHER_HOST).json()["count"] == 0
    assert other.get(f"{UPLOADS}{created['id']}/", HTTP_HOST=OTHER_HOST).status_code == 404
    assert other.post(f"{UPLOADS}{created['id']}/rollback/", HTTP_HOST=OTHER_HOST).status_code == 404
    assert admin.get(UPLOADS, HTTP_HOST=OTHER_HOST).status_code == 401


def test_the_body_limit_of_the_bulk_upload_is_its_own(autohaus: Partner, admin: Client) -> None:
    # 12 MB: over the flow's scan limit, well under the 200 MB of a bulk upload
    size = 12 * 1024 * 1024
    big = admin.post(
        UPLOADS,
        b"x",
        content_type="multipart/form-data; boundary=xyz",
        HTTP_HOST=HOST,
        CONTENT_LENGTH=str(size),
    )
    too_big = admin.post(
        UPLOADS,
        b"x",
        content_type="multipart/form-data; boundary=xyz",
        HTTP_HOST=HOST,
        CONTENT_LENGTH=str(202 * 1024 * 1024),
    )

    assert big.status_code != 413
    assert too_big.status_code == 413
    assert BulkUploadItem.objects.count() == 0


def test_the_list_query_count_does_not_grow_with_the_uploads(
    autohaus: Partner, admin: Client, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    # the scans' intake is not what this test is about: no task runs
    monkeypatch.setattr("operations.money_api._enqueue", lambda schema, item: None)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin.get(UPLOADS, HTTP_HOST=HOST).status_code == 200
        return len(captured)

    upload(admin, zip_of({"a.jpg": JPEG}))
    one = queries()
    for n in range(3):
        upload(admin, zip_of({f"{n}.jpg": JPEG, f"{n}b.jpg": JPEG + b"x"}))
    four = queries()

    assert four == one
    assert admin.get(UPLOADS, HTTP_HOST=HOST).json()["results"][0]["counts"]["pending"] == 2

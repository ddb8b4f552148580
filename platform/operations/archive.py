"""The ZIP of a bulk upload, checked before anything is stored. Pure: no database, no storage.

The end record is read first (a few bytes at the file's end): an archive whose central directory
is too large or has too many entries is refused before it is parsed (a million entries would
cost seconds and hundreds of MB in a web worker). Headers can lie: every size is checked on the
declared values first (cheap, refuses a bomb before a byte is inflated) and again while
inflating, with a hard cap on what is read. The expansion is measured on the whole archive
(what all members inflate to against what they take packed), not per member: many members
each under the per-member floor inflate as much as one large one.
"""

from __future__ import annotations

import hashlib
import stat
import struct
import unicodedata
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from registrations.intake import sniff

MAX_FILES = 500
MAX_ARCHIVE_BYTES = 200 * 1024 * 1024
MAX_TOTAL_UNCOMPRESSED = 200 * 1024 * 1024
# Scans are JPEG, PNG or PDF: already compressed, they deflate by a few percent. A member that
# inflates more than this (and is not tiny) is a bomb.
MAX_RATIO = 20
RATIO_FLOOR = 1024 * 1024  # below this size the ratio is not looked at
# Entries of the central directory: the scans, their folders and what archivers add (__MACOSX
# with a "._" twin per file); and the directory's size (an entry is 46 bytes and its name).
MAX_ENTRIES = 4 * MAX_FILES
MAX_DIRECTORY_BYTES = MAX_ENTRIES * (46 + 300)
SCAN_TYPES = {"image/jpeg", "image/png", "application/pdf"}
NESTED_SUFFIXES = (".zip", ".rar", ".7z", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".jar", ".cab")
NESTED_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"Rar!", b"7z\xbc\xaf", b"\x1f\x8b", b"BZh", b"\xfd7zXZ")
# What archivers add on their own: skipped silently, never stored.
JUNK_PREFIXES = ("__MACOSX/",)
JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}

# Error codes of the archive check (field "archive").
NOT_A_ZIP = "BULK001"
TOO_MANY_FILES = "BULK002"
TOO_LARGE = "BULK003"
BOMB = "BULK004"
UNSAFE_NAME = "BULK005"
NESTED_ARCHIVE = "BULK006"
NOT_A_SCAN = "BULK007"
EMPTY = "BULK008"
ENCRYPTED = "BULK009"
NAME_TWICE = "BULK010"

MESSAGES = {
    NOT_A_ZIP: "Die Datei ist kein lesbares ZIP-Archiv.",
    TOO_MANY_FILES: f"Ein Archiv darf höchstens {MAX_FILES} Dateien enthalten.",
    TOO_LARGE: "Das Archiv ist zu groß (höchstens 200 MB, entpackt wie gepackt).",
    BOMB: "Das Archiv entpackt sich auf ein Vielfaches seiner Größe und wird nicht verarbeitet.",
    UNSAFE_NAME: "Das Archiv enthält unzulässige Dateinamen (absolute Pfade, '..', Verknüpfungen).",
    NESTED_ARCHIVE: "Das Archiv enthält weitere Archive. Bitte packen Sie nur Scans ein.",
    NOT_A_SCAN: "Das Archiv enthält Dateien, die kein Scan sind (erlaubt: JPEG, PNG, PDF).",
    EMPTY: "Das Archiv enthält keine Scans.",
    ENCRYPTED: "Das Archiv ist verschlüsselt. Bitte laden Sie es ohne Passwort hoch.",
    NAME_TWICE: "Ein Dateiname kommt im Archiv mehrfach vor (auch in verschiedenen Ordnern).",
}


class ArchiveRefused(Exception):
    def __init__(self, code: str, files: list[str] | None = None):
        self.code = code
        self.message = MESSAGES[code]
        self.files = (files or [])[:20]
        super().__init__(code)

    def as_error(self) -> dict[str, Any]:
        details: dict[str, Any] = {"files": self.files} if self.files else {}
        return {"error_code": self.code, "message": self.message, "details": details}


@dataclass(frozen=True)
class Member:
    info: zipfile.ZipInfo
    name: str  # the file name without folders: what the CSV refers to
    oversized: bool  # over the scan limit: refused per file (IMGC005), never stored


@dataclass
class CheckedArchive:
    members: list[Member] = field(default_factory=list)
    sha256: dict[str, str] = field(default_factory=dict)  # per member name
    sizes: dict[str, int] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [member.name for member in self.members]


def _unsafe(name: str) -> bool:
    if (
        not name
        or "\x00" in name
        or "\\" in name
        or name.startswith("/")
        or (len(name) > 1 and name[1] == ":")
    ):
        return True
    if any(part in ("..", ".") for part in name.split("/")):
        return True
    return any(unicodedata.category(char) in ("Cc", "Cf") for char in name)


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)


def _junk(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return name.startswith(JUNK_PREFIXES) or base in JUNK_NAMES or base.startswith("._")


def _members(archive: zipfile.ZipFile, max_member_bytes: int) -> list[Member]:
    """The scan entries, after the checks on the central directory alone."""
    infos = [info for info in archive.infolist() if not info.is_dir() and not _junk(info.filename)]
    if not infos:
        raise ArchiveRefused(EMPTY)
    if len(infos) > MAX_FILES:
        raise ArchiveRefused(TOO_MANY_FILES)
    unsafe = [info.filename for info in infos if _unsafe(info.filename) or _is_symlink(info)]
    if unsafe:
        raise ArchiveRefused(UNSAFE_NAME, unsafe)
    encrypted = [info.filename for info in infos if info.flag_bits & 0x1]
    if encrypted:
        raise ArchiveRefused(ENCRYPTED, encrypted)
    nested = [info.filename for info in infos if info.filename.lower().endswith(NESTED_SUFFIXES)]
    if nested:
        raise ArchiveRefused(NESTED_ARCHIVE, nested)
    declared = sum(info.file_size for info in infos)
    if declared > MAX_TOTAL_UNCOMPRESSED:
        raise ArchiveRefused(TOO_LARGE)
    if _expands(declared, sum(info.compress_size for info in infos)):
        raise ArchiveRefused(BOMB)
    bombs = [
        info.filename
        for info in infos
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1)
    ]
    if bombs:
        raise ArchiveRefused(BOMB, bombs)
    members = [
        Member(info=info, name=info.filename.rsplit("/", 1)[-1], oversized=info.file_size > max_member_bytes)
        for info in infos
    ]
    seen: set[str] = set()
    twice = [m.name for m in members if m.name.casefold() in seen or seen.add(m.name.casefold())]  # type: ignore[func-returns-value]
    if twice:
        raise ArchiveRefused(NAME_TWICE, twice)
    return members


def _expands(inflated: int, packed: int) -> bool:
    """Whether members that take `packed` bytes in the archive inflating to `inflated` are a bomb."""
    return inflated > RATIO_FLOOR and inflated > MAX_RATIO * max(packed, 1)


def member_read(archive: zipfile.ZipFile, member: Member) -> bytes:
    """The member's bytes, never more than its header declared (a lying header is a bomb)."""
    limit = member.info.file_size
    with archive.open(member.info) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ArchiveRefused(BOMB, [member.info.filename])
    return data


_END = struct.Struct("<4s4H2LH")  # end of central directory record
_END64_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")


def end_record(upload: IO[bytes]) -> tuple[int, int]:
    """(entries, central directory bytes) from the end record (ZIP64's where it says so),
    reading at most 64 KB from the end; ArchiveRefused(NOT_A_ZIP) without one."""
    upload.seek(0, 2)
    size = upload.tell()
    tail_size = min(size, _END.size + 0xFFFF + _END64_LOCATOR.size)
    upload.seek(size - tail_size)
    tail = upload.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        raise ArchiveRefused(NOT_A_ZIP)
    _, _, _, _, entries, directory, offset, _ = _END.unpack_from(tail, at)
    if 0xFFFF in (entries,) or 0xFFFFFFFF in (directory, offset):
        locator = at - _END64_LOCATOR.size
        if locator < 0 or tail[locator : locator + 4] != b"PK\x06\x07":
            raise ArchiveRefused(NOT_A_ZIP)
        _, _, end64_at, _ = _END64_LOCATOR.unpack_from(tail, locator)
        if end64_at > size - _END64.size:
            raise ArchiveRefused(NOT_A_ZIP)
        upload.seek(end64_at)
        record = upload.read(_END64.size)
        if record[:4] != b"PK\x06\x06":
            raise ArchiveRefused(NOT_A_ZIP)
        entries, directory = _END64.unpack(record)[7:9]
    upload.seek(0)
    return int(entries), int(directory)


def archive_open(upload: IO[bytes]) -> zipfile.ZipFile:
    try:
        entries, directory = end_record(upload)
    except (OSError, ValueError, struct.error):
        raise ArchiveRefused(NOT_A_ZIP) from None
    if entries > MAX_ENTRIES or directory > MAX_DIRECTORY_BYTES:
        raise ArchiveRefused(TOO_MANY_FILES)
    try:
        return zipfile.ZipFile(upload)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        raise ArchiveRefused(NOT_A_ZIP) from None


def archive_check(archive: zipfile.ZipFile, *, max_member_bytes: int) -> CheckedArchive:
    """Every check, reading each member once (hash and type); nothing is kept but the hashes."""
    checked = CheckedArchive(members=_members(archive, max_member_bytes))
    not_scans, nested, total, packed = [], [], 0, 0
    for member in checked.members:
        if member.oversized:
            continue
        try:
            data = member_read(archive, member)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, ValueError):
            raise ArchiveRefused(NOT_A_ZIP, [member.info.filename]) from None
        # what the archive has inflated to so far, against what it took packed so far
        total += len(data)
        packed += member.info.compress_size
        if total > MAX_TOTAL_UNCOMPRESSED:
            raise ArchiveRefused(TOO_LARGE)
        if _expands(total, packed):
            raise ArchiveRefused(BOMB, [member.info.filename])
        if data.startswith(NESTED_MAGIC):
            nested.append(member.info.filename)
        elif sniff(data) not in SCAN_TYPES:
            not_scans.append(member.info.filename)
        checked.sha256[member.name] = hashlib.sha256(data).hexdigest()
        checked.sizes[member.name] = len(data)
    if nested:
        raise ArchiveRefused(NESTED_ARCHIVE, nested)
    if not_scans:
        raise ArchiveRefused(NOT_A_SCAN, not_scans)
    return checked


def archive_members(
    archive: zipfile.ZipFile, checked: CheckedArchive
) -> Iterator[tuple[Member, bytes | None]]:
    """The members again, with their bytes (None for an oversized one), in archive order."""
    for member in checked.members:
        yield member, None if member.oversized else member_read(archive, member)

"""The vehicle identification number (VIN, field E) and its check digits: a leaf module that
the reader, the double-registration registry and the authority package share.

Two check digits exist and they are different things:

- **Field 3 of the Zulassungsbescheinigung Teil I** is the KBA's check digit of the VIN
  (Kraftfahrt-Bundesamt, "Prüfziffer zur FIN"): printed beside E on every German document,
  for every vehicle, and asked for by the authority next to the VIN. Weights from the right
  2..10 then 2..9 (for 17 characters, left to right 9 8 7 6 5 4 3 2 10 9 8 7 6 5 4 3 2); a digit
  counts as itself, a letter as the digit part of its EBCDIC code (A-I 1-9, J-R 1-9, S-Z 2-9;
  O counts 0); the sum modulo 11, 10 written X. Example: A1BS31Z0430336179 -> 4.
- **The ISO 3779 / North American check digit** sits at place 9 of the VIN itself and is
  mandatory only for some makers' regions (North America: WMI regions 1-5; China: L). It is
  kept as a second, optional proof.
"""

from __future__ import annotations

import re
import unicodedata

ALPHABET = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"  # no I, O, Q in a VIN (ISO 3779)
LENGTH = 17

# Field 3 (KBA): weights left to right for the 17 places
KBA_WEIGHTS = (9, 8, 7, 6, 5, 4, 3, 2, 10, 9, 8, 7, 6, 5, 4, 3, 2)


def _ebcdic_digit(char: str) -> int:
    """The digit part of a character's EBCDIC code: A-I 1-9, J-R 1-9, S-Z 2-9, digits
    themselves. Older documents may print an O; it counts 0 like the digit it is mistaken for."""
    if char.isdigit():
        return int(char)
    if char == "O":
        return 0
    if "A" <= char <= "I":
        return ord(char) - ord("A") + 1
    if "J" <= char <= "R":
        return ord(char) - ord("J") + 1
    if "S" <= char <= "Z":
        return ord(char) - ord("S") + 2
    raise ValueError(f"not a VIN character: {char!r}")


def same_check_value(a: str, b: str) -> bool:
    """Two characters field 3 cannot tell apart (1, A and J all count 1; 2, B, K and S all 2)."""
    try:
        return _ebcdic_digit(a) == _ebcdic_digit(b)
    except ValueError:
        return False


# World manufacturer identifiers of the makes registered in Germany most (public lists of WMIs;
# not complete: an unknown WMI is no reason to refuse a VIN, only a tie-breaker where field 3
# cannot tell two readings apart)
KNOWN_WMI = frozenset(
    [
        "WVW",
        "WVG",
        "WV1",
        "WV2",
        "WV3",
        "WAU",
        "WUA",
        "WBA",
        "WBS",
        "WBY",
        "WMW",
        "WDB",
        "WDD",
        "WDC",
        "WDF",
        "W1K",
        "W1N",
        "W1V",
        "W1T",
        "W0L",
        "W0V",
        "WME",
        "WP0",
        "WP1",
        "WF0",
        "WMA",
        "TMB",
        "TMA",
        "VF1",
        "VF3",
        "VF7",
        "VR3",
        "VR1",
        "VNK",
        "VSS",
        "VWV",
        "ZFA",
        "ZAR",
        "ZFF",
        "SAL",
        "SAJ",
        "SCC",
        "YV1",
        "YV4",
        "LRW",
        "LPS",
        "LVG",
        "LSJ",
        "LGX",
        "L6T",
        "5YJ",
        "7SA",
        "XP7",
        "KMH",
        "KNA",
        "KNE",
        "U5Y",
        "U6Y",
        "NMT",
        "JTD",
        "JTM",
        "JMZ",
        "JN1",
        "SJN",
        "JHM",
        "JMB",
        "VXK",
        "UU1",
        "MMB",
        "NLH",
        "LB3",
        "LJ1",
        "HMU",
    ]
)


# The make each of those WMIs stands for, as field D.1 prints it (normalised: upper case, letters
# only, no diacritics). Only makers whose codes are certain are listed: a WMI missing here, or a
# D.1 naming no make of this table, decides nothing (registrations.vin.make_conflict).
WMI_MAKES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("WVW", "WVG", "WV1", "WV2", "WV3", "VWV"), ("VOLKSWAGEN", "VW")),
    **dict.fromkeys(("WAU", "WUA"), ("AUDI",)),
    **dict.fromkeys(("WBA", "WBS", "WBY"), ("BMW",)),
    "WMW": ("MINI", "BMW"),
    **dict.fromkeys(("WDB", "WDD", "WDC", "WDF", "W1K", "W1N", "W1V", "W1T"), ("MERCEDES", "DAIMLER")),
    "WME": ("SMART", "MERCEDES", "DAIMLER"),
    **dict.fromkeys(("W0L", "W0V"), ("OPEL",)),
    **dict.fromkeys(("WP0", "WP1"), ("PORSCHE",)),
    "WF0": ("FORD",),
    "WMA": ("MAN",),
    "TMB": ("SKODA",),
    "TMA": ("HYUNDAI",),
    "VF1": ("RENAULT",),
    **dict.fromkeys(("VF3", "VR3"), ("PEUGEOT",)),
    "VF7": ("CITROEN",),
    "VR1": ("DS", "CITROEN"),
    "VSS": ("SEAT", "CUPRA"),
    "ZFA": ("FIAT",),
    "ZAR": ("ALFAROMEO", "ALFA"),
    "ZFF": ("FERRARI",),
    "SAL": ("LANDROVER", "RANGEROVER"),
    "SAJ": ("JAGUAR",),
    **dict.fromkeys(("YV1", "YV4"), ("VOLVO",)),
    **dict.fromkeys(("LRW", "5YJ", "7SA", "XP7"), ("TESLA",)),
    "LPS": ("POLESTAR",),
    "LGX": ("BYD",),
    "LSJ": ("MG", "SAIC"),
    "KMH": ("HYUNDAI",),
    **dict.fromkeys(("KNA", "KNE", "U5Y", "U6Y"), ("KIA",)),
    **dict.fromkeys(("JTD", "JTM", "NMT", "VNK"), ("TOYOTA",)),
    "JMZ": ("MAZDA",),
    **dict.fromkeys(("JN1", "SJN"), ("NISSAN",)),
    "JHM": ("HONDA",),
    "JMB": ("MITSUBISHI",),
    "UU1": ("DACIA",),
}
_KNOWN_MAKES = frozenset(make for makes in WMI_MAKES.values() for make in makes)


def make_normalise(make: str) -> str:
    """D.1 as compared: upper case, letters only, diacritics dropped (ŠKODA -> SKODA)."""
    decomposed = unicodedata.normalize("NFKD", make or "").upper()
    return "".join(c for c in decomposed if "A" <= c <= "Z")


def makes_named(make: str) -> frozenset[str]:
    """The makes of WMI_MAKES that D.1 names: a short one (VW, MG, DS, MAN) as a word of its
    own, a longer one anywhere in the letters ("MERCEDES-BENZ", "BMW I")."""
    words = {make_normalise(word) for word in re.split(r"[^0-9A-Za-zÀ-ž]+", make or "") if word}
    flat = make_normalise(make)
    return frozenset(
        known for known in _KNOWN_MAKES if (known in words if len(known) <= 3 else known in flat)
    )


def make_conflict(vin: str, make: str) -> bool:
    """The VIN's maker code (WMI, its first three places) names another make than D.1, where
    both are known: a WMI of WMI_MAKES and a D.1 naming one of the table's makes. Unknown on
    either side is no conflict (the table is not complete, D.1 may be unread)."""
    makes = WMI_MAKES.get((vin or "").strip().upper()[:3])
    if not makes:
        return False
    named = makes_named(make)
    return bool(named) and not named & set(makes)


def kba_check_digit(vin: str) -> str:
    """Field 3 of the ZB I for `vin` (17 characters): '0'-'9' or 'X'."""
    vin = vin.upper()
    if len(vin) != LENGTH:
        raise ValueError("a VIN has 17 characters")
    total = sum(_ebcdic_digit(c) * w for c, w in zip(vin, KBA_WEIGHTS, strict=True))
    rest = total % 11
    return "X" if rest == 10 else str(rest)


def kba_check_ok(vin: str, digit: str) -> bool:
    """The VIN agrees with the printed field 3 (False for anything that is not a VIN)."""
    try:
        return kba_check_digit(vin) == digit.strip().upper()
    except ValueError:
        return False


# ISO 3779 (North American) check digit at place 9
ISO_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
ISO_VALUES = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
ISO_MANDATORY_REGIONS = frozenset("12345L")


def iso_check_digit(vin: str) -> str:
    total = sum(ISO_VALUES[c] * w for c, w in zip(vin, ISO_WEIGHTS, strict=True))
    return "X" if total % 11 == 10 else str(total % 11)


def plausible(vin: str) -> tuple[bool, bool]:
    """(plausible, ISO check digit confirmed): 17 characters of the VIN alphabet, a WMI whose
    first character names a region, the last four of the serial digits, and the ISO check
    digit where the maker's region makes it mandatory. An unknown WMI is no reason to refuse."""
    if len(vin) != LENGTH or any(c not in ALPHABET for c in vin):
        return False, False
    if vin[0] == "0" or not vin[-4:].isdigit():
        return False, False
    confirmed = iso_check_digit(vin) == vin[8]
    if vin[0] in ISO_MANDATORY_REGIONS and not confirmed:
        return False, False
    return True, confirmed


def valid(vin: str, field3: str | None = None, make: str | None = None) -> bool:
    """A VIN fit to be stored or claimed: plausible, where field 3 is known agreeing with it, and
    where D.1 (`make`) is known, its maker code not naming another make (make_conflict)."""
    if not plausible(vin)[0]:
        return False
    if make and make_conflict(vin, make):
        return False
    return field3 is None or kba_check_ok(vin, field3)

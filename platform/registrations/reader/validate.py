"""The rules a value must keep to be stored: each field's alphabet and form, and what the
fields say of each other (the VIN and its field 3, B <= I <= today, code 10 against P.3)."""

from __future__ import annotations

import datetime
import difflib
import itertools
import re
import unicodedata

from registrations import vin as vins

ELECTRIC = "0004"
EARLIEST = datetime.date(1950, 1, 1)
VIN_ALPHABET = vins.ALPHABET
# what an engine prints for a VIN place that cannot be that character (no I, O, Q in a VIN)
VIN_MEND = str.maketrans({"O": "0", "Q": "0", "I": "1", "Θ": "0", "Ø": "0"})
# a zero printed dotted or slashed, as some printers and fonts do, read as a Greek theta or an Ø
ZERO_LOOKALIKES = str.maketrans({"θ": "0", "Θ": "0", "ø": "0", "Ø": "0", "O": "0", "o": "0"})
DATE = re.compile(r"(\d{1,2})\s?[.,]\s?(\d{1,2})\s?[.,]\s?(\d{4})")
# a zero-padded date (14.01.2018) whose dots an engine dropped on a blurred photo ("20.012023",
# "28062024"): its eight digits still split one way only; taken as read (no zero mended)
DOTS_DROPPED = re.compile(r"(?<!\d)(\d{2})[.,]?(\d{2})[.,]?(\d{4})(?!\d)")
VEHICLE_CLASS = re.compile(r"(M[123]G?|N[123]G?|O[1-4]|L[1-7]E)")
ENERGY_CODE = re.compile(r"(00\d\d)(?!\d)")
# the KBA's energy codes (Kraftstoffart / Energiequelle): 0001 Benzin ... 0004 Elektro ...
KNOWN_CODES = {f"{n:04d}" for n in range(0, 41)}
PLATE = re.compile(r"^[A-ZÄÖÜ]{1,3}-?\s?[A-Z]{1,2}\s?\d{1,4}[EH]?$")
FUELS = {
    "ELEKTRO": "0004",
    "BENZIN": "0001",
    "DIESEL": "0002",
    "HYBR": None,  # "Hybr. Benzin/E": plug-in hybrids, not eligible
    "WASSERSTOFF": None,
    "GAS": None,
}
# words and the marks names have between them ("GmbH & Co. KG", "LYNK & CO", "Müller-Lüdenscheidt")
WORDS = re.compile(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß.\-& ]*[A-Za-zÄÖÜäöüß.]|[A-Za-zÄÖÜäöüß]")


def normalise(text: str) -> str:
    """Lower case, umlauts folded, only letters kept (no digit mending: 'Teil II' must stay)."""
    folded = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z]", "", folded)


def vin_text(text: str) -> str:
    """An engine's read of field E as VIN characters (spaces and marks dropped)."""
    return re.sub(r"[^A-Z0-9]", "", text.translate(ZERO_LOOKALIKES).upper().translate(VIN_MEND))


def vin_valid(vin: str) -> tuple[bool, bool]:
    """(plausible, ISO check digit confirmed); the corrections form uses it too."""
    return vins.plausible(vin)


def check_digit(text: str) -> str | None:
    """Field 3: one digit or X."""
    found = re.sub(r"[^0-9X]", "", text.translate(ZERO_LOOKALIKES).upper().replace("K", "X"))
    return found if len(found) == 1 else None


def check_digits_seen(text: str) -> set[str]:
    """Every digit (or X) a read of field 3 shows, also within a longer misread ("51")."""
    return set(re.sub(r"[^0-9X]", "", text.translate(ZERO_LOOKALIKES).upper().replace("K", "X")))


def _date(day: str, month: str, year: str, *, today: datetime.date) -> datetime.date | None:
    try:
        value = datetime.date(int(year), int(month), int(day))
    except ValueError:
        return None
    return value if EARLIEST <= value <= today else None


# A printer's zero with a dot or a slash inside is read as 6, 8 or 9 ("28.95.2024", "2626"). The
# mend sees only the places that make no date: "19.18.2019" becomes 19.10.2019 where 10.10.2019 is
# printed, its day's 9 the same misread. decide.agreed (as_printed) leaves a mended date unsure
# where another read prints a different one (dev set, a phone photo: B stored wrong by two mended
# reads, RapidOCR read it as printed; whole bench set: 1 right B of 183 now left for review)
ZERO_MISREADS = "689"
ZERO_REPAIRS = 2  # at most this many places of one date


def _padded_unlike(day: str, month: str) -> bool:
    """A printer pads day and month alike: both with a zero (04.04.2020) or neither (4.4.2020,
    4.10.2020). One padded and the other short ("4.04.2020") is a read that lost a character
    at the start: a crop that cut the 2 of 24.04.2020 (a poor photo) was read so by two engines."""
    return (len(day) == 1 and month.startswith("0")) or (len(month) == 1 and day.startswith("0"))


def date(text: str, today: datetime.date, *, mend: bool = True) -> datetime.date | None:
    """A date as printed (14.01.2018, 23.4.2015), between EARLIEST and today. A read that is no
    such date (a month 95, a year 2626) where putting a zero back for a 6, 8 or 9 at the fewest
    places (at most ZERO_REPAIRS) makes exactly one date is that date; two ways: none. A
    zero-padded date whose dots were lost (DOTS_DROPPED) is taken as read, never mended. A day
    and month padded unlike (_padded_unlike) are no date. `mend` False: the date as read or none."""
    match = DATE.search(text)
    if not match:
        dropped = DOTS_DROPPED.search(text)
        # as read only: a read that lost its dots and misread a zero is two guesses ("1884.2817",
        # both models, was mended to 18.04.2017 for a printed 15.04.2017)
        return _date(*dropped.groups(), today=today) if dropped else None
    parts: tuple[str, str, str] = (match.group(1), match.group(2), match.group(3))
    if _padded_unlike(parts[0], parts[1]):
        return None
    value = _date(*parts, today=today)
    if value is not None or not mend:
        return value
    joined = "".join(parts)
    places = [i for i, char in enumerate(joined) if char in ZERO_MISREADS]
    cuts = (len(parts[0]), len(parts[0]) + len(parts[1]))
    for count in range(1, ZERO_REPAIRS + 1):
        found = set()
        for chosen in itertools.combinations(places, count):
            mended = "".join("0" if i in chosen else char for i, char in enumerate(joined))
            day, month = mended[: cuts[0]], mended[cuts[0] : cuts[1]]
            repaired = (
                None if _padded_unlike(day, month) else _date(day, month, mended[cuts[1] :], today=today)
            )
            if repaired is not None:
                found.add(repaired)
        if found:
            return found.pop() if len(found) == 1 else None
    return None


# Older documents print J as the KBA's national class code: 01 is the passenger car (Pkw, M1)
NATIONAL_CLASSES = {"01": "M1"}


# after M, N or O the class is a digit: what an engine reads there instead is its look-alike
CLASS_DIGIT = str.maketrans({"L": "1", "I": "1", "|": "1", "Z": "2", "B": "3"})


def vehicle_class(text: str) -> str | None:
    flat = re.sub(r"[^A-Z0-9|]", "", text.upper())
    if flat in NATIONAL_CLASSES:
        return NATIONAL_CLASSES[flat]
    if len(flat) == 2 and flat[0] in "MNO":
        flat = flat[0] + flat[1].translate(CLASS_DIGIT)
    match = VEHICLE_CLASS.fullmatch(flat)
    if not match:
        return None
    value = match.group(1)
    return value[:-1] + "e" if value.startswith("L") else value


# Field 5's first line names the vehicle's class in words: a Pkw is an M1, a Lkw an N class, a
# Kraftrad an L class. Matched letter for letter, never by closeness: PKW and LKW differ in one.
BODIES = {
    "PKW": ("M1",),
    "LKW": ("N1", "N2", "N3"),
    "KRAFTRAD": ("L1e", "L2e", "L3e", "L4e", "L5e", "L6e", "L7e"),
}


def body_classes(texts: list[str]) -> tuple[str, ...] | None:
    """The classes J can hold by what field 5's reads name: the one body word they show (None
    where none shows one, or two reads show two)."""
    named = {word for text in texts for word in BODIES if word in normalise(text).upper()}
    return BODIES[named.pop()] if len(named) == 1 else None


# a printer's dotted or slashed zero as the engines read it
ZERO_READS = "0" + ZERO_MISREADS + "3"


def energy_code(text: str) -> str | None:
    """Code 10: four digits, a known code. Every KBA energy code starts with two zeros (0001
    Benzin ... 0040): a read of four digits whose first two are a dotted or slashed zero's
    misreads (8, 9, 6 or 3) counts them as the zeros they must be; any other digit there ("4518"
    from a smudge) is no code. The two digits that tell the code apart are taken only as read."""
    digits = re.sub(r"[^0-9]", "", text.upper().translate(ZERO_LOOKALIKES))
    if len(digits) != 4 or any(digit not in ZERO_READS for digit in digits[:2]):
        return None
    code = "00" + digits[2:]
    return code if code in KNOWN_CODES else None


FUEL_NAMES = (
    "Elektro",
    "Benzin",
    "Diesel",
    "Hybr. Benzin/E",
    "Hybr. Diesel/E",
    "Wasserstoff",
    "Erdgas",
    "Flüssiggas",
)
# the makes the KBA lists most (D.1 is printed as the KBA writes the make)
MAKES = (
    "AUDI", "BMW", "BMW I", "BYD", "CITROEN", "CUPRA", "DACIA", "DS", "FIAT", "FORD", "HONDA", "HYUNDAI",
    "JAGUAR", "JEEP", "KIA", "LAND ROVER", "LEXUS", "MAZDA", "MERCEDES-BENZ", "MG ROEWE", "MINI",
    "MITSUBISHI", "NIO", "NISSAN", "OPEL", "PEUGEOT", "POLESTAR", "PORSCHE", "RENAULT", "SEAT", "SKODA",
    "SMART", "SUBARU", "SUZUKI", "TESLA", "TOYOTA", "VOLKSWAGEN", "VOLVO", "VW", "XPENG", "ZEEKR",
    "FCA ITALY", "GENESIS", "LYNK & CO", "ORA", "AIWAYS", "MAXUS", "STREETSCOOTER",
)  # fmt: skip
CLOSE = 0.75  # a read this close (difflib ratio) to one known name is that name


def _known(text: str, names: tuple[str, ...]) -> str | None:
    flat = " ".join(text.upper().replace("ı", "I").split())
    best = difflib.get_close_matches(flat, [n.upper() for n in names], n=2, cutoff=CLOSE)
    if not best:
        return None
    if (
        len(best) > 1
        and difflib.SequenceMatcher(None, flat, best[1]).ratio()
        >= difflib.SequenceMatcher(None, flat, best[0]).ratio()
    ):
        return None
    return next(n for n in names if n.upper() == best[0])


def fuel(text: str) -> str | None:
    """P.3 as the name it is closest to among the KBA's fuel names (a fuel no list names: None)."""
    words = " ".join(WORDS.findall(text)).strip(" .-")
    return _known(words, FUEL_NAMES) if len(words) >= 3 else None


def make(text: str) -> str | None:
    """D.1 as a known make it is close to; another make as read (name's rules)."""
    words = " ".join(WORDS.findall(text.replace("ı", "i"))).strip(" .-")
    return _known(words, MAKES) if len(words) >= 2 else None


def fuel_code(value: str) -> str | None:
    """The energy code P.3's text names (None where it names none we know)."""
    flat = normalise(value).upper()
    for word, code in FUELS.items():
        if flat.startswith(normalise(word).upper()):
            return code
    return None


def name(text: str) -> str | None:
    """A holder's name or a make: letters, with the marks names have."""
    text = text.replace("ı", "i")
    words = " ".join(WORDS.findall(text)).strip(" .-")
    return words[:60] if len(words) >= 2 else None


MODEL_TEXT = re.compile(r"[A-Za-zÄÖÜäöüß0-9][A-Za-zÄÖÜäöüß0-9 .+\-/]*")


def model(text: str) -> str | None:
    """D.3, the commercial name: letters and digits ("Fiat 500", "ID.3", "Model 3")."""
    # an underscore is the row's ruling under a character, a comma a full stop's smudge ("ID, _BUZZ")
    found = MODEL_TEXT.search(text.strip(" ‚'`|_,").replace("_", " ").replace(",", "."))
    value = " ".join(found.group(0).split()).strip(" .-") if found else ""
    return value[:60] if len(value) >= 2 else None


# On a plate, the letters after the district are letters: an engine's digit there is its look-alike
PLATE_LETTER = str.maketrans({"0": "O", "1": "I", "2": "Z", "5": "S", "8": "B", "6": "G"})
PLATE_PARTS = re.compile(r"^([A-ZÄÖÜ]{1,3})[\s\-]+([A-Z0-9]{1,2})[\s\-]*(\d{1,4})([EH]?)$")


def plate(text: str) -> str | None:
    """Field A as "XX-Z 123": the district, a hyphen, the letters, the number."""
    found = PLATE_PARTS.match(" ".join(text.upper().replace("—", "-").split()).strip(" -"))
    if not found:
        return None
    district, letters, number, suffix = found.groups()
    if not any(char.isalpha() for char in letters):
        # two digits where the letters should be: the number's first digits, taken for letters
        # where the district and its letters ran together ("B E 1148E" read "BE 1148E")
        return None
    letters = letters.translate(PLATE_LETTER)
    if not letters.isalpha():
        return None
    return f"{district}-{letters} {number}{suffix}"


def maker_key(text: str) -> str | None:
    digits = re.sub(r"[^0-9]", "", text.upper().replace("O", "0"))
    return digits if len(digits) == 4 else None

"""Decide each field's value from its reads, and say by which rule (decided_by).

No value is stored on one read's word: two independent reads agree, or the form itself
confirms it (the VIN and its printed check digit in field 3; code 10 and the fuel named in
P.3). A value no rule settles is left unread and the registration goes to review with the
reason; a wrong value stored is worse than one a person types in.
"""

from __future__ import annotations

import datetime
import difflib
import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from registrations import vin as vins

from . import glyphs, lines, validate
from .read import Read
from .thresholds import (
    ALTERNATIVE_MIN,
    CHOICE_MARGIN,
    CHOICE_OPTIONS,
    CODE_AGREEING,
    GLYPH_SURE,
    PLACE_SURE,
    RAPID_WEIGHT,
    TEXT_AGREEING,
    TEXT_DOUBT,
    TEXT_SURE,
    VIN_AGREEING,
    VIN_AGREEING_PARTIAL,
    VIN_CHOICE_PLACES,
)


@dataclass
class Decided:
    values: dict[str, Any] = field(default_factory=dict)  # field code -> value
    confidence: dict[str, float] = field(default_factory=dict)
    decided_by: dict[str, str] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)

    def take(self, code: str, value: Any, rule: str, confidence: float) -> None:
        self.values[code] = value
        self.decided_by[code] = rule
        self.confidence[code] = round(float(confidence), 3)

    def leave(self, code: str, reason: str) -> None:
        self.decided_by[code] = reason
        if code not in self.unread:
            self.unread.append(code)


Reader = Callable[[int], list[Read]]  # further reads of a field, by stage (read.more_reads)
OTHER_MODEL, OTHER_SCALE, SECOND = 1, 2, 3  # read.more_reads' stages


def _mean_sureness(found: Sequence[Read]) -> float:
    return float(np.mean([r.sureness for r in found])) if found else 0.0


# -------------------------------------------------------------------- field 3 and the VIN


def check_digit(found: Sequence[Read]) -> str | None:
    """Field 3 where its reads agree: at least two, and no read of another digit (an empty
    box: None). A misread check digit would turn a misread VIN into a confirmed one."""
    digits = [d for r in found if (d := validate.check_digit(r.text)) is not None]
    if len(digits) < 2 or len(set(digits)) > 1:
        return None
    return digits[0]


def _vins(found: Sequence[Read]) -> list[tuple[str, Read]]:
    return [(v, r) for r in found if len(v := validate.vin_text(r.text)) == vins.LENGTH]


def _aligned(base: str, read: Read) -> list[list[tuple[str, float]]]:
    """A read's characters (and its engine's alternatives) per place of `base`: a read of
    another length is aligned to it (a character an engine dropped or doubled leaves the rest
    of its read in use)."""
    text = validate.vin_text(read.text)
    weight = RAPID_WEIGHT if read.engine == "rapidocr" else 1.0
    raw = [c for c in read.text.upper() if validate.vin_text(c)]
    choices = read.choices if len(read.choices) == len(raw) == len(text) else ()
    per_char: list[list[tuple[str, float]]] = []
    for i, char in enumerate(text):
        alternatives = [(char, (choices[i][0][1] if choices else 1.0) * weight)]
        for alt, conf in choices[i][1:] if choices else ():
            mended = validate.vin_text(alt)
            if conf >= ALTERNATIVE_MIN and len(mended) == 1 and mended in vins.ALPHABET and mended != char:
                alternatives.append((mended, conf * weight))
        per_char.append(alternatives)
    places: list[list[tuple[str, float]]] = [[] for _ in range(len(base))]
    matcher = difflib.SequenceMatcher(None, base, text, autojunk=False)
    for tag, i0, i1, j0, j1 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i1 - i0 == j1 - j0):
            for i, j in zip(range(i0, i1), range(j0, j1), strict=True):
                places[i].extend(per_char[j])
    return places


def _support(found: Sequence[Read]) -> tuple[str, list[dict[str, float]], set[int]] | None:
    """The consensus of the reads place by place; per place every character the reads and their
    engines' alternatives give there, with its support; and the places still open: where the
    reads' first choices differ, or one of them is unsure of its character (below PLACE_SURE).
    A place every read gives alike and surely is settled. Support is summed over opinions
    (_opinion), each opinion counting a character once, at its surest: the English model at two
    scales repeating "S" for a printed 9 is one opinion against the German model's and the
    cells' 9. The consensus is the best supported character at each place."""
    full = [v for v, _ in _vins(found)]
    if not full:
        return None
    counted = "".join(Counter(chars).most_common(1)[0][0] for chars in zip(*full, strict=True))
    per_opinion: dict[str, list[dict[str, float]]] = {}
    firsts: list[set[str]] = [set() for _ in range(vins.LENGTH)]
    unsure: set[int] = set()
    for r in found:
        if not validate.vin_text(r.text):
            continue
        table = per_opinion.setdefault(_opinion(r), [{} for _ in range(vins.LENGTH)])
        for i, alternatives in enumerate(_aligned(counted, r)):
            if alternatives:
                firsts[i].add(alternatives[0][0])
                if alternatives[0][1] < PLACE_SURE * (RAPID_WEIGHT if r.engine == "rapidocr" else 1.0):
                    unsure.add(i)
            for char, conf in alternatives:
                table[i][char] = max(table[i].get(char, 0.0), max(conf, 0.01))
    support: list[dict[str, float]] = [{} for _ in range(vins.LENGTH)]
    for table in per_opinion.values():
        for i, place in enumerate(table):
            for char, conf in place.items():
                support[i][char] = support[i].get(char, 0.0) + conf
    for i, char in enumerate(counted):
        support[i].setdefault(char, 0.01)
    # the best supported character; where two are supported alike, the one more reads gave first
    base = "".join(
        max(place.items(), key=lambda item: (item[1], item[0] == counted[i]))[0]
        for i, place in enumerate(support)
    )
    opened = unsure | {i for i in range(vins.LENGTH) if len(firsts[i]) > 1}
    return base, support, opened


def _known_wmi(vin: str, found: Sequence[Read]) -> str:
    """Where the VIN's maker code is unknown and a character some read gave at one of its three
    places, one field 3 cannot tell from the chosen one (1/A/J, 2/B/K/S, ...), makes it a known
    one, the known one: field 3 agrees with both, the maker list decides."""
    if vin[:3] in vins.KNOWN_WMI:
        return vin
    supported = _support(found)
    if supported is None:
        return vin
    _, support, _ = supported
    options = []
    for i in range(3):
        for char in support[i]:
            if char != vin[i] and vins.same_check_value(char, vin[i]):
                candidate = vin[:i] + char + vin[i + 1 :]
                if candidate[:3] in vins.KNOWN_WMI:
                    options.append(candidate)
    return options[0] if len(options) == 1 else vin


def _glyph_vin(found: Sequence[Read], engine: str = glyphs.ENGINE) -> Read | None:
    """The full-length read of the VIN of one of the printers' own recognisers (glyphs.py,
    lines.py), with a choice per place, if any."""
    return next(
        (r for r in found if r.engine == engine and len(r.text) == vins.LENGTH == len(r.choices)), None
    )


def _others_consensus(found: Sequence[Read]) -> str | None:
    """The other engines' full-length reads place by place (the most frequent character)."""
    full = [v for v, r in _vins(found) if r.engine != glyphs.ENGINE]
    if not full:
        return None
    return "".join(Counter(chars).most_common(1)[0][0] for chars in zip(*full, strict=True))


def _blind_conflict(vin: str, found: Sequence[Read]) -> bool:
    """Field 3 cannot tell 1 from J, 2 from S, 5 from V (the same digit of their code): where
    the two recognisers, each sure, read two such characters at one place of the VIN, field 3
    confirms both VINs and neither may be stored on its word (a known maker code settles the
    first three places: _known_wmi)."""
    glyph = _glyph_vin(found)
    others = _others_consensus(found)
    if glyph is None or others is None:
        return False
    start = 3 if vin[:3] in vins.KNOWN_WMI else 0
    for i in range(start, vins.LENGTH):
        char, sure = glyph.choices[i][0]
        if (
            others[i] != char
            and vins.same_check_value(others[i], char)
            and sure >= GLYPH_SURE
            and not _network_sure(vin, found, i)
        ):
            return True
    return False


def _glyphs_confirmed(found: Sequence[Read], field3: str, engine: str = glyphs.ENGINE) -> str | None:
    """The VIN of one of the printers' own recognisers (`engine`: the cells, glyphs.py, or the
    line network, lines.py) where it agrees with field 3 and every place of it is backed:
    another engine's read (of any length, aligned to it) gives the same character there first,
    or the recogniser is sure of it (GLYPH_SURE) where no other read does, at VIN_CHOICE_PLACES
    places at most. Two engines and the check digit: the places the line reads miss are those
    their font confusions make (S/5, V/Y, 1/L), and a line read that dropped a character still
    backs the places it read (the consensus of the whole-length reads alone left a dot-matrix
    VIN the cells read right four places from one Tesseract read)."""
    own = _glyph_vin(found, engine)
    if own is None:
        return None
    vin = validate.vin_text(own.text)  # the network may give O, I or Q: read as 0 and 1
    if not (vins.plausible(vin)[0] and vins.kba_check_ok(vin, field3)):
        return None
    given: list[set[str]] = [set() for _ in range(vins.LENGTH)]
    for r in found:
        if r.engine == engine or not validate.vin_text(r.text):
            continue
        for i, place in enumerate(_aligned(vin, r)):
            if place:
                given[i].add(place[0][0])
    alone = 0
    for i, cell in enumerate(own.choices):
        char, sure = cell[0]
        if char in given[i]:
            continue
        if sure < GLYPH_SURE:
            return None
        alone += 1
    return vin if alone <= VIN_CHOICE_PLACES else None


def _network_sure(vin: str, found: Sequence[Read], i: int) -> bool:
    """The line network (lines.py) read the whole VIN and is sure (GLYPH_SURE) of its character
    at place `i`: where the cells are sure of another, one recogniser of the printers' fonts
    stands against the other, and the cells' word alone no longer holds the VIN back."""
    own = _glyph_vin(found, lines.ENGINE)
    if own is None:
        return False
    char, sure = own.choices[i][0]
    return validate.vin_text(char) == vin[i] and sure >= GLYPH_SURE


def _glyphs_disagree(vin: str, found: Sequence[Read]) -> str | None:
    """Where the cell recogniser is sure (GLYPH_SURE) of a character the VIN to be stored does
    not have, the two recognisers disagree: "field3_blind" where field 3 counts both alike,
    "glyphs_disagree" otherwise (field 3 told them apart only if it was read right, and a
    second misread place can make a wrong VIN agree with it: 1 in 11). A known maker code
    settles the first three places (_known_wmi)."""
    glyph = _glyph_vin(found)
    if glyph is None:
        return None
    start = 3 if vin[:3] in vins.KNOWN_WMI else 0
    for i in range(start, vins.LENGTH):
        char, sure = glyph.choices[i][0]
        if char != vin[i] and sure >= GLYPH_SURE and not _network_sure(vin, found, i):
            return "field3_blind" if vins.same_check_value(char, vin[i]) else "glyphs_disagree"
    return None


def _vetoed(vin: str, found: Sequence[Read]) -> str | None:
    """Why a VIN field 3 confirms is still not stored (the recognisers at odds), or None."""
    if _blind_conflict(vin, found):
        return "field3_blind"
    return _glyphs_disagree(vin, found)


def _store_vin(out: Decided, vin: str, rule: str, confidence: float, found: Sequence[Read]) -> None:
    vetoed = _vetoed(vin, found)
    if vetoed is not None:
        out.leave("E", vetoed)
        return
    out.take("E", vin, rule, confidence)


# the printers' own recognisers, whose whole VIN field 3 may confirm place by place, by rule
OWN_RECOGNISERS = {"field3_glyphs": glyphs.ENGINE, "field3_lines": lines.ENGINE}


def _by_field3(found: Sequence[Read], field3: str, *, choose: bool = True) -> tuple[str, str, float] | None:
    """The VIN field 3 confirms among all the reads, by the first rule that settles it (field3,
    field3_choice unless not `choose`, field3_glyphs, field3_lines): (VIN, rule, confidence),
    or None."""
    counts = Counter(v for v, _ in _vins(found) if vins.plausible(v)[0])
    settled = [(v, n) for v, n in counts.items() if n >= 2 and vins.kba_check_ok(v, field3)]
    if len(settled) == 1:
        return _known_wmi(settled[0][0], found), "field3", min(1.0, 0.9 + 0.02 * settled[0][1])
    chosen = _field3_choice(found, field3) if choose else None
    if chosen is not None:
        vin, changed = chosen
        return _known_wmi(vin, found), "field3_choice", 0.85 if changed <= 1 else 0.75
    for rule, engine in OWN_RECOGNISERS.items():
        confirmed = _glyphs_confirmed(found, field3, engine)
        if confirmed is not None:
            return _known_wmi(confirmed, found), rule, 0.8
    return None


def vin_decide(
    first: list[Read],
    more: Reader,
    field3: str | None,
    out: Decided,
    *,
    unsure_field3: bool = False,
    field3_seen: frozenset[str] = frozenset(),
    field3_only: Mapping[str, frozenset[str]] | None = None,
) -> list[Read]:
    """E from its reads: returns every read made (more are asked for only when needed)."""
    found = list(first)
    for stage in (1, 2, 3):
        counts = Counter(v for v, _ in _vins(found) if vins.plausible(v)[0])
        if field3 is not None:
            # the check digit agrees and two whole reads say so: a misread place would have
            # to change the sum by a multiple of 11 in both reads
            settled = [(v, n) for v, n in counts.items() if n >= 2 and vins.kba_check_ok(v, field3)]
            if len(settled) == 1:
                vin = _known_wmi(settled[0][0], found)
                _store_vin(out, vin, "field3", min(1.0, 0.9 + 0.02 * settled[0][1]), found)
                return found
        if stage == 1:
            found += more(OTHER_MODEL)
        elif stage == 2:
            found += more(OTHER_SCALE) + more(SECOND)
    if field3 is not None:
        decided = _by_field3(found, field3)
        if decided is not None:
            _store_vin(out, *decided, found)
            return found
        out.leave("E", "field3_disagrees" if counts else "unsure")
        return found
    # without field 3's check, a VIN stands on opinions (_opinion): the English model read a
    # 6 as G at both its scales, and two reads of one model are one opinion
    opinions = _vin_opinions(found)
    best = opinions.most_common(2)
    if unsure_field3:
        # field 3 is printed but its reads disagree (or one read alone gave it): of the digits
        # they showed, exactly one confirms a VIN by the rules above. A misread field 3 rarely
        # confirms any VIN there (given a wrong digit, 1 of 600 tuned documents' reads did)
        among = {
            decided[0]
            for digit in sorted(field3_seen)
            if (decided := _by_field3(found, digit, choose=False)) is not None
            and _vetoed(decided[0], found) is None
            # a digit only the cells (or the line network) read does not confirm their own VIN:
            # one recogniser on one blurred photo misreads both alike (a 9 as 3 and a 5 as S)
            and digit not in (field3_only or {}).get(OWN_RECOGNISERS.get(decided[1], ""), frozenset())
        }
        if len(among) == 1:
            out.take("E", among.pop(), "field3_among", 0.8)
            return found
        # field 3 is printed but its reads disagree: a VIN only where VIN_AGREEING_PARTIAL
        # reads agree on it, no other is read twice, and its check digit is among the digits
        # field 3's reads showed; otherwise the VIN could carry the misread the check is for
        if (
            best
            and best[0][1] >= VIN_AGREEING_PARTIAL
            and (len(best) == 1 or best[1][1] < 2)
            and vins.kba_check_digit(best[0][0]) in field3_seen
        ):
            _store_vin(out, best[0][0], "field3_partial", 0.8, found)
            return found
        out.leave("E", "field3_unread")
        return found
    if best and best[0][1] >= VIN_AGREEING and (len(best) == 1 or best[1][1] < best[0][1]):
        if _glyphs_disagree(best[0][0], found) is not None:
            # no field 3 to tell them apart: a sure cell read of another character is enough
            out.leave("E", "glyphs_disagree")
            return found
        out.take("E", best[0][0], "agreement", min(0.95, 0.6 + 0.08 * best[0][1]))
        return found
    # a tie settled by every read's vote: the cell recogniser has its vote like the others, no
    # veto (on the specimen's printer font, which it never saw, it was sure of a G for a 6)
    aligned = _aligned_agreement(opinions, found)
    if aligned is not None:
        out.take("E", aligned[0], "agreement_aligned", min(0.9, 0.6 + 0.08 * aligned[1]))
        return found
    out.leave("E", "unsure" if counts else "unread")
    return found


def _vin_opinions(found: Sequence[Read]) -> Counter[str]:
    """Per plausible whole VIN read, the number of opinions (_opinion) that gave it."""

    def plausible(text: str) -> str | None:
        vin = validate.vin_text(text)
        return vin if len(vin) == vins.LENGTH and vins.plausible(vin)[0] else None

    return Counter({vin: len(said) for vin, said in _given(found, plausible).items()})


def _aligned_agreement(counts: Counter[str], found: Sequence[Read]) -> tuple[str, int] | None:
    """Two whole VINs given by as many opinions (each by at least VIN_AGREEING): every opinion
    votes at the places where they differ, by the character its surest read that reaches them
    all gave there (a read of another length too: an engine that dropped a character elsewhere
    still read these places). The VIN more opinions give at all those places, with its votes;
    a tie of opinions settles nothing (the English model's G at two scales and the German
    model's G against the cells' and RapidOCR's 6 on a held-out PDF)."""
    top = counts.most_common()
    if len(top) < 2 or top[0][1] < VIN_AGREEING:
        return None
    tied = [vin for vin, n in top if n == top[0][1]]
    if len(tied) < 2:
        return None
    places = [i for i in range(vins.LENGTH) if len({vin[i] for vin in tied}) > 1]
    surest: dict[str, tuple[float, str]] = {}  # opinion -> (sureness, what it read there)
    for r in found:
        if not validate.vin_text(r.text):
            continue
        aligned = _aligned(tied[0], r)
        if any(not aligned[i] for i in places):
            continue  # the read does not reach every disputed place
        said = "".join(aligned[i][0][0] for i in places)
        if _sure(r) > surest.get(_opinion(r), (-1.0, ""))[0]:
            surest[_opinion(r)] = (_sure(r), said)
    votes: Counter[str] = Counter()
    for _, said in surest.values():
        matching = [vin for vin in tied if "".join(vin[i] for i in places) == said]
        if len(matching) == 1:
            votes[matching[0]] += 1
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[1][1] >= ranked[0][1]):
        return None
    return ranked[0]


def _field3_choice(found: Sequence[Read], field3: str) -> tuple[str, int] | None:
    """The likeliest plausible VIN the reads support that agrees with field 3: at the places
    still open (the reads disagree there, or one is unsure) the characters the reads gave
    (first choices and their engines' alternatives, weighed by their confidence), at most
    VIN_CHOICE_PLACES places away from the consensus, and clearly likelier (CHOICE_MARGIN) than
    the next VIN that agrees too. Never a character no engine read, never a place every read
    gave alike and surely: with field 3 misread, a sure place's weak alternative would make
    almost any digit come true (given a wrong field 3, 145 of 600 tuned documents' reads
    chose a VIN that way).
    The places are those of whole-length reads of two opinions at least: the cells are cut
    for 17 characters whatever the crop holds, and where every line read found 16 (a phone
    photo's crop that lost the first character) the cells' read is no frame to choose in.
    One of them is a line read (Tesseract's, RapidOCR's): the cells and the line network alone
    chose a VIN eight places off on a poor photo (tuned families, seeds 120000+), where every
    line read was a few characters short.
    Returns the VIN and how many places differ from the consensus."""
    whole = {_opinion(r) for _, r in _vins(found)}
    if len(whole) < 2 or not whole - set(OWN_RECOGNISERS.values()):
        return None
    supported = _support(found)
    if supported is None:
        return None
    base, support, opened = supported
    options: list[tuple[float, int, str]] = []
    for i in sorted(opened):
        best = support[i][base[i]]
        options += [(math.log(best / w), i, c) for c, w in support[i].items() if c != base[i]]
    options = sorted(options)[:CHOICE_OPTIONS]
    scored: list[tuple[float, str, int]] = []
    for size in range(VIN_CHOICE_PLACES + 1):
        for combo in itertools.combinations(options, size):
            if len({i for _, i, _ in combo}) != size:
                continue
            chars = list(base)
            for _, i, char in combo:
                chars[i] = char
            candidate = "".join(chars)
            if vins.plausible(candidate)[0] and vins.kba_check_ok(candidate, field3):
                scored.append((sum(cost for cost, _, _ in combo), candidate, size))
    if not scored:
        return None
    scored.sort()
    if len(scored) > 1 and scored[1][0] - scored[0][0] < CHOICE_MARGIN:
        return None
    return scored[0][1], scored[0][2]


# -------------------------------------------------------------------- codes and dates


def agreed(
    code: str,
    first: list[Read],
    more: Reader,
    parse: Callable[[str], Any],
    out: Decided,
    *,
    confirm: Callable[[Any], bool] | None = None,
    confirm_last: Callable[[Any], bool] | None = None,
    as_printed: Callable[[str], Any] | None = None,
) -> Any:
    """A value the form confirms ("confirmed": code 10 by P.3), or one two independent opinions
    (_opinion: the other language model, the second engine, the cell recogniser; never the same
    model at another scale, which repeats its misreads: a 5 read as 6 in a date at both scales)
    give: "agreement" where no read gives another, "majority" where more opinions give it than
    any other value. Where that settles nothing, `confirm_last` (asked only then: it may cost a
    read of another field) names the values the form allows: one read's value it allows is
    stored ("confirmed_by_5": J by the body field 5 names), the reads' other values
    notwithstanding. `as_printed` (a date parsed without mending a dotted zero's misreads): a
    value no read gives as printed is decided on every read, and left unsure where one of them
    gives another value as printed."""
    found = list(first)

    def printed(value: Any) -> bool:
        return as_printed is None or any(as_printed(r.text) == value for r in found)

    def printed_other(value: Any) -> bool:
        return as_printed is not None and any(
            (other := as_printed(r.text)) is not None and other != value for r in found
        )

    values = [v for r in found if (v := parse(r.text)) is not None]
    if values and confirm is not None and confirm(values[0]):
        out.take(code, values[0], "confirmed", 0.9)
        return values[0]
    found += more(OTHER_MODEL)
    given = _given(found, parse)
    if len(given) == 1:
        value, said = next(iter(given.items()))
        if len(said) >= CODE_AGREEING and printed(value):
            out.take(code, value, "agreement", 1.0)
            return value
    found += more(OTHER_SCALE) + more(SECOND)
    given = _given(found, parse)
    ranked = sorted(given.items(), key=lambda item: len(item[1]), reverse=True)
    if ranked:
        value, said = ranked[0]
        runner_up = len(ranked[1][1]) if len(ranked) > 1 else 0
        if (
            len(said) >= CODE_AGREEING
            and len(said) > runner_up
            and (printed(value) or not printed_other(value))
        ):
            rule = "agreement" if len(ranked) == 1 else "majority"
            opinions = {_opinion(r) for r in found if r.text}
            out.take(code, value, rule, min(1.0, 0.5 + 0.5 * len(said) / max(1, len(opinions))))
            return value
    if given and confirm_last is not None:
        allowed = {v for v in given if confirm_last(v)}
        if len(allowed) == 1:
            value = allowed.pop()
            out.take(code, value, "confirmed_by_5", 0.85)
            return value
    if not given:
        out.leave(code, "unread" if not any(r.text for r in found) else "invalid")
    else:
        out.leave(code, "unsure")
    return None


def _given(found: Sequence[Read], parse: Callable[[str], Any]) -> dict[Any, set[str]]:
    """Per value the reads give, the opinions (_opinion) that gave it. The line network's read
    is an opinion only where it is sure of every character (GLYPH_SURE): unsure of a 3 it read
    as 8, it and RapidOCR gave a poor photo's 28.03.2016 as 28.08.2016."""
    given: dict[Any, set[str]] = {}
    for r in found:
        if r.engine == lines.ENGINE and r.sureness < GLYPH_SURE:
            continue
        value = parse(r.text)
        if value is not None:
            given.setdefault(value, set()).add(_opinion(r))
    return given


def _folded(value: Any) -> str:
    """A value as compared between reads: without case, accents, spaces, full stops or hyphens
    (the English model reads "Jürgen" as "Jurgen", one engine keeps a hyphen another drops)."""
    text = unicodedata.normalize("NFKD", str(value)).encode("ascii", "ignore").decode().upper()
    return re.sub(r"[\s.\-]", "", text)


def _opinion(r: Read) -> str:
    """The model behind a read: Tesseract's two language models and the second engine are three
    opinions; the same model at another scale is the same opinion (it repeats its misreads)."""
    return r.engine.split("@", 1)[0]


def _sure(r: Read) -> float:
    return 1.0 if r.engine == "rapidocr" else r.sureness  # RapidOCR gives no per-character figure


@dataclass
class _Said:
    """What the reads of a free text or a name say: per value (as compared: _folded) the models
    that gave it, the spelling it is stored in and the surest read of it."""

    opinions: dict[str, set[str]] = field(default_factory=dict)
    # the first spelling given, the German model's where it gave one (_said asks it first: it
    # reads umlauts, the English model and RapidOCR drop them)
    spellings: dict[str, Any] = field(default_factory=dict)
    sureness: dict[str, float] = field(default_factory=dict)
    literal: set[str] = field(default_factory=set)  # values some read printed letter for letter

    def add(self, r: Read, value: Any) -> None:
        key = _folded(value)
        self.opinions.setdefault(key, set()).add(_opinion(r))
        self.spellings.setdefault(key, value)
        self.sureness[key] = max(self.sureness.get(key, 0.0), _sure(r))
        if key and key in _folded(r.text):
            self.literal.add(key)

    def only(self) -> str | None:
        """The one value every read that gave one gave (None where two reads differ)."""
        return next(iter(self.opinions)) if len(self.opinions) == 1 else None


def _said(found: Sequence[Read], parse: Callable[[str], Any]) -> _Said:
    said = _Said()
    # the German model first: its spelling (umlauts) is the one kept where reads differ in accents
    for r in sorted(found, key=lambda r: not r.engine.startswith("tesseract-deu")):
        value = parse(r.text)
        if value is not None:
            said.add(r, value)
    return said


def _left(code: str, found: Sequence[Read], said: _Said, out: Decided, invalid: str) -> None:
    if not any(r.text for r in found):
        out.leave(code, "unread")
    elif not said.opinions:
        out.leave(code, invalid)
    else:
        out.leave(code, "unsure")


def known_name(code: str, first: list[Read], more: Reader, parse: Callable[[str], Any], out: Decided) -> Any:
    """P.3 and D.1: a known name (KBA's fuel names, the makes) that two independent opinions
    (_opinion) come close to, no read to another, one of them printing it letter for letter.
    The closeness mends a misread letter ("MERGEDES BENZ"); on its own it made names of
    fragments: one read's "KA" became KIA for a SKODA, "Stat" and "sıar" SEAT for a FIAT."""
    found = list(first) + more(OTHER_MODEL) + more(SECOND)
    said = _said(found, parse)
    key = said.only()
    if key is not None and len(said.opinions[key]) >= TEXT_AGREEING and key in said.literal:
        value = said.spellings[key]
        out.take(code, value, "known_name", 0.9)
        return value
    _left(code, found, said, out, "unknown")
    return None


def text_field(code: str, first: list[Read], more: Reader, parse: Callable[[str], Any], out: Decided) -> Any:
    """A free text (D.3, C1.1, C1.2): what TEXT_AGREEING independent opinions (_opinion) give
    alike, no read giving another, one of them sure (TEXT_SURE), no read doubting a 1 against I
    (TEXT_DOUBT); anything else is left for a person. One model's read, however sure, is no
    ground: Tesseract's German model read "4MATIC" as "AMATIC" and "GTS" as "GIS" at both
    scales with every character sure; nor is a
    majority: the German and English models read AMATIC where RapidOCR read 4MATIC, the German
    model and RapidOCR "Enyag" where the English one read "Enyaq". Never the ground of another
    decision."""
    found = list(first) + more(OTHER_MODEL) + more(SECOND)
    said = _said(found, parse)
    key = said.only()
    if key is not None and len(said.opinions[key]) >= TEXT_AGREEING and said.sureness[key] >= TEXT_SURE:
        if _one_or_i(found):
            out.leave(code, "unsure")
            return None
        value = said.spellings[key]
        out.take(code, value, "agreement", said.sureness[key])
        return value
    _left(code, found, said, out, "invalid")
    return None


def _one_or_i(found: Sequence[Read]) -> bool:
    """Whether a read's 1 has I or l as an alternative at TEXT_DOUBT or more: every engine reads
    the printer's serifed I of BMW's "I3" as 1 (their models prefer a digit beside a digit), and
    only Tesseract's own second choice tells that the 1 is not sure."""
    for r in found:
        for alternatives in r.choices:
            if alternatives[0][0] != "1":
                continue
            for other, confidence in alternatives[1:]:
                if confidence >= TEXT_DOUBT and other in ("I", "l"):
                    return True
    return False


def dates_in_order(out: Decided, today: datetime.date) -> None:
    """B <= I <= today: where the two dates disagree, neither is stored as read."""
    first, this = out.values.get("B"), out.values.get("I")
    if first and this and first > this:
        for code in ("B", "I"):
            out.values.pop(code, None)
            out.confidence.pop(code, None)
            out.leave(code, "dates_out_of_order")

"""Every rule the reader can write into `decided_by` (registrations.reader: Decided.take and
leave, the VIN's _store_vin, a `rule` chosen by a condition; quota's WMI check) has a German and
an English name in the partner area's review texts (web/src/partner/texts/review.ts), so the
application drawer and the corrections report never show a bare code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from quota.services import WMI_MISMATCH_RULE

ROOT = Path(__file__).resolve().parents[2]
READER = ROOT / "platform" / "registrations" / "reader"
TEXTS = ROOT / "web" / "src" / "partner" / "texts" / "review.ts"
# the argument that carries the rule: take(code, value, rule, ...), leave(code, reason),
# _store_vin(out, vin, rule, ...), _left(code, found, said, out, invalid_reason)
RULE_ARGUMENT = {"take": 2, "leave": 1, "_store_vin": 2, "_left": 4}
RULE = re.compile(r"[a-z][a-z0-9_]*")


def _strings(node: ast.AST) -> set[str]:
    return {
        sub.value for sub in ast.walk(node) if isinstance(sub, ast.Constant) and isinstance(sub.value, str)
    }


def reader_rules() -> set[str]:
    rules: set[str] = set()
    for path in sorted(READER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = (
                    node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                )
                index = RULE_ARGUMENT.get(name)
                if index is not None and len(node.args) > index:
                    rules |= _strings(node.args[index])
            elif isinstance(node, ast.Assign) and any(
                # decide.OWN_RECOGNISERS: the rules of the printers' own recognisers, by name
                isinstance(target, ast.Name) and target.id in ("rule", "OWN_RECOGNISERS")
                for target in node.targets
            ):
                rules |= _strings(node.value)
            elif isinstance(node, ast.Return) and node.value is not None and path.name == "decide.py":
                # a rule handed back to the caller that stores it: ("VIN", "field3_choice", 0.85),
                # or a veto's reason ("field3_blind")
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                rules |= {
                    value.value
                    for value in values
                    if isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                    and RULE.fullmatch(value.value)
                }
    return rules


def text_rules(language: str) -> set[str]:
    source = TEXTS.read_text()
    start = source.index(f"const {language}")
    block = source[start:]
    rules = block[block.index("rules: {") :]
    rules = rules[: rules.index("}")]
    return set(re.findall(r"^\s*([a-z0-9_]+):", rules, flags=re.MULTILINE))


def test_the_walk_finds_the_reader_rules() -> None:
    found = reader_rules()
    # a rule of each kind the walk must see: a constant, a conditional one, the VIN's own
    assert {
        "agreement",
        "majority",
        "field3_choice",
        "field3_glyphs",
        "field3_lines",
        "not_found",
        "unknown",
    } <= found


def test_every_rule_has_a_german_and_an_english_name() -> None:
    rules = reader_rules() | {WMI_MISMATCH_RULE}

    assert rules - text_rules("de") == set()
    assert rules - text_rules("en") == set()

"""The lock files: every dependency pinned with hashes, in line with pyproject.toml's ranges,
and the runtime lock without development tools."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^ ;\\]+)")


def pins(name: str) -> dict[str, str]:
    text = (ROOT / name).read_text()
    # every pinned requirement (a block up to the next one) carries at least one hash
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        if PIN.match(block):
            assert "--hash=sha256:" in block, block[:80]
    return {
        canonicalize_name(match.group(1)): match.group(2)
        for line in text.splitlines()
        if (match := PIN.match(line))
    }


def test_locks_pin_every_declared_dependency_inside_its_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    everything = project["dependencies"] + project["optional-dependencies"]["dev"]

    for lock, declared in ((runtime, project["dependencies"]), (dev, everything)):
        for entry in declared:
            requirement = Requirement(entry)
            version = lock[canonicalize_name(requirement.name)]
            assert requirement.specifier.contains(version), (requirement, version)
    assert "pytest" not in runtime and "playwright" not in runtime
    # the runtime set is the development set's subset, at the same versions
    assert all(dev[name] == version for name, version in runtime.items())


def test_every_dependency_has_an_upper_bound_and_python_is_not_capped() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    assert project["requires-python"] == ">=3.11"
    for entry in project["dependencies"] + project["optional-dependencies"]["dev"]:
        assert any(spec.operator == "<" for spec in Requirement(entry).specifier), entry

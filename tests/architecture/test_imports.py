"""Issue 50's figures held: no two apps import each other (import-linter's layers draw the order;
this also sees the apps beside one another on a layer), and no import of a project module hides
inside a function to dodge a cycle, except in an AppConfig.ready(), where Django wants receivers
and hooks connected once the models are loaded. Counted by tools/house_counts.py."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import house_counts  # noqa: E402


def _imports() -> list[house_counts.Import]:
    return house_counts.project_imports(house_counts.project_apps())


def test_no_two_apps_import_each_other() -> None:
    arrows = {(i.source_app, i.target_app) for i in _imports() if i.crosses}

    assert sorted((a, b) for a, b in arrows if (b, a) in arrows and a < b) == []


def test_no_project_import_inside_a_function_but_in_app_ready() -> None:
    hidden = [
        f"{i.path.relative_to(ROOT)}:{i.line} {i.target}"
        for i in _imports()
        if i.in_function and not i.in_ready
    ]

    assert hidden == []


def test_the_count_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    # the walk the two tests above rely on, on a module of its own
    source = (
        "from accounts import models\n"
        "def f():\n    from quota import services\n"
        "class C:\n    def ready(self):\n        from privacy import signals\n"
    )
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in functions] == ["f", "ready"]
    app = tmp_path / "probeapp"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "apps.py").write_text(source)
    (app / "other.py").write_text(source)
    found = house_counts.project_imports({"probeapp": app, "accounts": app, "quota": app, "privacy": app})
    seen = {(i.path.name, i.target, i.in_function, i.in_ready) for i in found}
    assert ("other.py", "quota", True, False) in seen
    assert ("apps.py", "privacy", True, True) in seen
    assert ("other.py", "privacy", True, False) in seen  # ready() counts only in apps.py
    assert ("apps.py", "accounts", False, False) in seen

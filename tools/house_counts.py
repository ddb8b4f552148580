"""The figures of issue 50 ("the house"), counted the same way each time they are asked for.

    .venv/bin/python tools/house_counts.py            # the counts
    .venv/bin/python tools/house_counts.py --list     # and what they count, file by file
    .venv/bin/python tools/house_counts.py --no-api   # without loading Django (no route count)

What is counted:
- an *app* is a package under platform/ or a top-level package of the project (tenants,
  themes, ...); migrations and tests are left out;
- *mutually importing app pairs*: two apps each of which imports the other somewhere (at module
  top, inside a function or under `if TYPE_CHECKING`: each is an arrow of the design; the count
  without the type-only ones follows in brackets);
- *function-level imports*: `import`/`from ... import` of a project module inside a function
  body, in total, those that cross into another app, and those elsewhere than in an
  AppConfig.ready() (where Django wants signal receivers and hooks connected: the models are
  loaded then);
- *untyped routes*: django-ninja operations whose success answer (2xx other than 204) is
  declared as `dict`, `dict[...]`, `list[dict[...]]`, `Any` or not at all (a file download, an
  HttpResponse with a body, is counted apart: it has no JSON shape to declare);
- *app/ imports*: import statements in web/src/{flow,portal,partner} (the features) and
  web/src/shared that name a module of web/src/app.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_APPS = {"tests", "tools", "deploy", "docs", "web", "storybook", "node_modules", "var", "build"}
WEB_FEATURES = ("flow", "portal", "partner")


def project_apps() -> dict[str, Path]:
    apps = {p.name: p for p in sorted((ROOT / "platform").iterdir()) if (p / "__init__.py").is_file()}
    for p in sorted(ROOT.iterdir()):
        if (
            p.is_dir()
            and p.name not in NOT_APPS
            and not p.name.startswith(".")
            and (p / "__init__.py").is_file()
        ):
            apps[p.name] = p
    return apps


def python_files(app_dir: Path) -> Iterator[Path]:
    for path in sorted(app_dir.rglob("*.py")):
        if "migrations" not in path.relative_to(app_dir).parts:
            yield path


def module_name(app_dir: Path, path: Path) -> str:
    parts = list(path.relative_to(app_dir.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@dataclass(frozen=True)
class Import:
    path: Path
    line: int
    source_app: str
    target: str
    in_function: bool
    type_only: bool = False
    in_ready: bool = False  # inside an AppConfig.ready(): Django's place to connect what needs the models

    @property
    def target_app(self) -> str:
        return self.target.split(".")[0]

    @property
    def crosses(self) -> bool:
        return self.target_app != self.source_app


def imported_modules(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not node.level:
        return [node.module or ""]
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return [".".join([*base, node.module] if node.module else base)]


def is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def project_imports(apps: dict[str, Path]) -> list[Import]:
    found: list[Import] = []
    for app, app_dir in apps.items():
        for path in python_files(app_dir):
            module = module_name(app_dir, path)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

            def visit(
                node: ast.AST,
                in_function: bool,
                type_only: bool,
                in_ready: bool = False,
                *,
                app: str = app,
                path: Path = path,
                module: str = module,
            ) -> None:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.Import | ast.ImportFrom):
                        for target in imported_modules(child, module, path.name == "__init__.py"):
                            if target.split(".")[0] in apps:
                                found.append(
                                    Import(path, child.lineno, app, target, in_function, type_only, in_ready)
                                )
                    visit(
                        child,
                        in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef),
                        type_only or is_type_checking_block(child),
                        in_ready
                        or (
                            path.name == "apps.py"
                            and isinstance(child, ast.FunctionDef)
                            and child.name == "ready"
                        ),
                    )

            visit(tree, False, False)
    return found


@dataclass
class Routes:
    total: int = 0
    untyped: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def api_routes() -> Routes:
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Settings only build a connection string; nothing connects while the API is assembled.
    os.environ.setdefault("DATABASE_URL", "postgresql://127.0.0.1:5432/house_counts")
    import django

    django.setup()
    from config.api import api  # the one NinjaAPI, after setup

    routes = Routes()
    for prefix, router in api._routers:
        for path, path_view in router.path_operations.items():
            for operation in path_view.operations:
                routes.total += 1
                where = f"{'/'.join(operation.methods)} /api/{(prefix + path).lstrip('/').replace('//', '/')}"
                where += f"  ({operation.view_func.__module__}.{operation.view_func.__name__})"
                for status, model in (operation.response_models or {}).items():
                    if not 200 <= status < 300 or status == 204:
                        continue
                    if model is None:
                        routes.files.append(where)
                        break
                    annotation = (
                        model.model_fields["response"].annotation if hasattr(model, "model_fields") else model
                    )
                    shown = repr(annotation)
                    if (
                        annotation is dict
                        or shown.startswith(("dict[", "list[dict", "typing.Any", "typing.Dict"))
                        or "NOT_SET" in shown
                    ):
                        routes.untyped.append(where)
                        break
    return routes


WEB_APP_IMPORT = re.compile(r"""(?:from|import)\s*\(?\s*["']([^"']+)["']""")


def web_app_imports() -> dict[str, list[str]]:
    src = ROOT / "web" / "src"
    found: dict[str, list[str]] = {}
    for area in (*WEB_FEATURES, "shared"):
        for path in sorted((src / area).rglob("*.ts*")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for spec in WEB_APP_IMPORT.findall(line):
                    target = (path.parent / spec).resolve() if spec.startswith(".") else None
                    if spec.startswith("@/app/") or (target is not None and (src / "app") in target.parents):
                        found.setdefault(area, []).append(f"{path.relative_to(ROOT)}:{number} {spec}")
    return found


def is_test(entry: str) -> bool:
    return bool(re.search(r"\.(test|stories)\.tsx?:|/test-[^/]*:|/test/", entry))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--list", action="store_true", help="list what is counted")
    parser.add_argument("--no-api", action="store_true", help="skip the route count (no Django)")
    args = parser.parse_args()

    apps = project_apps()
    imports = project_imports(apps)
    arrows = {(i.source_app, i.target_app) for i in imports if i.crosses}
    mutual = sorted({tuple(sorted(a)) for a in arrows if (a[1], a[0]) in arrows})
    runtime = {(i.source_app, i.target_app) for i in imports if i.crosses and not i.type_only}
    mutual_at_runtime = {tuple(sorted(a)) for a in runtime if (a[1], a[0]) in runtime}
    in_functions = [i for i in imports if i.in_function]
    crossing = [i for i in in_functions if i.crosses]

    print(f"apps: {len(apps)} ({', '.join(apps)})")
    print(
        f"mutually importing app pairs: {len(mutual)} "
        f"({len(mutual_at_runtime)} without the imports under `if TYPE_CHECKING`)"
    )
    if args.list:
        for a, b in mutual:
            print(f"    {a} <-> {b}" + ("" if (a, b) in mutual_at_runtime else "  (type-only on one side)"))
    in_ready = [i for i in in_functions if i.in_ready]
    print(
        f"function-level imports of project modules: {len(in_functions)}, across apps: {len(crossing)}, "
        f"elsewhere than an AppConfig.ready(): {len(in_functions) - len(in_ready)}"
    )
    if args.list:
        for i in in_functions:
            where = "  (AppConfig.ready)" if i.in_ready else ""
            print(f"    {i.path.relative_to(ROOT)}:{i.line} {i.target}{where}")

    if not args.no_api:
        routes = api_routes()
        print(
            f"API operations: {routes.total}, untyped (dict/Any answer): {len(routes.untyped)}, file downloads: {len(routes.files)}"
        )
        if args.list:
            for entry in routes.untyped:
                print(f"    {entry}")

    web = web_app_imports()
    features = [e for area in WEB_FEATURES for e in web.get(area, [])]
    shared = web.get("shared", [])
    print(
        f"web: app/ imports from features: {len(features)} "
        f"({sum(1 for e in features if not is_test(e))} outside tests and stories; "
        + ", ".join(f"{area} {len(web.get(area, []))}" for area in WEB_FEATURES)
        + f"), from shared: {len(shared)}"
    )
    if args.list:
        for entry in features + shared:
            print(f"    {entry}")


if __name__ == "__main__":
    main()

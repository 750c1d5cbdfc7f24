"""The architecture as the imports draw it: the engine is the ground floor, every
import points down, and no two modules import each other (even through others,
even inside a function)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("table_controller", "vision", "firmware_bridge", "web_dashboard")
# Floors, lowest first; a module may import its own floor's package and those below.
FLOORS = {
    "table_controller.engine": 0,
    "table_controller.store": 1, "vision": 1, "firmware_bridge": 1,
    "web_dashboard": 2,
    "table_controller": 3,
    "table_controller.cli": 4, "table_controller.__main__": 4,  # `python -m table_controller`
}
# What the engine may not import even from the standard library: it does no I/O.
IO_MODULES = {"os", "io", "sys", "pathlib", "socket", "sqlite3", "subprocess", "threading",
              "time", "logging", "shutil", "tempfile", "urllib", "http", "asyncio", "select"}


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> list[str]:
    """Every module name ``name`` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            subs = [f"{base}.{alias.name}" for alias in node.names]
            # `from pkg import module` imports that module; `from pkg import name`, pkg.
            names += [s for s in subs if s in MODULES] or [base]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)):
            names.append(node.args[0].value)
    return names


def _own(target: str) -> str | None:
    """The project module a name resolves to (a name in a module is that module)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def _floor(module: str) -> str:
    best = ""
    for room in FLOORS:
        if (module == room or module.startswith(room + ".")) and len(room) > len(best):
            best = room
    return best


GRAPH = {m: {t for t in map(_own, _imports(m, p)) if t and t != m} for m, p in MODULES.items()}


def test_the_engine_imports_only_itself_and_the_standard_library_and_does_no_io():
    engine = [m for m in MODULES if _floor(m) == "table_controller.engine"]
    assert len(engine) >= 9
    wrong = []
    for module in engine:
        for name in _imports(module, MODULES[module]):
            top = name.split(".")[0]
            if name.startswith("table_controller.engine") or top == "__future__":
                continue
            if top not in sys.stdlib_module_names or top in IO_MODULES:
                wrong.append(f"{module} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_every_import_points_down_or_stays_on_its_floor():
    upward = [f"{m} (floor {FLOORS[_floor(m)]}) imports {t} (floor {FLOORS[_floor(t)]})"
              for m, targets in GRAPH.items() for t in targets
              if FLOORS[_floor(t)] > FLOORS[_floor(m)]]
    assert not upward, "\n".join(upward)


def test_no_two_rooms_on_one_floor_import_each_other():
    rooms = {(_floor(m), _floor(t)) for m, ts in GRAPH.items() for t in ts}
    rooms = {(a, b) for a, b in rooms if a != b}
    both = sorted(f"{a} <-> {b}" for a, b in rooms if (b, a) in rooms and a < b)
    assert not both, both


def test_no_circle_of_modules():
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (circle := visit(target)):
                return circle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(GRAPH):
        if module not in state and (circle := visit(module)):
            pytest.fail(" -> ".join(circle))


def test_the_checks_see_an_upward_import(tmp_path):
    # The walk above must notice a lazy import inside a function, the form most
    # likely to slip back in.
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from web_dashboard.app import create_app\n")
    assert _own(_imports("table_controller.engine.m", source)[0]) == "web_dashboard.app"


def test_the_public_names_work_through_the_package():
    from table_controller.engine import Card, HandStart, Play, Referee, Trump

    referee = Referee(players=2)
    referee.feed(HandStart(players=2, dealer=1))
    referee.feed(Trump(Card.parse("5s")))
    decision = referee.feed(Play(0, Card.parse("9b")))
    assert decision.accepted and decision.turn == 1

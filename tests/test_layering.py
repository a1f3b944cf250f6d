"""The house rules of the import graph (docs/developers.rst, "Layers").

Every import of skprivcov by skprivcov, at module level or inside a function,
is an edge between two rooms: a subpackage (``covariance``, ``mechanisms``,
``_data``, …) or a module of the root package (``base``). The rooms stand on
the floors of :data:`FLOORS`; an edge may go down or stay on its floor, never
up, and the rooms' graph has no cycle. A private module of a subpackage
(``skprivcov.covariance._base``, ``skprivcov._data._statistics``) is imported
only from inside that subpackage, and no private name crosses rooms: another
room imports from the subpackage's face (``skprivcov._data``,
``skprivcov.mechanisms.noise``). The root holds no private module: the
shared kernels live in rooms named for their job (``_data``, ``_fit``,
``_models``, ``_cli``).
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "skprivcov"

# Bottom to top. A new room must be placed here (the test says so).
FLOORS = (
    # The training rows (data engines, exact statistics, the public checks of
    # containers) and the accounting: no estimator, no mechanism.
    # The private scikit-learn names, under public ones (_compat).
    ("__version__", "_compat", "_data", "privacy"),
    # Mechanisms: pure functions on statistics; the noise source and its
    # generators (mechanisms.noise).
    ("mechanisms",),
    # The parameter rules and the shared pieces of a fit.
    ("_fit",),
    # The fit template and its protocol.
    ("base",),
    # Estimators of one release, and what needs only public values.
    ("covariance", "datasets", "metrics", "preprocessing"),
    # The fit machinery of the models built on class blocks and fold releases.
    ("_models", "decomposition"),
    # Models fit from releases or class blocks.
    ("discriminant_analysis", "linear_model", "naive_bayes"),
    # Searches, folds, private selection around the models.
    ("model_selection",),
    # Tools over everything: the registry and audits, the command line.
    ("utils", "_cli", "__main__", "__init__"),
)
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def _room(module):
    """The room of a dotted module name inside skprivcov."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """(imported module, imported names, line) for every skprivcov import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "skprivcov":
                for alias in node.names:
                    yield f"skprivcov.{alias.name}", [], node.lineno
            elif node.module.startswith("skprivcov."):
                names = [alias.name for alias in node.names]
                yield node.module, names, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("skprivcov."):
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            raise AssertionError(f"{path}:{node.lineno}: use absolute imports")


def _edges():
    """Every (source file, line, source room, imported module, names)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        for target, names, line in _imports(path):
            yield path, line, _room(module), target, names


EDGES = list(_edges())


def test_every_room_stands_on_a_floor():
    rooms = {_room(_module_name(path)) for path in PACKAGE.rglob("*.py")}
    missing = sorted(rooms - FLOOR.keys())
    assert not missing, f"place these rooms in FLOORS: {missing}"


def test_no_import_goes_up_a_floor():
    upward = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {source} → {_room(target)}"
        for path, line, source, target, _ in EDGES
        if FLOOR[_room(target)] > FLOOR[source]
    ]
    assert upward == []


def test_the_rooms_have_no_cycle():
    graph = {}
    for _, _, source, target, _ in EDGES:
        if _room(target) != source:
            graph.setdefault(source, set()).add(_room(target))
    state = {}

    def visit(room, trail):
        if state.get(room) == "done":
            return
        assert state.get(room) != "open", f"cycle: {' → '.join([*trail, room])}"
        state[room] = "open"
        for other in sorted(graph.get(room, ())):
            visit(other, [*trail, room])
        state[room] = "done"

    for room in sorted(graph):
        visit(room, [])


def test_no_private_import_across_packages():
    crossing = []
    for path, line, source, target, names in EDGES:
        parts = target.split(".")
        subpackage = len(parts) >= 2 and (PACKAGE / parts[1]).is_dir()
        if not subpackage or parts[1] == source:
            continue
        private_module = any(part.startswith("_") for part in parts[2:])
        private_names = [name for name in names if name.startswith("_")]
        if private_module or private_names:
            crossing.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {target}")
    assert crossing == []


def _private_sklearn_imports(path):
    """(line, what) for each private scikit-learn name ``path`` imports: a
    module or a name that starts with an underscore."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "sklearn":
                continue
            if any(part.startswith("_") for part in parts):
                yield node.lineno, node.module
            for alias in node.names:
                if alias.name.startswith("_"):
                    yield node.lineno, f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "sklearn" and any(p.startswith("_") for p in parts):
                    yield node.lineno, alias.name


def test_private_sklearn_names_come_through_the_compat_room():
    """scikit-learn's private names are imported in ``skprivcov._compat``
    only: a move in a new release is one edit there."""
    elsewhere = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {what}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parent.name != "_compat"
        for line, what in _private_sklearn_imports(path)
    ]
    assert elsewhere == []
    # The check sees what it is there for.
    assert list(_private_sklearn_imports(PACKAGE / "_compat" / "__init__.py"))


def test_the_root_holds_only_public_modules_and_subpackages():
    """The root's private modules live in rooms named for their job
    (``_data``, ``_fit``, ``_models``, ``_cli``): the root holds the package's
    face, the command line's entry point, ``base`` and the subpackages."""
    modules = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name.startswith("_") and path.name not in {"__init__.py", "__main__.py"}
    )
    assert modules == []


@pytest.mark.parametrize(
    "source, target, allowed",
    [
        ("linear_model", "model_selection", False),
        ("model_selection", "linear_model", True),
        ("base", "covariance", False),
        ("covariance", "base", True),
        ("mechanisms", "privacy", True),
        ("privacy", "mechanisms", False),
    ],
)
def test_the_floors_order_the_packages_as_documented(source, target, allowed):
    # The rule the tests above enforce, on the edges docs/developers.rst names.
    assert (FLOOR[target] <= FLOOR[source]) is allowed

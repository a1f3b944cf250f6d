"""The declared dependency floors are the versions CI tests at (.ci/floors.txt)."""

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _release(version):
    """``"1.24"`` → ``(1, 24, 0)``: a floor ``>=1.24`` admits 1.24.0 first."""
    parts = [int(part) for part in version.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _declared_floors():
    # The [project] dependencies list (tomllib is not in Python 3.10).
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    entries = re.findall(r'^\s*"([^"]+)"', block.group(1), re.MULTILINE)
    floors = {}
    for entry in entries:
        # Every runtime dependency has exactly one bound, a floor.
        match = re.fullmatch(r"([\w-]+)>=([\d.]+)", entry)
        assert match, f"not of the form name>=version: {entry!r}"
        floors[match[1]] = match[2]
    return floors


def _constraints():
    """name → specifier of every line of .ci/floors.txt."""
    constraints = {}
    for line in (ROOT / ".ci" / "floors.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, specifier = re.fullmatch(r"([\w-]+)\s*(\S.*)", line).groups()
            constraints[name] = specifier
    return constraints


def _tested_floors():
    """The exact pins (``==``) of .ci/floors.txt: the floors tested."""
    return {
        name: specifier[2:].strip()
        for name, specifier in _constraints().items()
        if specifier.startswith("==")
    }


def test_every_runtime_dependency_is_tested_at_its_floor():
    declared, tested = _declared_floors(), _tested_floors()
    # (Other lines of the file only bound test tooling.)
    assert set(tested) == set(declared)
    for name, floor in declared.items():
        # The lowest release the specifier admits, not a later patch release.
        assert _release(tested[name]) == _release(floor), name


def test_every_library_the_package_imports_is_declared():
    """A library imported by skprivcov is a runtime dependency with a floor,
    or the optional extra that a function imports when it needs it."""
    # the dask, distributed, spark and plot extras
    optional = {"dask", "distributed", "matplotlib", "pyspark", "pyarrow"}
    distribution = {"sklearn": "scikit-learn"}
    imported = set()
    for path in (ROOT / "skprivcov").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    libraries = imported - set(sys.stdlib_module_names) - {"skprivcov"}
    declared = set(_declared_floors())
    assert {distribution.get(name, name) for name in libraries - optional} == declared


def test_ci_installs_the_floors_and_runs_the_fast_tests():
    script = (ROOT / ".ci" / "run").read_text()
    # The main job is the README's test command, as it is.
    readme_command = 'pip install ".[test]" && python -m pytest\n'
    assert readme_command in (ROOT / "README.md").read_text()
    assert readme_command in script
    floors_job = script[script.index(readme_command) + len(readme_command) :]
    assert 'pip install -c .ci/floors.txt ".[test]"' in floors_job
    assert 'python -m pytest -m "not slow and not release_digests"' in floors_job

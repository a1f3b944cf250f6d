"""The declared dependency floors are the versions CI tests at (.ci/floors.txt)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared_floors():
    # The [project] dependencies list (tomllib is not in Python 3.10).
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    return dict(re.findall(r'"([\w-]+)>=([\w.]+)"', block.group(1)))


def _tested_floors():
    pins = {}
    for line in (ROOT / ".ci" / "floors.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name] = version
    return pins


def test_every_runtime_dependency_has_a_tested_floor():
    declared, tested = _declared_floors(), _tested_floors()
    assert set(declared) == set(tested)
    for name, floor in declared.items():
        # The floor's release (1.24 or 1.24.4) is the version tested.
        assert tested[name] == floor or tested[name].startswith(floor + "."), name


def test_ci_installs_the_floors_and_runs_the_fast_tests():
    script = (ROOT / ".ci" / "run").read_text()
    assert "-c .ci/floors.txt" in script
    assert 'python -m pytest -m "not slow and not release_digests"' in script

"""The planted privacy bugs of benchmarks/planted_bugs/ still apply to the
code (docs/audit.rst, "Planted bugs"): a patch that no longer applies would
silently drop out of the count the docs state. Running them is opt-in
(``python benchmarks/planted_bugs.py``)."""

import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PATCHES = sorted((ROOT / "benchmarks" / "planted_bugs").glob("*.patch"))


def test_there_are_twenty_seven_planted_bugs():
    assert len(PATCHES) == 27  # the number docs/audit.rst states


@pytest.mark.parametrize("patch", PATCHES, ids=[p.stem for p in PATCHES])
def test_every_planted_bug_applies_to_the_code(patch):
    result = subprocess.run(
        ["git", "apply", "--check", str(patch)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr

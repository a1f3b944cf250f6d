"""The documentation builds without a single warning, and runs every example.

The build happens in a copy of docs/ and examples/ under pytest's tmp_path, so
the repository tree is never written to (sphinx-gallery writes its generated
pages next to the sources, and each example runs in its own directory).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Outputs of a local build in the repository, never sources.
BUILD_OUTPUTS = shutil.ignore_patterns(
    "_build",
    "generated",
    "auto_examples",
    "sg_execution_times.rst",
    "__pycache__",
)


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=BUILD_OUTPUTS)
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=BUILD_OUTPUTS)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-b",
        "html",
        str(tmp_path / "docs"),
        str(tmp_path / "_build"),
    ]
    # One BLAS thread: the examples make many small fits, which multi-threaded
    # BLAS slows down badly when the cores are busy (measured 70× on 2 cores).
    single_thread = {
        name: "1"
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    env = {**os.environ, "MPLBACKEND": "Agg", **single_thread}
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    output = result.stdout + result.stderr
    warnings = [line for line in output.splitlines() if "WARNING" in line]
    assert result.returncode == 0 and not warnings, (
        f"sphinx exited with {result.returncode}; warnings:\n"
        + "\n".join(warnings)
        + f"\n--- stderr ---\n{result.stderr}"
    )

    images = tmp_path / "docs" / "auto_examples" / "images"
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    assert examples, "no examples/plot_*.py found"
    missing = [
        example.name
        for example in examples
        if not (images / f"sphx_glr_{example.stem}_001.png").is_file()
    ]
    assert not missing, f"examples that drew no figure in the gallery: {missing}"
    assert (tmp_path / "_build" / "privacy.html").is_file()
    assert (tmp_path / "_build" / "api.html").is_file()

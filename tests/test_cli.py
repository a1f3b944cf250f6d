"""The command line: ``python -m skprivcov release`` on good and bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    SeparateCovariance,
)
from skprivcov.__main__ import main

ROWS = np.random.default_rng(0).normal(size=(400, 3)) * [1.0, 0.5, 0.2] + 0.3


@pytest.fixture
def files(tmp_path):
    np.save(tmp_path / "rows.npy", ROWS)
    np.savetxt(tmp_path / "rows.csv", ROWS, delimiter=",", fmt="%.17g")
    header = "a,b,c\n" + (tmp_path / "rows.csv").read_text()
    (tmp_path / "named.csv").write_text(header)
    return tmp_path


def _release(*args):
    return main(["release", *map(str, args)])


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--rho", "0.5"], GaussianCovariance(rho=0.5)),
        (
            ["--mechanism", "laplace", "--epsilon", "2", "--assume-centered"],
            LaplaceCovariance(epsilon=2.0, assume_centered=True),
        ),
        (
            ["--mechanism", "separate", "--epsilon", "1", "--delta", "1e-6"],
            SeparateCovariance(epsilon=1.0, delta=1e-6),
        ),
        (["--mechanism", "adaptive"], AdaptiveCovariance()),
    ],
)
@pytest.mark.parametrize("source", ["rows.npy", "rows.csv", "named.csv"])
@pytest.mark.parametrize("target", ["out.npy", "out.csv"])
def test_release_writes_the_estimators_release_and_a_record(
    files, options, expected, source, target
):
    extra = ["--skip-header"] if source == "named.csv" else []
    code = _release(
        files / source, "-o", files / target, "--norm-bound", 2, "--seed", 7,
        *options, *extra,
    )  # fmt: skip
    assert code == 0
    centred = "--assume-centered" in options
    reference = expected.set_params(
        norm_bound=2.0, random_state=7, assume_centered=centred
    ).fit(ROWS)
    if target.endswith(".npy"):
        released = np.load(files / target)
    else:
        released = np.loadtxt(files / target, delimiter=",")
    # CSV round-trips float64 exactly with 17 significant digits.
    np.testing.assert_array_equal(released, reference.covariance_)
    record = json.loads((files / "out.json").read_text())
    spent = reference.privacy_spent_
    assert record["privacy_spent"]["notion"] == spent.notion
    assert record["privacy_spent"]["parameter"] == spent.parameter
    assert record["privacy_spent"]["epsilon"] == spent.epsilon
    assert record["estimator"] == type(reference).__name__
    assert record["parameters"]["norm_bound"] == 2.0
    assert record["n_features"] == 3
    if not centred:
        np.testing.assert_array_equal(record["location"], reference.location_)
    # The seed would let anyone subtract the noise: never written, only the
    # fact that one was fixed.
    assert record["parameters"]["random_state"] == "fixed seed"
    assert "7" not in json.dumps(record["parameters"])


def test_release_without_a_budget_uses_the_mechanisms_default(files):
    assert _release(files / "rows.npy", "-o", files / "out.npy", "--seed", 1) == 0
    record = json.loads((files / "out.json").read_text())
    assert record["privacy_spent"]["description"] == "0.1-zCDP"


def test_zero_mechanism_spends_nothing(files):
    assert (
        _release(files / "rows.npy", "-o", files / "z.npy", "--mechanism", "zero") == 0
    )
    np.testing.assert_array_equal(np.load(files / "z.npy"), np.zeros((3, 3)))
    assert json.loads((files / "z.json").read_text())["privacy_spent"]["parameter"] == 0


def _bad_inputs(tmp_path):
    (tmp_path / "words.csv").write_text("1,2,3\n4,x,6\n")
    (tmp_path / "nan.csv").write_text("1,2,3\n4,nan,6\n7,8,9\n")
    (tmp_path / "one.csv").write_text("1,2,3\n")
    (tmp_path / "ragged.csv").write_text("1,2,3\n4,5\n")
    (tmp_path / "rows.txt").write_text("1,2\n3,4\n")
    np.save(tmp_path / "flat.npy", np.arange(5.0))
    np.save(tmp_path / "objects.npy", np.array([[1, "a"]], dtype=object))
    (tmp_path / "broken.npy").write_bytes(b"not a numpy file")
    np.save(tmp_path / "rows.npy", ROWS)


BAD = [
    (["missing.csv"], "no such file"),
    (["words.csv"], "NaN or infinity"),  # a word is read as NaN
    (["ragged.csv"], "cannot read"),
    (["broken.npy"], "cannot read"),
    (["objects.npy"], "cannot read"),
    (["rows.txt"], ".csv or .npy"),
    (["nan.csv"], "NaN"),
    (["one.csv"], "1 sample"),
    (["flat.npy"], "2D array"),
    (["rows.npy", "--rho", "-1"], "'rho' parameter"),
    (["rows.npy", "--rho", "0.1", "--epsilon", "1"], "not both"),
    (["rows.npy", "--epsilon", "1", "--delta", "1"], "'delta' parameter"),
    (["rows.npy", "--norm-bound", "0"], "'norm_bound' parameter"),
    (["rows.npy", "--mechanism", "gaussian", "--epsilon", "1"], "pure"),
    (["rows.npy", "--mechanism", "zero", "--rho", "1"], "spends nothing"),
    (["rows.npy", "--record", "{tmp}/r.txt"], "must end in .json"),
    (["rows.npy", "--record", "{tmp}/nowhere/r.json"], "no such directory"),
]


@pytest.mark.parametrize(("arguments", "message"), BAD, ids=lambda v: str(v))
def test_bad_files_and_values_are_refused_and_nothing_is_written(
    tmp_path, capsys, arguments, message
):
    _bad_inputs(tmp_path)
    before = sorted(path.name for path in tmp_path.iterdir())
    source, *options = arguments
    options = [option.format(tmp=tmp_path) for option in options]
    code = _release(tmp_path / source, "-o", tmp_path / "out.npy", *options)
    assert code == 2
    error = capsys.readouterr().err
    assert error.startswith("skprivcov release: error:")
    assert message in error
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def test_bad_output_names_are_refused(files, capsys):
    assert _release(files / "rows.npy", "-o", files / "out.txt") == 2
    assert "--output must end in .npy or .csv" in capsys.readouterr().err


def test_existing_files_are_kept_unless_forced(files, capsys):
    (files / "out.json").write_text("keep me")
    assert _release(files / "rows.npy", "-o", files / "out.npy") == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert (files / "out.json").read_text() == "keep me"
    assert not (files / "out.npy").exists()
    assert _release(files / "rows.npy", "-o", files / "out.npy", "--force") == 0
    assert json.loads((files / "out.json").read_text())["estimator"]


def test_console_entry_point_runs(files):
    result = subprocess.run(
        [
            *(sys.executable, "-m", "skprivcov", "release", files / "rows.csv"),
            *("-o", files / "out.csv", "--rho", "1"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "released a 3 x 3 covariance (1-zCDP)" in result.stdout


def test_non_finite_rows_are_refused_after_the_charge_or_zeroed(tmp_path, capsys):
    (tmp_path / "nan.csv").write_text("0.1,0.2\nnan,0.3\n0.2,0.1\n")
    code = _release(tmp_path / "nan.csv", "-o", tmp_path / "a.npy")
    assert code == 2
    assert "--nonfinite 'zero'" in capsys.readouterr().err
    code = _release(
        tmp_path / "nan.csv", "-o", tmp_path / "b.npy", "--nonfinite", "zero",
        "--seed", 1, "--assume-centered",
    )  # fmt: skip
    assert code == 0
    zeroed = GaussianCovariance(random_state=1).fit(
        np.array([[0.1, 0.2], [0.0, 0.0], [0.2, 0.1]])
    )
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), zeroed.covariance_)

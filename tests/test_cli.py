"""The command line: ``python -m skprivcov release`` on good and bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from skprivcov import (
    AdaptiveCovariance,
    AutoCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    SeparateCovariance,
)
from skprivcov.__main__ import main
from skprivcov.decomposition import PrivatePCA
from skprivcov.privacy import PrivacyAccountant, PrivacyCost

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
        (["--mechanism", "gaussian", "--rho", "0.5"], GaussianCovariance(rho=0.5)),
        (["--rho", "0.5"], AutoCovariance(rho=0.5)),
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
    record = json.loads((files / f"{target}.json").read_text())
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


@pytest.mark.parametrize("noise", ["hardened", "float"])
def test_noise_is_chosen_and_recorded(files, noise):
    """--noise picks how the noise is drawn (docs/algorithms.rst §17): the
    release is the estimator's with that ``noise``, and the record says it."""
    code = _release(
        files / "rows.npy", "-o", files / "out.npy", "--seed", 3, "--noise", noise,
        "--mechanism", "gaussian",
    )  # fmt: skip
    assert code == 0
    reference = GaussianCovariance(
        noise=noise, assume_centered=False, random_state=3
    ).fit(ROWS)
    np.testing.assert_array_equal(np.load(files / "out.npy"), reference.covariance_)
    record = json.loads((files / "out.npy.json").read_text())
    assert record["parameters"]["noise"] == noise


def test_release_without_a_budget_uses_the_mechanisms_default(files):
    assert _release(files / "rows.npy", "-o", files / "out.npy", "--seed", 1) == 0
    record = json.loads((files / "out.npy.json").read_text())
    assert record["privacy_spent"]["description"] == "0.1-zCDP"
    assert record["estimator"] == "AutoCovariance"  # Python's recommendation


def test_zero_mechanism_spends_nothing(files):
    assert (
        _release(files / "rows.npy", "-o", files / "z.npy", "--mechanism", "zero") == 0
    )
    np.testing.assert_array_equal(np.load(files / "z.npy"), np.zeros((3, 3)))
    record = json.loads((files / "z.npy.json").read_text())
    assert record["privacy_spent"]["parameter"] == 0


def _bad_inputs(tmp_path):
    (tmp_path / "words.csv").write_text("1,2,3\n4,x,6\n")
    (tmp_path / "nan.csv").write_text("1,2,3\n4,nan,6\n7,8,9\n")
    (tmp_path / "one.csv").write_text("1,2,3\n")
    (tmp_path / "ragged.csv").write_text("1,2,3\n4,5\n")
    (tmp_path / "blank_first.csv").write_text("\n1,2,3\n4,5,6\n")
    (tmp_path / "rows.txt").write_text("1,2\n3,4\n")
    np.save(tmp_path / "flat.npy", np.arange(5.0))
    np.save(tmp_path / "objects.npy", np.array([[1, "a"]], dtype=object))
    (tmp_path / "broken.npy").write_bytes(b"not a numpy file")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("a,b,c\n")
    np.save(tmp_path / "rows.npy", ROWS)
    accountant = PrivacyAccountant(rho=0.3, path=tmp_path / "spent.sqlite")
    accountant.spend(PrivacyCost.zcdp(0.2))


BAD = [
    (["missing.csv"], "no such file"),
    (["words.csv"], "NaN or infinity"),  # a word is read as NaN
    (["ragged.csv"], "NaN or infinity"),  # a line of another width: a NaN row
    (["blank_first.csv"], "first line of"),
    (["broken.npy"], "cannot read"),
    (["objects.npy"], "cannot read"),
    (["rows.txt"], ".csv or .npy"),
    (["nan.csv"], "NaN"),
    (["one.csv"], "1 sample"),
    (["flat.npy"], "1-D array; it must be 2-D"),
    (["empty.csv"], "holds no rows"),
    (["header.csv", "--skip-header"], "holds no rows"),
    (["header.csv"], "pass --skip-header"),
    (["rows.npy", "--norm-bound", "1e300"], "'norm_bound' parameter"),
    (["rows.npy", "--ledger", "{tmp}/new.sqlite"], "give its total budget"),
    (["rows.npy", "--ledger-rho", "1"], "need --ledger"),
    (["rows.npy", "--ledger", "{tmp}/spent.sqlite", "--rho", "0.2"], "would spend"),
    (["rows.npy", "--ledger", "{tmp}/nowhere/l.sqlite"], "existing directory"),
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
    assert len(error.strip().splitlines()) == 1  # one line, no traceback
    assert "reshape" not in error.lower() and "HistGradient" not in error
    assert sorted(path.name for path in tmp_path.iterdir()) == before
    if "spent.sqlite" in options[-3:]:
        # A refused spend records nothing.
        assert len(PrivacyAccountant(path=tmp_path / "spent.sqlite").history()) == 1


def test_bad_output_names_are_refused(files, capsys):
    assert _release(files / "rows.npy", "-o", files / "out.txt") == 2
    assert "--output must end in .npy or .csv" in capsys.readouterr().err


def test_existing_files_are_kept_unless_forced(files, capsys):
    (files / "out.npy.json").write_text("keep me")
    assert _release(files / "rows.npy", "-o", files / "out.npy") == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert (files / "out.npy.json").read_text() == "keep me"
    assert not (files / "out.npy").exists()
    assert _release(files / "rows.npy", "-o", files / "out.npy", "--force") == 0
    assert json.loads((files / "out.npy.json").read_text())["estimator"]


@pytest.mark.slow  # long (utility, subprocess or optimiser): CI runs it
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
    assert "released a 3 x 3 centred covariance (1-zCDP)" in result.stdout


def test_non_finite_rows_are_refused_after_the_charge_or_zeroed(tmp_path, capsys):
    (tmp_path / "nan.csv").write_text("0.1,0.2\nnan,0.3\n0.2,0.1\n")
    code = _release(tmp_path / "nan.csv", "-o", tmp_path / "a.npy")
    assert code == 2
    assert "--nonfinite 'zero'" in capsys.readouterr().err
    code = _release(
        tmp_path / "nan.csv", "-o", tmp_path / "b.npy", "--nonfinite", "zero",
        "--seed", 1, "--assume-centered", "--mechanism", "gaussian",
    )  # fmt: skip
    assert code == 0
    zeroed = GaussianCovariance(assume_centered=True, random_state=1).fit(
        np.array([[0.1, 0.2], [0.0, 0.0], [0.2, 0.1]])
    )
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), zeroed.covariance_)


@pytest.mark.parametrize(
    "arguments",
    [
        ["release", "rows.npy", "-o", "out.npy", "--rho", "abc"],
        ["release", "rows.npy", "-o", "out.npy", "--mechanism", "best"],
        ["release", "rows.npy"],
        ["pca", "rows.npy", "-o", "out.npy", "--n-components", "two"],
        ["frobnicate"],
    ],
    ids=["not a number", "no such mechanism", "no output", "pca", "no command"],
)
def test_usage_errors_are_one_line_with_exit_status_2(files, capsys, arguments):
    """argparse's own errors too: one line naming the problem and --help, no
    usage block, exit 2, nothing written."""
    before = sorted(path.name for path in files.iterdir())
    with pytest.raises(SystemExit) as exited:
        main([str(files / a) if a == "rows.npy" else a for a in arguments])
    assert exited.value.code == 2
    stderr = capsys.readouterr().err
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "error:" in stderr and "--help" in stderr
    assert sorted(path.name for path in files.iterdir()) == before


def test_version_and_help_show_what_the_defaults_are(capsys):
    from skprivcov import __version__

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == __version__
    for command in ("release", "pca"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "(default: auto)" in text
        assert "none given: rho 0.1, as in Python" in text
        assert "'auto' (the default, as in Python)" in text
    assert "the default, as in Python)" in text or command == "pca"


def test_the_record_is_named_after_the_output_so_formats_never_collide(files):
    assert _release(files / "rows.npy", "-o", files / "cov.npy", "--seed", 1) == 0
    assert _release(files / "rows.npy", "-o", files / "cov.csv", "--seed", 2) == 0
    for name in ("cov.npy.json", "cov.csv.json"):
        assert json.loads((files / name).read_text())["output"].endswith(name[:-5])


def test_the_default_bound_is_stated_after_the_release(files, capsys):
    assert _release(files / "rows.npy", "-o", files / "a.npy") == 0
    assert "a private bound chosen at 1/16" in capsys.readouterr().out
    assert _release(files / "rows.npy", "-o", files / "b.npy", "--norm-bound", 2) == 0
    assert "private bound" not in capsys.readouterr().out


def test_a_public_range_for_the_private_bound_matches_python(files):
    # --norm-bound LOW,HIGH is norm_bound=(LOW, HIGH): the private bound on
    # the grid of that range (§18.2), as in Python, bit for bit.
    code = _release(
        files / "rows.npy", "-o", files / "out.npy",
        "--norm-bound", "0.25,4", "--rho", "0.5", "--seed", 3,
        "--mechanism", "gaussian",
    )  # fmt: skip
    assert code == 0
    reference = GaussianCovariance(
        rho=0.5, norm_bound=(0.25, 4.0), random_state=3, assume_centered=False
    ).fit(ROWS)
    np.testing.assert_array_equal(np.load(files / "out.npy"), reference.covariance_)
    record = json.loads((files / "out.npy.json").read_text())
    assert record["norm_bound"] == reference.norm_bound_
    assert 0.25 <= record["norm_bound"] <= 4.0 * 2**0.25


def test_pca_writes_the_components_and_a_record_of_the_variances(files):
    code = main(
        [
            "pca", str(files / "rows.csv"), "-o", str(files / "pc.csv"),
            "--n-components", "2", "--norm-bound", "2", "--seed", "5",
        ]
    )  # fmt: skip
    assert code == 0
    reference = PrivatePCA(
        n_components=2,
        estimator=AutoCovariance(norm_bound=2.0, allow_zero=False),
        random_state=5,
    ).fit(ROWS)
    components = np.loadtxt(files / "pc.csv", delimiter=",", ndmin=2)
    np.testing.assert_array_equal(components, reference.components_)
    record = json.loads((files / "pc.csv.json").read_text())
    np.testing.assert_array_equal(
        record["explained_variance"], reference.explained_variance_
    )
    np.testing.assert_array_equal(record["mean"], reference.mean_)
    assert record["n_components"] == 2
    assert record["privacy_spent"]["description"] == "0.1-zCDP"
    assert record["parameters"]["random_state"] == "fixed seed"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--mechanism", "zero"], "has no components"),
        (["--n-components", "0"], "at least 1"),
        (["--n-components", "4"], "at most the number of features"),
    ],
)
def test_pca_refuses_what_it_cannot_do_before_spending(files, capsys, options, message):
    ledger = files / "l.sqlite"
    code = main(
        [
            "pca", str(files / "rows.npy"), "-o", str(files / "pc.npy"),
            "--ledger", str(ledger), "--ledger-rho", "1", *options,
        ]
    )  # fmt: skip
    assert code == 2
    error = capsys.readouterr().err
    assert error.startswith("skprivcov pca: error:") and message in error
    assert not (files / "pc.npy").exists()
    if ledger.exists():
        assert PrivacyAccountant(path=ledger).history() == []


def test_releases_through_a_ledger_share_its_budget(files, capsys):
    ledger = files / "budget.sqlite"
    first = ["--ledger", ledger, "--ledger-rho", 0.25, "--rho", 0.1]
    assert _release(files / "rows.npy", "-o", files / "a.npy", *first) == 0
    record = json.loads((files / "a.npy.json").read_text())
    assert record["ledger"] == str(ledger)
    again = ["--ledger", ledger, "--rho", 0.1]
    assert main(["pca", str(files / "rows.npy"), "-o", str(files / "b.npy"),
                 *map(str, again)]) == 0  # fmt: skip
    assert _release(files / "rows.npy", "-o", files / "c.npy", *again) == 2
    assert "would spend" in capsys.readouterr().err
    assert not (files / "c.npy").exists()
    accountant = PrivacyAccountant(path=ledger)
    assert [r.source for r in accountant.history()] == ["AutoCovariance"] * 2
    assert accountant.spent.rho == pytest.approx(0.2)


def test_an_output_that_is_a_directory_is_refused_before_spending(files, capsys):
    (files / "taken.npy").mkdir()
    ledger = ["--ledger", files / "l.sqlite", "--ledger-rho", 1]
    code = _release(files / "rows.npy", "-o", files / "taken.npy", "--force", *ledger)
    assert code == 2
    assert "is a directory" in capsys.readouterr().err
    assert not (files / "l.sqlite").exists()  # nothing opened, nothing spent


def test_a_failed_write_is_one_line_and_leaves_nothing(files, capsys, monkeypatch):
    """The disk refuses the second file after the fit: the error says so in one
    line, the budget is spent, and no file (partial or renamed) is left."""
    import skprivcov._cli._commands as command

    original = command._write_atomically
    calls = []

    def failing(path, write):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return original(path, write)

    monkeypatch.setattr(command, "_write_atomically", failing)
    before = sorted(path.name for path in files.iterdir())
    code = _release(files / "rows.npy", "-o", files / "out.npy")
    assert code == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1
    assert "cannot write the release" in error and "spent" in error
    assert sorted(path.name for path in files.iterdir()) == before


def test_the_release_never_overwrites_its_ledger(files, capsys):
    """The output (or record) path naming the ledger is refused before the
    ledger is opened, also through a symbolic link."""
    ledger = files / "budget.npy"
    code = _release(
        files / "rows.npy", "-o", ledger, "--ledger", ledger, "--ledger-rho", 1
    )
    assert code == 2
    assert "is the ledger" in capsys.readouterr().err
    assert not ledger.exists()
    PrivacyAccountant(rho=1.0, path=files / "real.sqlite")
    (files / "link.npy").symlink_to(files / "real.sqlite")
    code = _release(
        files / "rows.npy", "-o", files / "link.npy", "--force",
        "--ledger", files / "real.sqlite",
    )  # fmt: skip
    assert code == 2
    assert PrivacyAccountant(path=files / "real.sqlite").history() == []


def test_a_file_that_is_not_a_ledger_is_one_line(files, capsys):
    (files / "bad.sqlite").write_text("not a database")
    code = _release(
        files / "rows.npy", "-o", files / "a.npy", "--ledger", files / "bad.sqlite"
    )
    assert code == 2
    error = capsys.readouterr().err
    assert error.startswith("skprivcov release: error: --ledger:")
    assert len(error.strip().splitlines()) == 1


def test_a_public_refusal_does_not_create_the_ledger(files, capsys):
    ledger = files / "new.sqlite"
    for options in (["--rho", "-1"], ["--mechanism", "zero", "--rho", "1"]):
        code = _release(
            files / "rows.npy", "-o", files / "a.npy",
            "--ledger", ledger, "--ledger-rho", 1, *options,
        )  # fmt: skip
        assert code == 2
        assert not ledger.exists()


def test_a_path_with_a_newline_still_gives_one_line(files, capsys):
    code = _release(files / "rows.npy", "-o", files / "a\nb.txt")
    assert code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# Issue 32: np.loadtxt took "#" for a comment, so an error cell (#N/A, #DIV/0!)
# cut its line short and the file was refused as ragged before the charge,
# for free; a line whose first cell began with "#" was dropped (n depended on
# a value); bytes that are not UTF-8 and quoted commas were refused likewise.
# Each probe replaces one line of _CLEAN; the line is read as a row of NaN (or
# with a NaN cell), and every probe line holds the secret digits 271828.
_CLEAN = [b"0.1,0.2,0.3", b"0.3,0.1,0.2", b"0.2,0.3,0.1", b"0.1,0.1,0.1"]
_PROBES = {
    "na": (2, b"0.271828,#N/A,0.1"),
    "div0": (2, b"0.271828,#DIV/0!,0.1"),
    "hash_first_cell": (2, b"#0.271828,0.3,0.1"),
    "hash_first_line": (0, b"#0.271828,0.2,0.3"),
    "not_utf8": (2, b"0.271828,\xff\xfe0.3,0.1"),
    "quoted_comma": (2, b'"0,271828",0.3,0.1'),
    "ragged": (2, b"0.271828,0.3"),
    "too_wide": (2, b"0.271828,0.3,0.1,0.2"),
    "blank": (2, b""),
}
_PROBE_TEXTS = ("271828", "#N/A", "#DIV/0!", "\ufffd", "\\xff")


def _probe_file(folder, name):
    """The probe file ``name`` (or the clean file), and its rows as the reader
    must give them: one per line, NaN in the probed line's row."""
    lines = list(_CLEAN)
    expected = np.loadtxt(_CLEAN, delimiter=",")
    if name != "clean":
        where, line = _PROBES[name]
        lines[where] = line
        expected[where] = np.nan
    path = folder / f"{name}.csv"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, expected


def _spent_ledger(path):
    """A ledger of ρ 0.3 with 0.25 spent: a spend of 0.1 does not fit."""
    PrivacyAccountant(rho=0.3, path=path).spend(PrivacyCost.zcdp(0.25))
    return path


def _assert_no_probe_text(text):
    for secret in _PROBE_TEXTS:
        assert secret not in text, text


@pytest.mark.parametrize("command", ["release", "pca"])
def test_no_cell_is_refused_before_a_spent_budget_refuses_the_spend(
    tmp_path, capsys, command
):
    """With the budget spent, every probe meets the ledger's refusal, as the
    clean file does: the reading refuses no value before the charge, so probes
    learn nothing for free (docs/algorithms.rst §13.2)."""
    ledger = _spent_ledger(tmp_path / "spent.sqlite")
    outcomes = set()
    for name in ["clean", *_PROBES]:
        path, _ = _probe_file(tmp_path, name)
        for nonfinite in ("raise", "zero"):
            code = main(
                [
                    command, str(path), "-o", str(tmp_path / "out.npy"),
                    "--ledger", str(ledger), "--rho", "0.1",
                    "--nonfinite", nonfinite,
                ]
            )  # fmt: skip
            captured = capsys.readouterr()
            _assert_no_probe_text(captured.out + captured.err)
            outcomes.add((code, captured.out, captured.err))
    assert len(outcomes) == 1, outcomes
    ((code, out, err),) = outcomes
    assert code == 2 and out == ""
    assert err.startswith(f"skprivcov {command}: error:") and "would spend" in err
    assert not (tmp_path / "out.npy").exists()
    assert len(PrivacyAccountant(path=ledger).history()) == 1


@pytest.mark.parametrize("name", sorted(_PROBES))
def test_probes_are_one_row_per_line_for_nonfinite(tmp_path, capsys, name):
    """--nonfinite zero: the release is that of one row per line, the probed
    row counted as zeros (n is the number of lines). --nonfinite raise: one
    refusal, after the charge (the ledger shows the spend)."""
    path, expected = _probe_file(tmp_path, name)
    options = ["--rho", "0.5", "--seed", "3", "--mechanism", "gaussian"]
    code = _release(path, "-o", tmp_path / "z.npy", *options, "--nonfinite", "zero")
    assert code == 0
    reference = GaussianCovariance(
        rho=0.5, nonfinite="zero", assume_centered=False, random_state=3
    ).fit(expected)
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), reference.covariance_)
    ledger = ["--ledger", tmp_path / "l.sqlite", "--ledger-rho", 1]
    assert _release(path, "-o", tmp_path / "r.npy", *options, *ledger) == 2
    captured = capsys.readouterr()
    assert "--nonfinite 'zero'" in captured.err
    _assert_no_probe_text(captured.out + captured.err)
    assert not (tmp_path / "r.npy").exists()
    spent = PrivacyAccountant(path=tmp_path / "l.sqlite")
    assert [record.source for record in spent.history()] == ["GaussianCovariance"]
    assert spent.spent.rho == pytest.approx(0.5)


def test_pca_reads_probes_as_rows_too(tmp_path, capsys):
    path, expected = _probe_file(tmp_path, "na")
    code = main(
        [
            "pca", str(path), "-o", str(tmp_path / "pc.npy"), "--seed", "4",
            "--mechanism", "gaussian", "--rho", "0.5", "--nonfinite", "zero",
        ]
    )  # fmt: skip
    assert code == 0
    _assert_no_probe_text(capsys.readouterr().out)
    reference = PrivatePCA(
        estimator=GaussianCovariance(rho=0.5, nonfinite="zero"), random_state=4
    ).fit(expected)
    np.testing.assert_array_equal(np.load(tmp_path / "pc.npy"), reference.components_)


@pytest.mark.parametrize("where", [0, 2])
def test_a_first_cell_starting_with_a_hash_keeps_its_row(tmp_path, where):
    """n is the number of lines whatever a cell holds: "#" is no comment."""
    from skprivcov._cli._csv import read_rows as _read_rows

    lines = list(_CLEAN)
    (tmp_path / "number.csv").write_bytes(b"\n".join(lines) + b"\n")
    lines[where] = b"#" + lines[where]
    (tmp_path / "hash.csv").write_bytes(b"\n".join(lines) + b"\n")
    number = _read_rows(tmp_path / "number.csv", skip_header=False)
    hashed = _read_rows(tmp_path / "hash.csv", skip_header=False)
    assert hashed.shape == number.shape == (len(lines), 3)
    assert np.isnan(hashed[where, 0])
    np.testing.assert_array_equal(
        np.delete(hashed, where, 0), np.delete(number, where, 0)
    )


ROWS_OF_LINES = [
    # (content, --skip-header, the rows as read)
    (b"1,2\n3,4\n", False, [[1, 2], [3, 4]]),
    (b"1,2\n3,4", False, [[1, 2], [3, 4]]),  # a last line without a newline
    (b"1,2\n\n", False, [[1, 2], [np.nan] * 2]),  # a blank last line is a row
    (b"1,2\n\n3,4\n", False, [[1, 2], [np.nan] * 2, [3, 4]]),
    (b"\xef\xbb\xbfa,b\r\n1,2\r\n3,4\r", True, [[1, 2], [3, 4]]),  # BOM, CRLF
    (b"1,2\n 3 ,4\r\r\n", False, [[1, 2], [3, 4]]),  # float()'s blanks
    (b'1,2\n"3",4\n"3,5",6\n', False, [[1, 2], [3, 4], [np.nan, 6]]),
    # a quote never joins two lines
    (b'1,2\n"3\n4",5\n', False, [[1, 2], [np.nan] * 2, [np.nan, 5]]),
    (
        b"1,2\nnan,-inf\n0x10,1e999\n",
        False,
        [[1, 2], [np.nan, -np.inf], [np.nan, np.inf]],
    ),
    (b"1,2\n\xc3\xa9,\xff\n#,3\n", False, [[1, 2], [np.nan] * 2, [np.nan, 3]]),
    (b"a,b\n1\n1,2,3\n,\n", True, [[np.nan] * 2] * 3),
]


def test_a_row_is_a_line(tmp_path):
    """The reading convention, case by case (ROWS_OF_LINES)."""
    from skprivcov._cli._csv import read_rows as _read_rows

    for content, skip, rows in ROWS_OF_LINES:
        (tmp_path / "rows.csv").write_bytes(content)
        read = _read_rows(tmp_path / "rows.csv", skip_header=skip)
        expected = np.array(rows, dtype=float)
        np.testing.assert_array_equal(read, expected, err_msg=repr(content))


def test_reading_a_csv_is_a_total_function_of_its_bytes(tmp_path, monkeypatch):
    """After a clean first line, any bytes read without an error, one row per
    line (b"\\n"; a last line without one counts), also across the reader's
    blocks."""
    import skprivcov._cli._csv as command

    rng = np.random.default_rng(32)
    alphabet = [b"1", b".", b"e", b"-", b",", b",", b"\n", b"\r", b'"', b"#", b" ",
                b"\xff", b"\xc3", b"\x00", b"nan", b"inf"]  # fmt: skip
    path = tmp_path / "rows.csv"
    for trial in range(300):
        monkeypatch.setattr(command, "_BLOCK_BYTES", [3, 16, 1 << 20][trial % 3])
        picks = rng.integers(0, len(alphabet), size=rng.integers(0, 60))
        body = b"".join(alphabet[pick] for pick in picks)
        path.write_bytes(b"1,2,3\n" + body)
        lines = body.count(b"\n") + (not body.endswith(b"\n") and body != b"")
        for skip in (False, True):
            if skip and lines == 0:
                continue  # a header and no row: refused, a public fact
            rows = command.read_rows(path, skip_header=skip)
            assert rows.shape == (lines + (not skip), 3)


@pytest.mark.parametrize("command", ["release", "pca"])
def test_an_auto_norm_bound_is_private_and_recorded(files, command):
    """--norm-bound auto is Python's norm_bound="auto" (§18.2): the same
    release for the same seed, the bound written to the record, the whole
    budget charged once."""
    ledger = files / "ledger.sqlite"
    code = main(
        [
            command,
            str(files / "rows.npy"),
            "-o",
            str(files / "out.npy"),
            "--rho",
            "0.5",
            "--norm-bound",
            "auto",
            "--mechanism",
            "gaussian",
            "--seed",
            "3",
            "--ledger",
            str(ledger),
            "--ledger-rho",
            "1",
        ]
    )
    assert code == 0
    record = json.loads((files / "out.npy.json").read_text())
    if command == "release":
        reference = GaussianCovariance(
            rho=0.5, norm_bound="auto", assume_centered=False, random_state=3
        ).fit(ROWS)
        np.testing.assert_array_equal(np.load(files / "out.npy"), reference.covariance_)
        assert record["norm_bound"] == reference.norm_bound_
    assert record["parameters"]["norm_bound"] == "auto"
    assert record["norm_bound"] > 0
    assert PrivacyAccountant(path=ledger).spent.parameter == pytest.approx(0.5)


def test_a_norm_bound_that_is_neither_a_number_nor_auto_is_refused(files, capsys):
    with pytest.raises(SystemExit):
        _release(files / "rows.npy", "-o", files / "out.npy", "--norm-bound", "max")
    assert "must be a number, 'auto' or LOW,HIGH" in capsys.readouterr().err

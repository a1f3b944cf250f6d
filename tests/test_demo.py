"""``python -m skprivcov demo``: the table, its numbers, the PNG, bad options."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from skprivcov import GaussianCovariance
from skprivcov.__main__ import main
from skprivcov._cli._demo import _NORM_BOUND, RHOS, best_per_budget, plot_demo, run_demo

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def demo_rows():
    lines = []
    rows = run_demo(print_fn=lines.append, n_repeats=1, rhos=(0.1, 10.0))
    return lines, rows


def test_demo_covers_every_mechanism(demo_rows):
    lines, rows = demo_rows
    assert "load_digits" in lines[0]
    table = lines[2 : 2 + len(rows)]
    assert [line.split("  ")[0] for line in table] == list(rows)
    for family in (
        "Gaussian",
        "Laplace",
        "Separate",
        "Adaptive",
        "Projection",
        "IterativeEigen",
        "NuclearLaplace",
        "Zero",
    ):
        assert any(name.startswith(family) for name in rows), family


def test_demo_errors_are_the_clipped_centred_covariance_errors(demo_rows):
    _, rows = demo_rows
    X = load_digits().data
    clipped = X * np.minimum(1.0, _NORM_BOUND / np.linalg.norm(X, axis=1))[:, None]
    reference = np.cov(clipped, rowvar=False, bias=True)
    release = GaussianCovariance(
        rho=10.0, norm_bound=_NORM_BOUND, assume_centered=False, random_state=0
    ).fit(X)
    expected = np.linalg.norm(release.covariance_ - reference) / np.linalg.norm(
        reference
    )
    assert rows["GaussianCovariance"][10.0][0] == pytest.approx(expected, rel=1e-12)
    # More budget, less error; the zero matrix is off by exactly the whole Σ.
    assert rows["GaussianCovariance"][10.0][0] < rows["GaussianCovariance"][0.1][0]
    assert rows["ZeroCovariance"][0.1][0] == pytest.approx(1.0)


@pytest.mark.slow  # runs the demo: CI runs it
def test_plot_is_a_png(demo_rows, tmp_path):
    pytest.importorskip("matplotlib")  # in the test extra: never skipped in CI
    path = tmp_path / "demo.png"
    plot_demo(demo_rows[1], path)
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10_000  # a drawn figure, not an empty canvas


def _fast_demo(monkeypatch):
    import skprivcov.__main__ as cli

    monkeypatch.setattr(
        cli, "run_demo", lambda n_repeats: run_demo(n_repeats=1, rhos=(1.0,))
    )


@pytest.mark.slow  # long (utility, subprocess or optimiser): CI runs it
def test_demo_command_writes_the_png(monkeypatch, tmp_path, capsys):
    _fast_demo(monkeypatch)
    path = tmp_path / "out.png"
    assert main(["demo", "--plot", str(path)]) == 0
    assert path.read_bytes().startswith(PNG_SIGNATURE)
    assert f"wrote {path}" in capsys.readouterr().out


@pytest.mark.slow  # runs the demo: CI runs it
def test_demo_without_matplotlib_prints_the_table(monkeypatch, tmp_path, capsys):
    import sys

    _fast_demo(monkeypatch)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails
    path = tmp_path / "out.png"
    assert main(["demo", "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert "GaussianCovariance" in out
    assert "matplotlib is not installed" in out
    assert not path.exists()


@pytest.mark.slow  # runs the demo: CI runs it
def test_demo_no_plot(monkeypatch, tmp_path, capsys):
    _fast_demo(monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--no-plot"]) == 0
    assert list(tmp_path.iterdir()) == []
    assert "wrote" not in capsys.readouterr().out


@pytest.mark.slow  # long (utility, subprocess or optimiser): CI runs it
def test_demo_unwritable_plot(monkeypatch, tmp_path, capsys):
    _fast_demo(monkeypatch)
    target = tmp_path / "a-directory.png"
    target.mkdir()  # exists, but a directory: writing the PNG fails
    assert main(["demo", "--plot", str(target)]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_demo_refuses_a_missing_directory_before_running(monkeypatch, tmp_path):
    import skprivcov.__main__ as cli

    def must_not_run(n_repeats):
        raise AssertionError("the demo ran before the path was checked")

    monkeypatch.setattr(cli, "run_demo", must_not_run)
    path = tmp_path / "missing-dir" / "out.png"
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--plot", str(path)])
    assert exit_info.value.code == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--repeats", "0"], "--repeats must be at least 1"),
        (["demo", "--plot", "out.pdf"], "--plot must name a .png file"),
    ],
)
def test_demo_bad_options(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_table_marks_the_best_per_budget_and_says_why_some_never_help(demo_rows):
    """One '*' per budget column, on the least mean error (releasing nothing
    included); every mechanism worse than nothing at every budget is named
    with a reason."""
    lines, rows = demo_rows
    best = best_per_budget(rows)
    for rho, name in best.items():
        assert np.mean(rows[name][rho]) == min(np.mean(e[rho]) for e in rows.values())
    table = lines[2 : 2 + len(rows)]
    assert sum(line.count("*") for line in table) == len(best)
    readings = "\n".join(lines[2 + len(rows) :])
    assert "best per budget" in readings
    for name, errors in rows.items():
        never = all(np.mean(errors[rho]) > 1.0 for rho in errors)
        if never and not name.startswith("ZeroCovariance"):
            assert f"{name}: worse than releasing nothing at every budget" in readings


def test_the_demo_budgets_are_realistic():
    assert max(RHOS) <= 10

"""No value of the data decides anything before the charge, and no rule tells
kinds of bad entries apart (docs/algorithms.rst §13.1–13.2, §13.4–13.5).

The second review (of b5ddf10, the fixes of the first) found, with working
exploits: the public-bounds transformers refused NaN before a pipeline's
estimator was charged (a free per-row oracle, 2-row subsets named the row);
a float128 cast before the charge warned exactly when a value was beyond
float64 (also through ZeroCovariance and the command line); ``nonfinite="zero"``
still refused entries that are not numbers, with two different messages; a
worker process could build its own in-memory accountant with a full budget;
``random_state=True`` was refused only after the charge; a diagnostic stream
equalled the stream of a related release seed; and a dask block's own error
message reached the user after the charge. Each is reproduced here.
"""

import math
import multiprocessing

import _accounting_workers as workers
import dask.array as da
import numpy as np
import pandas as pd
import pytest
from _observe import observe
from joblib import Parallel, delayed
from scipy import sparse
from sklearn.pipeline import make_pipeline
from sklearn.utils._param_validation import InvalidParameterError

from skprivcov import (
    GaussianCovariance,
    PrivacyAccountant,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.__main__ import main
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.mechanisms.noise._generators import derived_generator, release_generator
from skprivcov.preprocessing import FeatureBoundsScaler, RowNormClipper
from skprivcov.privacy import NoiseDominatedWarning

SPAWN = multiprocessing.get_context("spawn")


def _rows(n=16, d=3, seed=0):
    return np.random.default_rng(seed).uniform(-0.4, 0.4, size=(n, d))


def _spent_accountant():
    accountant = PrivacyAccountant(rho=0.1)
    GaussianCovariance(rho=0.1, accountant=accountant).fit(_rows())
    return accountant


def _outcome(call):
    """What an observer sees of ``call``: the exception type and every warning
    but the one about the quality of a release, which is post-processing of
    what the fit paid for (docs/algorithms.rst §23), never before a charge."""
    raised, warned = observe(call, ignore=NoiseDominatedWarning)
    return (None if raised is None else type(raised).__name__), warned


@pytest.mark.parametrize(
    "transformer", [RowNormClipper(), FeatureBoundsScaler()], ids=type
)
def test_a_pipeline_of_public_bounds_is_no_free_oracle(transformer):
    """With the budget spent, fits of 2-row subsets told which rows held NaN:
    the transformer refused them before the estimator's charge."""
    accountant = _spent_accountant()
    X = _rows()
    X[13, 1] = np.nan
    pipeline = make_pipeline(transformer, GaussianCovariance(accountant=accountant))
    outcomes = {_outcome(lambda s=s: pipeline.fit(X[s : s + 2])) for s in range(15)}
    assert outcomes == {("BudgetExceededError", ())}
    assert len(accountant.history()) == 1


@pytest.mark.parametrize(
    "transformer",
    [RowNormClipper(norm_bound=0.5), FeatureBoundsScaler(lower=-1.0, upper=1.0)],
    ids=type,
)
def test_a_transformer_passes_a_bad_row_on_for_the_estimators_rule(transformer):
    X = _rows(n=40).astype(object)
    X[7, 2] = "?"
    X[9, 0] = np.inf
    out = transformer.transform(X)
    bad = ~np.isfinite(out).all(axis=1)
    assert bad.tolist() == [i in (7, 9) for i in range(40)]
    assert np.isnan(out[[7, 9]]).all()
    # The estimator after it applies nonfinite: "zero" releases as if those
    # rows were zero rows, "raise" refuses after its charge.
    zeroed = transformer.transform(
        np.where(np.isin(np.arange(40), [7, 9])[:, None], 0.0, X)
    )
    est = SeparateCovariance(nonfinite="zero", random_state=3)
    release = make_pipeline(transformer, est).fit(X)[-1].covariance_
    expected = SeparateCovariance(random_state=3).fit(zeroed).covariance_
    np.testing.assert_array_equal(release, expected)
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        make_pipeline(transformer, GaussianCovariance(accountant=accountant)).fit(X)
    assert len(accountant.history()) == 1


def test_a_sparse_bad_row_comes_out_as_nan_too():
    X = sparse.csr_matrix(_rows(n=8))
    X.data[4] = np.nan
    row = np.repeat(np.arange(8), np.diff(X.indptr))[4]
    out = RowNormClipper().transform(X)
    assert sparse.issparse(out)
    nan_rows = np.unique(
        np.repeat(np.arange(8), np.diff(out.indptr))[np.isnan(out.data)]
    )
    assert nan_rows.tolist() == [row]


def _huge_longdouble(n=16):
    X = _rows(n).astype(np.longdouble)
    X[5, 1] = np.longdouble(10) ** 400
    return X


@pytest.mark.parametrize(
    "make",
    [
        lambda X: X,
        sparse.csr_matrix,
        sparse.coo_matrix,
        lambda X: pd.DataFrame(X),
        lambda X: da.from_array(X, chunks=(4, 3)),
    ],
    ids=["dense", "csr", "coo", "dataframe", "dask"],
)
def test_casts_before_the_charge_are_silent(make):
    """A float128 beyond float64 warned 'overflow encountered in cast' before
    the charge: a free test of whether some row holds a huge value."""
    accountant = _spent_accountant()
    huge, plain = make(_huge_longdouble()), make(_rows().astype(np.longdouble))
    for X in (huge, plain):
        est = GaussianCovariance(accountant=accountant)
        assert _outcome(lambda X=X, est=est: est.fit(X)) == ("BudgetExceededError", ())
        assert _outcome(lambda X=X: ZeroCovariance().fit(X)) == (None, ())
    # After the charge the huge value is an infinity like any other.
    est = GaussianCovariance(nonfinite="zero", random_state=0)
    assert _outcome(lambda: est.fit(huge)) == (None, ())


def test_a_ridge_target_cast_is_silent_too():
    accountant = _spent_accountant()
    X = _rows(n=16, d=2)
    for model in (PrivateRidge, PrivateRidgeCV):
        for y in (_huge_longdouble()[:, 1], _rows()[:, 1].astype(np.longdouble)):
            est = model(estimator=GaussianCovariance(accountant=accountant))
            if model is PrivateRidgeCV:
                est.set_params(cv=2)
            assert _outcome(lambda est=est, y=y: est.fit(X, y)) == (
                "BudgetExceededError",
                (),
            )


def test_the_command_line_casts_in_silence(tmp_path, capfd):
    np.save(tmp_path / "rows.npy", _huge_longdouble())
    code = main(
        [
            "release",
            str(tmp_path / "rows.npy"),
            "-o",
            str(tmp_path / "c.npy"),
            "--mechanism",
            "zero",
        ]
    )
    assert code == 0
    assert capfd.readouterr().err == ""


NOT_NUMBERS = {
    "a word": "?",
    "pandas NA": pd.NA,
    "None": None,
    "an int beyond float64": 10**400,
    "a dict": {"id": 1},
}


@pytest.mark.parametrize("entry", NOT_NUMBERS.values(), ids=NOT_NUMBERS.keys())
def test_nonfinite_zero_treats_an_entry_that_is_not_a_number_as_a_zero_row(entry):
    """With nonfinite="zero" a fit refused such entries (ValueError for "?",
    TypeError for pd.NA): neighbours gave release against exception."""
    values = _rows(n=30).astype(object)
    values[4, 1] = entry
    X = pd.DataFrame(values)
    release = GaussianCovariance(nonfinite="zero", random_state=5).fit(X).covariance_
    zeroed = _rows(n=30)
    zeroed[4] = 0.0
    expected = GaussianCovariance(random_state=5).fit(zeroed).covariance_
    np.testing.assert_array_equal(release, expected)


def test_nonfinite_raise_refuses_every_kind_of_bad_entry_alike():
    """One paid bit: the same error, whatever kind of entry is bad."""
    outcomes = set()
    for entry in [*NOT_NUMBERS.values(), np.nan, np.inf]:
        X = _rows(n=30).astype(object)
        X[4, 1] = entry
        try:
            GaussianCovariance().fit(X)
        except ValueError as error:
            outcomes.add(str(error))
    assert len(outcomes) == 1


@pytest.mark.slow
def test_an_in_memory_accountant_cannot_be_built_in_a_worker():
    """A module-level in-memory accountant, imported by loky workers, gave each
    of them a full budget the parent never saw (4 releases at ρ = 1 after the
    parent's ρ = 1 was spent)."""
    loky = Parallel(n_jobs=2, backend="loky")(
        delayed(workers.build_in_memory_accountant)() for _ in range(2)
    )
    with SPAWN.Pool(1) as pool:
        spawned = pool.map(workers.build_in_memory_accountant, [0])
    for outcome in loky + spawned:
        assert outcome is not None and outcome.startswith("RuntimeError")
        assert "path=" in outcome
    assert workers.build_in_memory_accountant() is None  # the parent may


@pytest.mark.parametrize("seed", [True, False, 2**63, -1])
@pytest.mark.parametrize(
    "make", [GaussianCovariance, PrivateRidge, PrivateRidgeCV], ids=lambda c: c.__name__
)
def test_a_seed_that_is_not_an_int_in_range_is_refused_before_spending(make, seed):
    """random_state=True passed validation and was refused after the charge."""
    accountant = PrivacyAccountant(rho=1.0)
    if make is GaussianCovariance:
        est, args = make(accountant=accountant, random_state=seed), (_rows(),)
    else:
        est = make(estimator=GaussianCovariance(accountant=accountant))
        est.set_params(random_state=seed)
        args = (_rows()[:, :2], _rows()[:, 2])
    with pytest.raises(InvalidParameterError, match="random_state"):
        est.fit(*args)
    assert accountant.history() == []


def test_no_release_seed_replays_a_diagnostic_stream():
    """derived_generator(s) drew the stream of default_rng(s + p·2¹²⁸), a seed
    a release accepted."""
    purpose = 0x5EED_D1A6
    for seed in (0, 1, 2**62 + 7):
        colliding = seed + purpose * 2**128
        with pytest.raises(ValueError, match="2\\*\\*63"):
            release_generator(colliding)
        diagnostic = derived_generator(seed).random(4)
        assert not np.array_equal(diagnostic, release_generator(seed).random(4))


def test_a_dask_blocks_own_error_is_not_shown():
    secret = "SSN-123-45-6789"

    def loader(block):
        raise ValueError(f"could not convert string {secret!r} to float")

    X = da.from_array(_rows(n=20), chunks=(5, 3)).map_blocks(loader, dtype=float)
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(RuntimeError) as caught:
        GaussianCovariance(accountant=accountant).fit(X)
    assert secret not in str(caught.value) and "ValueError" in str(caught.value)
    assert len(accountant.history()) == 1  # after the charge: paid for
    assert not math.isnan(accountant.spent.parameter)


def test_a_transformers_dask_input_shows_no_block_error():
    """The same for training rows through a transformer (before any charge)."""
    secret = "SSN-123-45-6789"

    def loader(block):
        raise ValueError(f"could not convert string {secret!r} to float")

    X = da.from_array(_rows(n=20), chunks=(5, 3)).map_blocks(loader, dtype=float)
    for transformer in (RowNormClipper(), FeatureBoundsScaler()):
        with pytest.raises(RuntimeError) as caught:
            transformer.fit_transform(X)
        assert secret not in str(caught.value)


# --- found by the third review (of 6e53cfb onward) --------------------------------


@pytest.mark.parametrize(
    "entry", [np.complex128(0.1), np.ma.masked], ids=["numpy complex", "masked"]
)
def test_entries_whose_float_warns_are_silent_and_not_numbers(entry):
    """float() of a numpy complex scalar or np.ma.masked warns: before the
    charge (through a transformer) that named the row for free, and after it
    (nonfinite="zero") it was an output that depended on one row."""
    values = _rows(n=30).astype(object)
    values[4, 1] = entry
    accountant = _spent_accountant()
    for transformer in (RowNormClipper(), FeatureBoundsScaler()):
        pipeline = make_pipeline(transformer, GaussianCovariance(accountant=accountant))
        assert _outcome(lambda p=pipeline: p.fit(values)) == ("BudgetExceededError", ())
    est = GaussianCovariance(nonfinite="zero", random_state=5)
    assert _outcome(lambda: est.fit(values)) == (None, ())
    zeroed = _rows(n=30)
    zeroed[4] = 0.0
    expected = GaussianCovariance(random_state=5).fit(zeroed).covariance_
    np.testing.assert_array_equal(est.covariance_, expected)


def test_a_ridge_models_dask_block_error_is_not_shown():
    secret = "SSN-123-45-6789"

    def loader(block):
        raise ValueError(f"could not convert string {secret!r} to float")

    X = da.from_array(_rows(n=20, d=2), chunks=(5, 2)).map_blocks(loader, dtype=float)
    for model in (PrivateRidge(), PrivateRidgeCV(cv=2)):
        with pytest.raises(RuntimeError) as caught:
            model.fit(X, _rows(n=20)[:, 0])
        assert secret not in str(caught.value)


@pytest.mark.parametrize("cell", ["NA", "", "1+2j", "0x10", "word"])
def test_the_command_line_reads_a_cell_that_is_not_a_number_as_nan(
    tmp_path, capsys, cell
):
    """The command line refused such a cell before any fit, even with
    --nonfinite zero (release or not, by one row), and with a message of its
    own under raise (a word told apart from NaN)."""
    rows = _rows(n=12)
    text = "\n".join(",".join(repr(float(v)) for v in row) for row in rows) + "\n"
    lines = text.splitlines()
    lines[7] = lines[7].split(",", 1)[0] + f",{cell}," + lines[7].rsplit(",", 1)[1]
    (tmp_path / "rows.csv").write_text("\n".join(lines) + "\n")
    nan_lines = list(lines)
    nan_lines[7] = lines[7].split(",", 1)[0] + ",nan," + lines[7].rsplit(",", 1)[1]
    (tmp_path / "nan.csv").write_text("\n".join(nan_lines) + "\n")
    common = ["--rho", "0.1", "--seed", "3"]
    outputs = {}
    for name in ("rows", "nan"):
        args = ["release", str(tmp_path / f"{name}.csv"), "-o"]
        assert (
            main(
                [*args, str(tmp_path / f"{name}_z.npy"), *common, "--nonfinite", "zero"]
            )
            == 0
        )
        assert main([*args, str(tmp_path / f"{name}_r.npy"), *common]) == 2
        outputs[name] = capsys.readouterr().err
    np.testing.assert_array_equal(
        np.load(tmp_path / "rows_z.npy"), np.load(tmp_path / "nan_z.npy")
    )
    assert outputs["rows"] == outputs["nan"]


def test_a_child_of_os_fork_cannot_build_an_in_memory_accountant():
    outcome = workers.build_in_memory_accountant_after_os_fork()
    assert outcome.startswith("RuntimeError") and "path=" in outcome

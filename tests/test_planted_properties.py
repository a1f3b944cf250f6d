"""Properties that catch, in the fast loop, the planted bugs an outside review
found it missed (issue 45, "Planted bugs the fast tests missed"; docs/audit.rst,
"Planted bugs"). Each is written as a property of the threat model
(docs/algorithms.rst §13), not as a check of one bug's code:

* a pure spend always counts in the ledger's total: the stated ε of a ledger
  holding a private selection's Rényi record (with its envelope), zCDP and
  pure records is strictly increasing in every record's size, never below the
  stated ε of any sub-ledger, and does not depend on the order of the records;
* every published numeric attribute of every registered variant, compared on
  its own across seeds on the same data, varies, unless a reviewed reason
  says why it may not (public by construction, or the output of a private
  step that takes few values);
* an error in the statistics of a dask block or a Spark partition, called
  here without a cluster on a block that holds a planted value, names no
  value: neither the error the worker raises and would log (its message, its
  traceback and chained errors, its pickle sent to the driver), nor what the
  partition writes to its output or log, nor the driver's report of it
  (§13.1).
"""

import logging
import math
import pickle
import traceback

import numpy as np
import pytest
from _labels import declare_labels
from sklearn.base import BaseEstimator, clone

from skprivcov import PrivacyAccountant, PrivacyCost
from skprivcov._data import _dask as _dask
from skprivcov._data import _spark as _spark
from skprivcov._data import _statistics as _stats
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.model_selection import selection_cost
from skprivcov.naive_bayes import PrivateGaussianNB
from skprivcov.privacy import RENYI_ORDERS
from skprivcov.utils import instances, registry
from skprivcov.utils._test_common.published import published

DELTA = 1e-6
ORDERS = np.asarray(RENYI_ORDERS)

# --------------------------------------------------------------------------------
# A pure spend always counts in the ledger's total (§7, §14, §22).


def _selection(rho):
    """A private selection of ten candidates at ρ each (geometric stopping at
    γ = 1/30): a Rényi record with a closed-form envelope."""
    return selection_cost([PrivacyCost.zcdp(rho)] * 10, eta=1.0, gamma=1 / 30)


def _renyi(a, b=0.05, c=2.3):
    """A hand-built Rényi record, a·λ + b + c/(λ − 1), with its envelope."""
    curve = a * ORDERS + b + c / (ORDERS - 1)
    return PrivacyCost.renyi(
        np.maximum.accumulate(curve[::-1])[::-1], envelope=(a, b, c)
    )


def _larger(cost):
    """The same kind of record, larger: ε + 0.05 for a pure spend, ρ + 0.005
    for a zCDP one, a larger curve (and envelope) for a Rényi one."""
    if cost.notion == "pure":
        return PrivacyCost.pure(cost.parameter + 0.05)
    if cost.notion == "zcdp":
        return PrivacyCost.zcdp(cost.parameter + 0.005)
    a, b, c = cost.envelope
    return PrivacyCost.renyi(
        np.asarray(cost.curve) + 0.002 * ORDERS, envelope=(a + 0.002, b, c)
    )


# A private selection's record (its Rényi curve, envelope and profile) at
# ρ = 1e-6 per candidate, where the best order lies far past the grid's (only
# the envelope routes see it), and hand-built Rényi records with envelopes at
# the sizes of ordinary fits.
RECORDS = {
    "selection": _selection(1e-6),
    "renyi": _renyi(0.003),
    "large renyi": _renyi(0.02, b=0.3),
    "zcdp": PrivacyCost.zcdp(0.02),
    "pure": PrivacyCost.pure(0.3),
    "large pure": PrivacyCost.pure(2.0),
}
LEDGERS = [
    ("selection", "pure"),
    ("pure", "selection"),
    ("selection", "large pure"),
    ("pure", "zcdp", "selection"),
    ("renyi", "pure"),
    ("zcdp", "renyi", "large pure"),
    ("large renyi", "pure", "pure"),
    ("selection", "renyi", "zcdp", "pure"),
]


def _stated(costs):
    """The ε at δ that a ledger holding ``costs`` states."""
    accountant = PrivacyAccountant(epsilon=1e6, delta=DELTA)
    for cost in costs:
        accountant.spend(cost)
    return accountant.spent_epsilon(DELTA)


def test_every_record_counts_in_the_stated_epsilon():
    """One test for every ledger: the selection's profile bound (its stated ε
    alone) is computed once."""
    for names in LEDGERS:
        costs = [RECORDS[name] for name in names]
        stated = _stated(costs)
        assert 0.0 < stated < math.inf, names
        for i, name in enumerate(names):
            # Strictly increasing in each record's size, whatever its kind.
            larger = _stated([*costs[:i], _larger(costs[i]), *costs[i + 1 :]])
            assert larger > stated, (names, name, larger, stated)
            # Never below the ε of the ledger without it, nor of it alone.
            without = costs[:i] + costs[i + 1 :]
            assert stated >= _stated(without), (names, name, stated)
            assert stated >= _stated([costs[i]]), (names, name, stated)
        # The order of the records does not matter.
        for order in (costs[::-1], costs[1:] + costs[:1]):
            assert _stated(order) == stated, names


def test_the_budget_admits_exactly_what_the_ledger_states():
    """``admits`` (a spend against an (ε, δ) budget) agrees with the stated ε:
    a budget just below it refuses the last record, one just above admits it."""
    for names in LEDGERS[:5]:
        costs = [RECORDS[name] for name in names]
        stated = _stated(costs)
        for budget, admitted in (
            (stated * (1 + 1e-9), True),
            (stated * (1 - 1e-9), False),
        ):
            accountant = PrivacyAccountant(epsilon=budget, delta=DELTA)
            for cost in costs[:-1]:
                accountant.spend(cost)
            assert accountant.can_spend(costs[-1]) is admitted, names


# --------------------------------------------------------------------------------
# Every published numeric attribute, on its own, varies with the seed (§13.1).

# The attributes that may be the same for every seed on the same data, each
# with the reason it may (the registry's ``published`` reasons decide which
# are public and which are outputs of noisy steps). A reason is either
# unconditional (public by construction, or a private choice among few
# values) or holds when ``when(estimator, value)`` does. Any other numeric
# attribute is the output of a noisy step (or post-processing of one) and
# must vary: one seed's attribute equal to every other's is a value computed
# from the data without noise.
_ALWAYS = None
MAY_STAY_THE_SAME = {
    "n_features_in_": ("public: the shape of X", _ALWAYS),
    "privacy_spent_": ("public: the budget charged", _ALWAYS),
    "privacy_parts_": ("public: the budget's split", _ALWAYS),
    "offset_": ("public: a χ² quantile at the public significance", _ALWAYS),
    "n_components_": (
        "public parameters, or a count of released eigenvalues (few values)",
        _ALWAYS,
    ),
    "_n_features_out": ("as n_components_", _ALWAYS),
    "classes_": ("public labels, or a private label set (a choice of labels)", _ALWAYS),
    "norm_bound_": (
        "public, or the private step 'norm bound', a choice on a grid (§18.2)",
        _ALWAYS,
    ),
    "X_norm_bound_": ("public, or private bounds chosen on a grid (§18.5)", _ALWAYS),
    "y_bound_": ("public, or a private bound chosen on a grid (§18.5)", _ALWAYS),
    "lower_": ("private quantiles chosen on a grid of candidates (§18.3)", _ALWAYS),
    "upper_": ("private quantiles chosen on a grid of candidates (§18.3)", _ALWAYS),
    "threshold_": ("AdaptiveCov's threshold search: a dyadic grid (§3.5)", _ALWAYS),
    # §23: where no round's step is precise enough to move the centre (or a
    # spread stands out of its noise), the centre is the midpoint of the
    # cells' box and the scale half its width: a choice among the public
    # grid's cells, which a few seeds may all make alike.
    "feature_location_": (
        "the private centre of §23: a cell box's midpoint on a public grid, "
        "moved by a noisy mean only where that is precise",
        _ALWAYS,
    ),
    "feature_scale_": (
        "the private scale of §23: half a cell box on a public grid, or a noisy "
        "spread where it stands out of its noise",
        _ALWAYS,
    ),
    "radius_": ("PrivRadius: a dyadic radius, or the public bound (§3.5)", _ALWAYS),
    "eigenvalue_floor_": (
        "public n, d, budget and the release's scale (a bound on a grid)",
        _ALWAYS,
    ),
    "alpha_": (
        "the public alpha, one of the public alphas (PrivateRidgeCV's choice), "
        "or the penalty of a public noise level; only alpha='adassp' lowers it "
        "by a private eigenvalue (§16), and not below 0",
        lambda est, value: getattr(est, "alpha", None) != "adassp" or value == 0.0,
    ),
    "location_": (
        "zero when the second moment is released (assume_centered)",
        lambda est, value: not np.any(value),
    ),
    "intercept_": (
        "zero without an intercept (fit_intercept=False)",
        lambda est, value: not np.any(value),
    ),
    "coef_": (
        "zero when a ridge model predicts its private mean (§18.5)",
        lambda est, value: not np.any(value),
    ),
    "covariance_": (
        "AutoCovariance's zero release (built from the public shape alone), or "
        "its release shrunk by a private factor 0",
        lambda est, value: (
            getattr(est, "mechanism_", None) == "zero"
            or getattr(est, "shrinkage_", None) == 0.0
        ),
    ),
    "shrinkage_": (
        "the private factor clipped to an end of [0, 1] (§3.9a)",
        lambda est, value: value in (0.0, 1.0),
    ),
    "_whitening": (
        "the released variances floored at the release's public noise level",
        lambda est, value: np.all(
            value == np.sqrt(est.release_.noise_level or np.finfo(float).tiny)
        ),
    ),
}

# Every registered variant that draws noise (the others take no seed and
# publish public values only; test_threat_model.py reviews their names).
SEEDED = [
    (name, est) for name, est in instances() if "random_state" in est.get_params()
]
SEEDS = (1, 2)


def _rows(n=2000, seed=0):
    """Rows of norms spread around 1: enough of them for the default private
    bounds (1/16 of ρ = 0.1, §18.2) to find a scale rather than fall back to
    the smallest candidate, where every release and estimate is about zero
    (or clipped to a public end) whatever the seed."""
    X = np.random.default_rng(seed).normal(size=(n, 4))
    return X * np.array([1.0, 0.7, 0.5, 0.3])


def _fit(estimator, X):
    """Fit as each kind is fit: a regressor on the last column, a classifier
    on the sign of the first."""
    if isinstance(estimator, PrivateRidge | PrivateRidgeCV):
        return estimator.fit(X[:, :-1], X[:, -1])
    if isinstance(estimator, PrivateLinearDiscriminantAnalysis | PrivateGaussianNB):
        labels = (X[:, 0] > 0).astype(int)
        return declare_labels(estimator, labels).fit(X, labels)
    return estimator.fit(X)


def _numbers(value, seen=None):
    """Every number reachable from a value (arrays, tuples, dicts, objects),
    as floats; none for a string, None or a flag."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, bool | str | None):
        return []
    if isinstance(value, int | float | np.number):
        return [float(value)]
    if isinstance(value, np.ndarray):
        return (
            value.ravel().astype(float).tolist() if value.dtype.kind in "biuf" else []
        )
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, list | tuple):
        items = value
    elif hasattr(value, "__dict__"):
        items = list(vars(value).values())
    else:
        return []
    return [number for item in items for number in _numbers(item, seen)]


def _unvarying(fits, where):
    """The published numeric attributes that are the same in every fit
    (of ``fits``, one per seed) and have no reason to be, by path."""
    first = fits[0]
    params = set(first.get_params(deep=False))
    found = []
    for attribute, value in vars(first).items():
        if attribute in params:
            continue
        path = f"{where}.{attribute}"
        if isinstance(value, BaseEstimator):  # a fitted step: each of its own
            found += _unvarying([vars(fit)[attribute] for fit in fits], path)
            continue
        numbers = [np.asarray(_numbers(vars(fit)[attribute])) for fit in fits]
        if numbers[0].size == 0:
            continue
        if not all(
            np.array_equal(numbers[0], other, equal_nan=True) for other in numbers[1:]
        ):
            continue  # it varies with the seed
        reason = MAY_STAY_THE_SAME.get(attribute)
        if reason is None or (reason[1] is not None and not reason[1](first, value)):
            found.append(path)
    return found


def test_every_reviewed_constant_is_a_published_attribute():
    allowed = {attribute for name in registry() for attribute in published(name)}
    assert set(MAY_STAY_THE_SAME) <= allowed
    for reason, _ in MAY_STAY_THE_SAME.values():
        assert isinstance(reason, str) and reason


@pytest.mark.parametrize(("name", "estimator"), SEEDED, ids=[n for n, _ in SEEDED])
def test_every_published_attribute_varies_with_the_seed(name, estimator):
    """One fit per seed on the same rows; each attribute compared on its own
    (one noisy array published beside a noise-free one does not hide it)."""
    X = _rows()
    fits = [_fit(clone(estimator).set_params(random_state=seed), X) for seed in SEEDS]
    assert _unvarying(fits, name) == []


# --------------------------------------------------------------------------------
# A worker's error names no value (§13.1), without a cluster: the functions
# that dask runs on each block and Spark on each partition, called here.

SENTINEL = 31415.926535
WORD = "SSN-123-45-6789"
_SENTINEL_TEXTS = ("31415", "3.1415", "SSN-", "45-6789")


def _assert_no_sentinel(text):
    for sentinel in _SENTINEL_TEXTS:
        assert sentinel not in text, text


def _shows_a_sentinel(text):
    return any(sentinel in text for sentinel in _SENTINEL_TEXTS)


def _everything_about(error):
    """What a worker could log or send of an error: its message, repr and
    arguments, its whole traceback with the errors chained to it, and the
    pickle that carries it to the driver (as text, whatever its bytes)."""
    texts = [str(error), repr(error), repr(error.args)]
    texts.append("".join(traceback.format_exception(error)))
    texts.append(pickle.dumps(error).decode("latin-1"))
    return "\n".join(texts)


class _QuotingArray(np.ndarray):
    """An array type whose arithmetic fails with a message that quotes its
    first value, as a third-party array type inside a block may."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise ValueError(
            f"{ufunc.__name__} cannot take {self.view(np.ndarray).flat[0]!r}"
        )


def _failing_blocks():
    """Blocks that hold a planted value and make a statistics kernel fail,
    each with an error that quotes it: a block of a quoting array type (the
    sentinel in every row, so that every chunk of it holds one), and an
    object block with a word among its numbers."""
    quoting = np.full((6, 3), SENTINEL).view(_QuotingArray)
    words = np.full((6, 3), 0.25, dtype=object)
    words[2, 1] = WORD
    return {"quoting array": quoting, "a word": words}


# The statistics kernels the engines run per block and per partition, with the
# arguments of real fits: every function handed to ``_stats._reduce``.
KERNEL_FITS = [est for _, est in instances(variants=False)]


@pytest.fixture(scope="module")
def kernels():
    calls = {}
    original = _stats._reduce

    def spy(X, sums, *args, **kwargs):
        calls.setdefault(sums.__name__, (sums, args))
        return original(X, sums, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_stats, "_reduce", spy)
        X = _rows(n=200)
        for estimator in KERNEL_FITS:
            if "random_state" in estimator.get_params():
                _fit(clone(estimator).set_params(random_state=0), X)
    # The passes of §19-§20: the second moment, the norm profile, the norm
    # counts of a private bound and the per-feature counts of a box.
    assert {
        "_gram_sums",
        "_profile_sums",
        "_norm_count_sums",
        "_feature_count_sums",
    } <= set(calls)
    return calls


def _raises(call):
    try:
        call()
    except Exception as error:
        return error
    return None


def test_a_dask_blocks_error_names_no_value(kernels, capfd, caplog):
    caplog.set_level(logging.DEBUG)
    for name, (kernel, args) in kernels.items():
        quoted = 0
        for case, block in _failing_blocks().items():
            original = _raises(lambda k=kernel, b=block, a=args: k(b, *a))
            if original is None:
                continue
            quoted += _shows_a_sentinel(_everything_about(original))
            # What the dask worker runs, and raises (logs, and sends to the
            # driver), and the driver's report of it.
            error = _raises(lambda k=kernel, b=block, a=args: _dask._on_block(k, b, *a))
            assert isinstance(error, _dask.BlockError), (name, case)
            _assert_no_sentinel(_everything_about(error))
            _assert_no_sentinel(_everything_about(pickle.loads(pickle.dumps(error))))
            assert error.type_name == type(original).__name__

            def driver(e=error):
                raise e

            report = _raises(lambda d=driver: _dask._computed(d))
            assert type(original).__name__ in str(report)
            _assert_no_sentinel(_everything_about(report))
        # The planted value did reach the kernel's own message: withheld above.
        assert quoted, name
    captured = capfd.readouterr()
    _assert_no_sentinel(captured.out + captured.err + caplog.text)


class _TaskErrors:
    """A synchronous dask scheduler that keeps every error a task raises:
    what a dask.distributed worker logs of a failed task ("Compute Failed",
    with the error's repr and traceback) and sends to the client."""

    def __init__(self):
        self.errors = []

    def __call__(self, graph, keys, **kwargs):
        import dask.local

        def keep(error, dumps):
            self.errors.append(error)
            raise error

        return dask.local.get_sync(graph, keys, pack_exception=keep, **kwargs)


def _lying_dask_arrays(da, dask):
    """Dask arrays whose blocks are not what their dtype says (the case the
    values are checked for in the first pass, after the charge): float64
    blocks of a quoting array type, an int64 array (cast to float64 block by
    block) whose block holds a word, and a float64 one whose block does."""
    quoting = np.full((8, 3), SENTINEL).view(_QuotingArray)
    words = np.full((8, 3), 1, dtype=object)
    words[3, 1] = WORD

    def loaded(block, dtype):
        return da.from_delayed(dask.delayed(lambda: block)(), (8, 3), dtype=dtype)

    return {
        "quoting float64 blocks": loaded(quoting, np.float64),
        "int64 blocks holding a word": loaded(words, np.int64),
        "float64 blocks holding a word": loaded(words, np.float64),
    }


def test_no_task_of_a_dask_pass_names_a_value(capfd, caplog):
    """Every statistics pass on dask arrays with a planted value in a block,
    on a scheduler that keeps what each failed task raised: the driver's
    error and every task's (what a worker would log) name no value."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    caplog.set_level(logging.DEBUG)
    grid = np.array([0.5, 1.0, 2.0])
    passes = {
        "second moment": lambda X: _stats.unit_ball_statistics(X, 1.0),
        "norm profile": lambda X: _stats.norm_profile(X, 1.0),
        "norm counts": lambda X: _stats.row_norm_counts(X, grid),
        "feature counts": lambda X: _stats.feature_counts(X, grid),
    }
    for case, lying in _lying_dask_arrays(da, dask).items():
        X = _dask.check_dask_array(
            lying, ensure_min_samples=1, ensure_min_features=1, owner="test"
        )
        for name, statistics in passes.items():
            tasks = _TaskErrors()
            with dask.config.set(scheduler=tasks):
                driver = _raises(lambda s=statistics, x=X: s(x))
            if driver is None:  # this pass reads nothing that fails
                continue
            assert isinstance(driver, RuntimeError), (case, name, driver)
            assert tasks.errors, (case, name)
            for error in [driver, *tasks.errors]:
                text = _everything_about(error)
                assert not _shows_a_sentinel(text), (case, name, text)
    captured = capfd.readouterr()
    _assert_no_sentinel(captured.out + captured.err + caplog.text)


def _batches(case, pa):
    """(kind, n_features, Arrow batches) of a partition that holds a planted
    value: numeric-looking columns with a word among them, or an array
    column (a list per row) with one."""
    if case == "columns":
        column = pa.array(["0.25", WORD, "0.5"])
        number = pa.array([0.25, 0.5, 0.75])
        return _spark._COLUMNS, 2, [pa.record_batch([number, column], ["a", "b"])]
    lists = pa.array([["0.25", "0.5"], [WORD, "0.5"], ["0.75", "0.5"]])
    return _spark._ARRAY, 2, [pa.record_batch([lists], ["v"])]


def _quoting_kernel(block, *args):
    """A kernel that fails quoting the block's largest value (any failure of
    a statistics function that names its input)."""
    raise ValueError(f"cannot add the row holding {np.max(block)!r}")


def test_a_spark_partitions_error_names_no_value(kernels, capfd, caplog):
    """The function mapInArrow runs on each partition, fed Arrow batches that
    make it fail: what it raises (Spark's executor logs it, and sends its
    traceback to the driver), writes and logs name no value, and the
    driver's report of Spark's failure names its type only."""
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    caplog.set_level(logging.DEBUG)
    number = pa.record_batch(
        [pa.array([0.25, SENTINEL]), pa.array([0.5, 0.5])], ["a", "b"]
    )
    cases = [
        (case, kernel, args, *_batches(case, pa))
        for case in ("columns", "array")
        for kernel, args in kernels.values()
    ]
    cases.append(("quoting kernel", _quoting_kernel, (), _spark._COLUMNS, 2, [number]))
    # The planted word reaches the conversion's own message: withheld below.
    kind, n_features, batches = _batches("columns", pa)
    converted = _raises(lambda: _spark._CONVERTERS[kind](batches[0], n_features))
    assert _shows_a_sentinel(str(converted))
    for case, kernel, args, kind, n_features, batches in cases:
        partition = _spark._partition_sums(kind, n_features, kernel, args)
        error = _raises(lambda p=partition, b=batches: list(p(iter(b))))
        assert isinstance(error, RuntimeError), (case, kernel.__name__)
        everything = _everything_about(error)
        assert _spark._PASS_FAILED in everything
        _assert_no_sentinel(everything)

        # Spark's report of the failed task holds the partition's traceback.
        def job(text=everything):
            raise RuntimeError(f"Job aborted: PythonException: {text}")

        report = _raises(
            lambda j=job: _spark._run(j, what="computing the statistics of")
        )
        assert str(report).startswith("Spark failed computing"), str(report)
        _assert_no_sentinel(_everything_about(report))
    captured = capfd.readouterr()
    _assert_no_sentinel(captured.out + captured.err + caplog.text)

"""Exact fixed-point statistics (docs/algorithms.rst §19).

The integers of every pass are checked against Python-int arithmetic on
adversarial rows; the same rows in every input format and chunking give the
same integers, hence the same release bit for bit; the noise of the default
(hardened) path is at its nominal scale at every n ≤ 2^50, computed from the
public plan.
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from skprivcov import (
    AdaptiveCovariance,
    AutoCovariance,
    GaussianCovariance,
    LaplaceCovariance,
)
from skprivcov._data import _statistics as _stats
from skprivcov._data._exact import (
    BLOCK_ROWS,
    FRACTION_BITS,
    SHRINK,
    UNIT,
    ExactStatistic,
    ExactTotal,
)
from skprivcov._data._statistics import unit_ball_statistics
from skprivcov.base import ClippedData
from skprivcov.decomposition import PrivatePCA
from skprivcov.mechanisms import (
    gaussian_covariance,
    laplace_covariance,
    second_moment_l1_sensitivity,
    second_moment_l2_sensitivity,
)
from skprivcov.mechanisms.noise._discrete import discrete_gaussian, words_of
from skprivcov.mechanisms.noise._generators import release_generator
from skprivcov.mechanisms.noise._hardened import exact_noise_plan, gram_error_bound
from skprivcov.privacy import PrivacyCost

K = FRACTION_BITS
ONE = 1 << (2 * K)  # Σ a_j² of a row on the unit sphere, in grid units


def _reference_row(row, norm_bound):
    """The grid integers of one row, in Python arithmetic, as §19 defines them:
    the norm summed left to right in float64, the factor c·2^k/max(‖x‖, B),
    the nearest integers, or truncation when those leave the ball."""
    total = 0.0
    for value in row:
        total += value * value
    factor = (SHRINK * UNIT) / max(math.sqrt(total), norm_bound)
    scaled = [value * factor for value in row]
    nearest = [round(value) for value in scaled]  # ties to even, as np.rint
    if sum(a * a for a in nearest) <= ONE:
        return nearest
    return [math.trunc(value) for value in scaled]


def _reference(X, norm_bound):
    """(Σ a aᵀ, Σ a, per-row Σ a²) in Python ints."""
    rows = [_reference_row(row, norm_bound) for row in np.asarray(X, dtype=float)]
    d = len(rows[0])
    gram = [[sum(r[j] * r[k] for r in rows) for k in range(d)] for j in range(d)]
    sums = [sum(r[j] for r in rows) for j in range(d)]
    return gram, sums, [sum(a * a for a in r) for r in rows]


def _adversarial(rng, n, d):
    """Rows at the edge of the grid: coordinates 2^k − 1 units, mixed signs,
    norms exactly 1 and just above, thirds, wildly different magnitudes, and
    rows whose nearest integers leave the ball."""
    kind = rng.integers(5)
    if kind == 0:
        X = rng.choice([1 / 3, -1 / 3, 1e-8 / 3, 0.1, -0.7], size=(n, d))
    elif kind == 1:
        X = np.zeros((n, d))
        X[:, 0] = (2.0**K - 1) / 2.0**K * rng.choice([-1.0, 1.0], size=n)
        X[::2, 1 % d] = 2.0**-K * 0.5
    elif kind == 2:
        X = rng.normal(size=(n, d)) * np.logspace(0, -12, d)
    elif kind == 3:
        # Half-units everywhere: nearest rounding overshoots the sphere.
        X = (rng.integers(1, 2**K, size=(n, d)) + 0.5) * rng.choice([-1, 1], (n, d))
    else:
        X = rng.uniform(-1.0, 1.0, size=(n, d))
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    X = X / np.where(norms > 0, norms, 1.0) * rng.choice([1.0, 1 + 2.0**-52], (n, 1))
    return X


@pytest.mark.parametrize("seed", range(6))
def test_the_integers_are_exactly_the_python_ones(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(30, 120)), int(rng.integers(1, 6))
    X = _adversarial(rng, n, d)
    bound = float(rng.choice([1.0, 0.5, 3.0]))
    stats = unit_ball_statistics(X, bound, with_mean=True)
    gram, sums, squares = _reference(X, bound)
    assert stats.gram.integers().tolist() == gram
    assert stats.sums.integers().tolist() == sums
    # Every row in the unit ball exactly: the sensitivity is the paper's.
    assert max(squares) <= ONE
    assert stats.squared_units == sum(squares)
    # The float value: within gram_error_bound of the exact statistic.
    exact = [[Fraction(v, n * ONE) for v in row] for row in gram]
    computed = stats.second_moment
    gap = math.sqrt(
        sum(
            float((Fraction(float(computed[j, k])) - exact[j][k]) ** 2)
            for j in range(d)
            for k in range(d)
        )
    )
    assert gap <= gram_error_bound(n, d)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 97])
@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_the_threads_and_blocks_do_not_change_the_integers(n, threads):
    """Each thread owns whole blocks and the totals are added exactly: any
    number of threads and any block size give the Python integers, including
    no rows (an empty dask block) and fewer blocks than threads."""
    rng = np.random.default_rng(n)
    X = _adversarial(rng, n, 3) if n else np.empty((0, 3))
    gram, sums, _ = _reference(X, 1.0) if n else ([[0] * 3] * 3, [0] * 3, [])
    for chunk_rows in (1, 2, 7, None):
        rows = _stats._rows_per_chunk(3, chunk_rows)
        total, mean, n_bad = _stats._dense_gram(X, 1.0, rows, True, "zero", threads)
        assert total.integers().tolist() == gram
        assert mean.integers().tolist() == sums
        assert n_bad == 0


def test_rows_whose_nearest_integers_leave_the_ball_are_truncated():
    """A unit row whose nearest integers have Σ a² > 2^{2k} (found among rows
    of half-units) is truncated, and stays inside; a row strictly inside keeps
    its nearest integers."""
    rng = np.random.default_rng(2)
    for _ in range(1000):
        row = (rng.integers(1, 2**K, size=3) + 0.5) * rng.choice([-1, 1], 3)
        row /= np.linalg.norm(row)
        scaled = [
            v * ((SHRINK * UNIT) / max(math.sqrt(sum(row * row)), 1.0)) for v in row
        ]
        if sum(round(v) ** 2 for v in scaled) > ONE:
            break
    else:
        raise AssertionError("no overshooting row found")
    stats = unit_ball_statistics(row[None, :], 1.0)
    truncated = [math.trunc(v) for v in scaled]
    assert int(stats.gram.integers().trace()) == sum(a * a for a in truncated) <= ONE
    inside = unit_ball_statistics(0.5 * row[None, :], 1.0)
    nearest = [round(v * 0.5) for v in scaled]
    assert int(inside.gram.integers().trace()) == sum(a * a for a in nearest)


def test_blocks_of_the_gemm_stay_below_two_to_the_53():
    """S·2^{2k} ≤ 2^53: a block's every partial sum of a Gram entry is exact."""
    assert BLOCK_ROWS * ONE <= 2**53
    # The worst block: every row the same unit vector of one coordinate.
    X = np.zeros((BLOCK_ROWS * 2 + 3, 2))
    X[:, 0] = 1.0
    stats = unit_ball_statistics(X, 1.0)
    row = _reference_row(X[0], 1.0)
    assert stats.gram.integers()[0, 0] == len(X) * row[0] ** 2


def test_exact_totals_add_shift_and_convert_like_python_ints():
    rng = np.random.default_rng(3)
    values = [int(v) for v in rng.integers(-(2**62), 2**62, size=40)]
    total = ExactTotal((40,))
    expected = [0] * 40
    for _ in range(300):  # 300 additions of up to 2^61: carries on the way
        step = rng.integers(-(2**61), 2**61, size=40)
        total.add(step, 2**61)
        expected = [e + int(s) for e, s in zip(expected, step, strict=True)]
    assert total.integers().tolist() == expected
    other = ExactTotal.from_integers(np.array(values, dtype=object) << 20)
    both = total + other
    assert both.integers().tolist() == [
        e + (v << 20) for e, v in zip(expected, values, strict=True)
    ]
    for bits in (1, 7, 31, 32, 33, 45):
        shifted = both.rounded_down_shift(bits).integers().tolist()
        half = 1 << (bits - 1)
        assert shifted == [(v + half) >> bits for v in both.integers().tolist()]
    assert both.scaled(8).integers().tolist() == [
        v << 8 for v in both.integers().tolist()
    ]
    # The float value: within 2 roundings of the exact one.
    for value, exact in zip(both.to_float(2.0**-40), both.integers(), strict=True):
        assert abs(Fraction(float(value)) - Fraction(int(exact), 2**40)) <= abs(
            Fraction(int(exact), 2**40)
        ) * Fraction(2, 2**53)


# --- One release from every format ----------------------------------------------------


def _formats(X):
    """The same rows as every input the library accepts (duplicates included)."""
    import dask.array as da

    coo = sparse.coo_matrix(X)
    # Split every stored value into two duplicates (a sum of two floats is exact
    # when one of them is a power-of-two fraction of the other).
    half = coo.data * 0.5
    duplicated = sparse.coo_matrix(
        (
            np.concatenate([half, coo.data - half]),
            (np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col])),
        ),
        shape=X.shape,
    )
    return {
        "C": X,
        "F": np.asfortranarray(X),
        "DataFrame": pd.DataFrame(X),
        "CSR": sparse.csr_matrix(X),
        "CSC": sparse.csc_matrix(X),
        "COO with duplicates": duplicated,
        "CSR with duplicates": duplicated.tocsr(),
        "CSC with duplicates": duplicated.tocsc(),
        "dask, one chunk": da.from_array(X, chunks=X.shape),
        "dask, 37 rows": da.from_array(X, chunks=(37, X.shape[1])),
        "dask, uneven, split columns": da.from_array(
            X, chunks=((100, 1, 250, X.shape[0] - 351), (2, X.shape[1] - 2))
        ),
        "dask of CSR blocks": da.from_array(X, chunks=(64, X.shape[1])).map_blocks(
            sparse.csr_matrix
        ),
    }


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(21)
    X = rng.normal(size=(600, 5)) * [1.0, 2.0, 0.5, 3.0, 1e-3] + [0, 0, 4, 0, 0]
    X[rng.random(X.shape) < 0.3] = 0.0  # sparse enough to be worth storing so
    return X


def test_every_format_gives_the_same_integers(rows):
    reference = unit_ball_statistics(rows, 2.5, with_mean=True)
    for name, X in _formats(rows).items():
        if name == "DataFrame":
            X = X.to_numpy()
        stats = unit_ball_statistics(X, 2.5, with_mean=True, chunk_rows=53)
        assert np.array_equal(stats.gram.integers(), reference.gram.integers()), name
        assert np.array_equal(stats.sums.integers(), reference.sums.integers()), name
        np.testing.assert_array_equal(stats.second_moment, reference.second_moment)


def test_float32_and_memmap_give_the_float64_integers(rows, tmp_path):
    narrow = rows.astype(np.float32)
    stored = np.lib.format.open_memmap(
        tmp_path / "rows.npy", mode="w+", dtype=np.float32, shape=rows.shape
    )
    stored[...] = narrow
    reference = unit_ball_statistics(narrow.astype(np.float64), 1.0)
    for X in (narrow, stored, np.asfortranarray(narrow)):
        stats = unit_ball_statistics(X, 1.0, chunk_rows=17)
        assert np.array_equal(stats.gram.integers(), reference.gram.integers())


ESTIMATORS = [
    GaussianCovariance(rho=0.5),
    GaussianCovariance(rho=0.5, norm_bound=2.0, noise="float"),
    LaplaceCovariance(epsilon=2.0),
    AdaptiveCovariance(rho=0.5),
    AutoCovariance(rho=0.5),
    PrivatePCA(n_components=2, estimator=GaussianCovariance(rho=0.5)),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_every_format_gives_the_same_release_bit_for_bit(rows, estimator):
    from sklearn.base import clone

    def release(X):
        fitted = clone(estimator).set_params(random_state=7).fit(X)
        if hasattr(fitted, "components_"):
            return fitted.components_, fitted.mean_
        return fitted.covariance_, fitted.location_

    reference = release(rows)
    for name, X in _formats(rows).items():
        for got, want in zip(release(X), reference, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=name)


# --- The hardened release is a function of noisy integers -----------------------------


def test_hardened_noise_is_added_to_the_integers(rows):
    """The release is ExactTotal(T + Z).to_float(1/D) with Z the discrete
    Gaussian draws of the plan, on the statistic's own integers: no rounding
    of the statistic, no float error term (σ at its nominal value)."""
    stats = unit_ball_statistics(rows, 2.0)
    moment = stats.second_moment
    n, d = len(rows), rows.shape[1]
    budget = PrivacyCost.zcdp(0.5)
    release, _ = gaussian_covariance(
        moment, n, budget, release_generator(4, "hardened")
    )
    total, denominator = moment.exact
    sensitivity = second_moment_l2_sensitivity(n) * denominator
    plan = exact_noise_plan(sensitivity, budget, d * (d + 1) // 2)
    assert plan.grid == 1.0  # no rounding at all
    draws, _ = discrete_gaussian(
        plan.units, d * (d + 1) // 2, words_of(release_generator(4, "hardened"))
    )
    upper = np.triu_indices(d)
    expected = total.integers()[upper] + draws
    got = release[upper] * denominator
    np.testing.assert_allclose(got.astype(float), expected.astype(float), rtol=2**-50)
    # A float matrix (no integers attached) still goes to its grid (§17).
    plain, _ = laplace_covariance(
        np.asarray(moment), n, PrivacyCost.pure(1.0), release_generator(4, "hardened")
    )
    assert not isinstance(plain, ExactStatistic) or plain.exact is None


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
@pytest.mark.parametrize("d", [10, 100, 1000])
def test_the_noise_has_its_nominal_scale_at_every_n(notion, d):
    """From the public plan: the discrete scale over the nominal one (Δ/√(2ρ) or
    Δ/ε) is 1 up to 2^−12 at every n ≤ 2^50, for every budget from 1e−6 to 1e4
    (it was ×4.1 at n = 1e8 and ×315 at 1e9 with the float Gram's depth)."""
    m = d * (d + 1) // 2
    worst = 0.0
    for n in [10**3, 10**6, 10**8, 10**9, 10**12, 2**50]:
        denominator = n << (2 * K)
        for parameter in (1e-6, 1e-2, 1.0, 1e4):
            if notion == "zcdp":
                budget = PrivacyCost.zcdp(parameter)
                sensitivity = second_moment_l2_sensitivity(n)
                nominal = sensitivity / math.sqrt(2 * parameter)
            else:
                budget = PrivacyCost.pure(parameter)
                sensitivity = second_moment_l1_sensitivity(d, n)
                nominal = sensitivity / parameter
            plan = exact_noise_plan(sensitivity * denominator, budget, m)
            scale = plan.units * plan.grid / denominator
            ratio = scale / nominal
            assert 1.0 <= ratio
            worst = max(worst, ratio)
            assert plan.discrete_cost() <= Fraction(parameter)
    assert worst <= 1.0 + 2.0**-12


def test_lda_class_sums_are_exact_over_all_rows():
    """A class's statistic is its integers over the denominator of all n rows."""
    from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis

    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0.3).astype(int)
    lda = PrivateLinearDiscriminantAnalysis(rho=1.0, norm_bound=3.0)
    moment = lda._class_moment(X, y == 1, 3.0)
    data = ClippedData(X[y == 1], augmented=True, nonfinite="raise")
    total, denominator = data.target(3.0).matrix.exact
    assert moment.exact[1] == denominator // (y == 1).sum() * len(X)
    assert np.array_equal(moment.exact[0].integers(), total.integers())


def test_an_empty_lda_class_is_noised_on_the_lattice_of_the_others():
    """A class without rows (possible with public ``classes``) is an exact zero
    over the same denominator, so its hardened noise has the same law as a
    class with rows: the release times the denominator is an integer for both
    (a float zero took the float path, on another lattice, and told that the
    class was empty; review of issue 34)."""
    from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
    from skprivcov.discriminant_analysis._lda import _noisy_class_sum

    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 3))
    y = np.zeros(200, dtype=int)
    y[0] = 1
    lda = PrivateLinearDiscriminantAnalysis(rho=1.0, norm_bound=2.0)
    budget = PrivacyCost.zcdp(1.0)
    for label in (1, 2):  # one row, and none
        moment = lda._class_moment(X, y == label, 2.0)
        assert moment.exact is not None
        denominator = moment.exact[1]
        assert denominator == 200 << (2 * K + 1)
        release = _noisy_class_sum(
            moment, 200, budget, release_generator(label, "hardened"), 3, object()
        )
        # Integers up to the float value's few roundings (4 ulps of the
        # product); a float-path release has fractional parts all over [0, 1).
        units = release * denominator
        slack = 4 * 2.0**-53 * np.abs(units) + 1e-12
        assert np.all(np.abs(units - np.rint(units)) <= slack)


def test_an_exact_statistic_cannot_be_changed_in_place():
    """Its integers would go stale, and hardened noise would release them
    (review of issue 34)."""
    moment = unit_ball_statistics(np.eye(3), 1.0).second_moment
    with pytest.raises(ValueError, match="read-only"):
        moment *= 2.0
    with pytest.raises(ValueError, match="read-only"):
        np.fill_diagonal(np.asarray(moment), 9.0)


def test_totals_beyond_two_to_the_85_are_rounded_once():
    values = np.array([(1 << 90) + (1 << 37) + 1, -(1 << 88) - 3, 5], dtype=object)
    total = ExactTotal.from_integers(values)
    converted = total.to_float(1.0)
    assert converted.tolist() == [float(int(v)) for v in values]

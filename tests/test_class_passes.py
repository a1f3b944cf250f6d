"""Per-class statistics in one pass whose work does not depend on the split
(docs/threat_model.rst: class sizes are private; an empty class is released
exactly as the others).

The kernel is instrumented: every call that puts rows on the grid (dense
tiles, sparse blocks) and every product (the one-hot products of the blocks,
the per-class rank-k updates, the sparse per-class products) is recorded
with the rows it receives. A y and its neighbour that moves one row into an
empty public class must make the same calls on the same number of rows.
Run with ``-n 0`` or not: the patches are per test (monkeypatch).
"""

import tracemalloc

import numpy as np
import pytest
from scipy import sparse

from skprivcov._data import _statistics as _stats
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.naive_bayes import PrivateGaussianNB

try:  # the one-pass kernel (absent before it)
    from skprivcov._data import _class_statistics as _class_stats
except ImportError:  # pragma: no cover
    _class_stats = None


def _shape(matrix):
    return tuple(matrix.shape)


def _instrument(monkeypatch):
    """Record the grid and product calls of a fit: a list of (kind, what)."""
    calls = []
    dense_integers = _stats._DenseGrid.integers

    def grid(self, x, norm_bound, out):
        calls.append(("dense grid", len(x)))
        return dense_integers(self, x, norm_bound, out)

    monkeypatch.setattr(_stats._DenseGrid, "integers", grid)
    modules = [module for module in (_stats, _class_stats) if module is not None]
    for module in modules:
        if hasattr(module, "_integer_csr_block"):
            original = module._integer_csr_block

            def sparse_grid(block, norm_bound, _original=original):
                calls.append(("sparse grid", block.shape[0], block.nnz))
                return _original(block, norm_bound)

            monkeypatch.setattr(module, "_integer_csr_block", sparse_grid)
        if hasattr(module, "syrk_upper"):
            original = module.syrk_upper

            def syrk(rows, out, beta, _original=original):
                # The rows multiplied, counted below in total per product.
                calls.append(("syrk", _shape(out), rows.shape[0]))
                return _original(rows, out, beta)

            monkeypatch.setattr(module, "syrk_upper", syrk)
    if _class_stats is not None:
        original = _class_stats._class_product

        def product(left, right):
            nnz = right.nnz if sparse.issparse(right) else right.size
            calls.append(("product", _shape(left), _shape(right), nnz))
            return original(left, right)

        monkeypatch.setattr(_class_stats, "_class_product", product)
    return calls


def _summary(calls):
    """What must not depend on the split: every grid call and the rows it
    gets, in order; the number of rank-k updates and of products, their
    shapes and the total rows (and sparse non-zeros) they multiply. (One
    class's k is its segment's size; their sum is what is fixed.)"""
    grids = [call for call in calls if call[0].endswith("grid")]
    syrks = [call for call in calls if call[0] == "syrk"]
    products = [call for call in calls if call[0] == "product"]
    return {
        "grid": grids,
        "syrk calls": len(syrks),
        "syrk rows": sum(call[2] for call in syrks),
        "syrk shapes": sorted({call[1] for call in syrks}),
        "product calls": len(products),
        "product shapes": sorted({(call[1][0], call[2][1]) for call in products}),
        "product rows": sum(call[2][0] for call in products),
        "product values": sum(call[3] for call in products),
    }


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[::9] *= 20  # some rows clipped
    y = rng.integers(0, 2, n)  # public classes 0, 1, 2; 2 empty
    moved = y.copy()
    moved[17] = 2  # one row moved into the empty class
    return X, y, moved


ESTIMATORS = {
    "PrivateGaussianNB": lambda: PrivateGaussianNB(
        classes=[0, 1, 2], rho=1.0, norm_bound=2.0, random_state=0
    ),
    "LDA diagonal": lambda: PrivateLinearDiscriminantAnalysis(
        classes=[0, 1, 2],
        rho=1.0,
        norm_bound=2.0,
        covariance="diagonal",
        random_state=0,
    ),
    "LDA full": lambda: PrivateLinearDiscriminantAnalysis(
        classes=[0, 1, 2],
        rho=1.0,
        norm_bound=2.0,
        covariance="full",
        random_state=0,
    ),
    "LDA shrunk": lambda: PrivateLinearDiscriminantAnalysis(
        classes=[0, 1, 2],
        rho=1.0,
        norm_bound=2.0,
        covariance="shrunk",
        random_state=0,
    ),
}
FORMATS = {
    "dense": lambda X: X,
    "float32 F": lambda X: np.asfortranarray(X, dtype=np.float32),
    "csr": sparse.csr_matrix,
    "csc": sparse.csc_matrix,
}


def _fit_calls(monkeypatch, make, X, y):
    with monkeypatch.context() as patch:
        calls = _instrument(patch)
        make().fit(X, y)
    return _summary(calls)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("form", FORMATS)
def test_the_work_does_not_tell_an_empty_class(monkeypatch, name, form):
    """The same grid calls on the same rows, the same number of products on
    the same total rows, whether class 2 is empty or holds one row."""
    X, y, moved = _data()
    if form in ("csr", "csc"):
        X[np.abs(X) < 0.7] = 0.0
    X = FORMATS[form](X)
    make = ESTIMATORS[name]
    before = _fit_calls(monkeypatch, make, X, y)
    after = _fit_calls(monkeypatch, make, X, moved)
    assert before["grid"], "the fit put no row on the grid"
    assert before["syrk calls"] or before["product calls"]
    assert before == after


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_row_is_put_on_the_grid_once(monkeypatch, name):
    """One pass: the dense grid gets the n rows once (the norm bound is
    public, so no other pass reads them)."""
    X, y, _ = _data(n=2500, d=7)
    summary = _fit_calls(monkeypatch, ESTIMATORS[name], X, y)
    assert sum(call[1] for call in summary["grid"]) == len(X)


def test_the_work_does_not_depend_on_the_split(monkeypatch):
    """Beyond one row: a balanced split, everything in one class, and a
    split over several blocks (n > 8 192 rows) all make the same calls."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9000, 4))
    splits = [rng.integers(0, 3, 9000), np.zeros(9000, dtype=int)]
    splits.append(np.where(np.arange(9000) < 8500, 2, 1))
    for name, make in ESTIMATORS.items():
        summaries = [_fit_calls(monkeypatch, make, X, y) for y in splits]
        assert summaries[0] == summaries[1] == summaries[2], name


def test_naive_bayes_makes_no_gram_matrix():
    """The per-class squares are sums of squares, not a Gram's diagonal: at
    d = 2000 with 3 classes the fit's peak allocation stays far below one
    d × d float64 matrix per class (3·d²·8 bytes, 96 MB; the per-class
    passes allocated several d × d arrays per class)."""
    d, n = 2000, 1500
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 3, n)
    clf = PrivateGaussianNB(rho=1.0, norm_bound=50.0, random_state=0)
    tracemalloc.start()
    try:
        clf.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * d * d * 8 / 4, peak


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("form", ["dense", "csr"])
def test_a_nonfinite_row_is_refused_after_every_row(monkeypatch, name, form):
    """``nonfinite="raise"``: the refusal comes after the whole pass (every
    row on the grid), whichever class holds the bad row; "zero" fits."""
    X, y, _ = _data(n=800)
    X[3, 1] = np.nan
    X = FORMATS[form](X)
    with monkeypatch.context() as patch:
        calls = _instrument(patch)
        with pytest.raises(ValueError, match="NaN or infinity"):
            ESTIMATORS[name]().fit(X, y)
    grids = [call for call in calls if call[0].endswith("grid")]
    assert sum(call[1] for call in grids) == 800
    ESTIMATORS[name]().set_params(nonfinite="zero").fit(X, y)

"""How much of a release is noise, and the warning when it is most of it.

docs/algorithms.rst §23 ("No silent empty release"): the ratio of a release's
largest eigenvalue to the public noise level of its budget
(:func:`skprivcov.mechanisms.noise_level`, §15) is post-processing of the
release and public facts (n, d, the budget, the published bound), so it may be
published and warned about. Below ``NOISE_DOMINATED_RATIO`` the release is
mostly noise: measured on raw tables (``benchmarks/bench_noise_warning.py``),
every fit whose relative error reached 0.9 of the zero matrix's had a ratio
below it.

The warnings of a fit are collected while it runs and issued once its release
is kept (``collected_warnings``, ``issue_warnings``): under warnings-as-errors a
paid-for release is never lost to its own diagnostic. A private search runs
its candidates ``silenced_warnings()``: a per-thread (context) flag, not the
process-wide warning filters, which another thread may restore meanwhile.
"""

import contextlib
import contextvars
import math
import os
import sys
import warnings

import joblib
import numpy as np
import sklearn
from scipy.linalg import eigvalsh
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from skprivcov.mechanisms import noise_level
from skprivcov.privacy import NoiseDominatedWarning

__all__ = [
    "NOISE_DOMINATED_RATIO",
    "collected_warnings",
    "issue_warnings",
    "signal_to_noise",
    "silenced_warnings",
    "warn_if_bound_on_grid_edge",
    "warn_if_noise_dominated",
]

# The ratio below which a release is mostly noise (docs/algorithms.rst §23):
# measured (benchmarks/bench_noise_warning.py).
NOISE_DOMINATED_RATIO = 4.0

# Above this dimension the largest eigenvalue is found by Lanczos iterations
# (O(d²) each) instead of a full eigendecomposition (O(d³)).
_LANCZOS_FROM = 256


def _largest_magnitude(matrix):
    """The largest |eigenvalue| of a symmetric matrix (its spectral norm)."""
    d = matrix.shape[0]
    if d == 0 or not np.any(matrix):
        return 0.0
    if d >= _LANCZOS_FROM:
        # A fixed start vector: the same release gives the same ratio. The
        # fit stores its release after this (it was paid for): Lanczos
        # iterations that do not converge fall back to the full
        # decomposition below, never raise.
        try:
            value = eigsh(
                matrix, k=1, which="LM", v0=np.ones(d), return_eigenvectors=False
            )
            return float(abs(value[0]))
        except ArpackNoConvergence:
            pass
    values = eigvalsh(matrix, check_finite=False)
    return float(max(abs(values[0]), abs(values[-1])))


def signal_to_noise(covariance, scale, n_samples, n_features, budget):
    """The release's largest eigenvalue over the noise level of its budget.

    ‖covariance‖₂ / (scale²·``noise_level(n_samples, n_features, budget)``):
    post-processing of the release and public facts (docs/algorithms.rst §23).
    About 1 for a release of noise alone (about 2 when centred), 0 for the
    zero matrix.

    Parameters
    ----------
    covariance : ndarray of shape (d, d)
        The release, in the units of the data.
    scale : float
        The clipping bound of the release (published as ``norm_bound_``).
    n_samples, n_features : int
        The public shape.
    budget : PrivacyCost
        The budget of the release (without the private bound's part).

    Returns
    -------
    ratio : float
        Non-negative; 0 when the noise level is infinite or zero.
    """
    level = scale**2 * noise_level(n_samples, n_features, budget)
    if not (0.0 < level < math.inf):
        return 0.0
    return _largest_magnitude(np.asarray(covariance, dtype=np.float64)) / level


def _what_would_change_it(ratio, n_samples, budget):
    """The rows, or the budget, at which the ratio would reach the threshold
    if the released signal stayed as it is (a lower bound: the release is
    mostly noise). The noise level falls as 1/n, and as 1/√ρ (zCDP) or 1/ε
    (pure ε-DP)."""
    factor = NOISE_DOMINATED_RATIO / ratio
    times = factor**2 if budget.notion == "zcdp" else factor
    if not (math.isfinite(times) and n_samples * factor < 1e15):
        return "more rows or a larger budget"
    rows = math.ceil(n_samples * factor)
    return f"at least about {rows} rows, or a budget about {times:.3g} times this one"


def _user_stacklevel():
    """The stack level of the first frame outside skprivcov and scikit-learn:
    the warning points at the user's call to ``fit``."""
    level, frame = 1, sys._getframe(1)
    while frame is not None:
        name = os.path.normcase(frame.f_code.co_filename)
        if not any(part in name for part in _LIBRARY_PARTS):
            return level
        level, frame = level + 1, frame.f_back
    return level


_LIBRARY_PARTS = tuple(
    os.path.normcase(os.path.join(package, ""))
    for package in (
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        os.path.dirname(os.path.abspath(sklearn.__file__)),
        os.path.dirname(os.path.abspath(joblib.__file__)),
    )
)

# The messages of the fit running in this context (None: no fit collects),
# and whether this context's warnings are dropped (a private search's runs).
_PENDING = contextvars.ContextVar("skprivcov_pending_warnings", default=None)
_SILENT = contextvars.ContextVar("skprivcov_silent_warnings", default=False)


def _report(message):
    """Drop ``message`` when silenced, hold it for the fit collecting, or
    warn it now."""
    if _SILENT.get():
        return
    pending = _PENDING.get()
    if pending is not None:
        pending.append(message)
        return
    warnings.warn(message, NoiseDominatedWarning, stacklevel=_user_stacklevel())


@contextlib.contextmanager
def collected_warnings():
    """Hold the warnings of the fit running inside; yields their list, for
    :func:`issue_warnings` once the fit's release is kept (a fit that raises
    keeps nothing, and its warnings go with it)."""
    pending = []
    token = _PENDING.set(pending)
    try:
        yield pending
    finally:
        _PENDING.reset(token)


def issue_warnings(messages):
    """Issue the held ``messages``: to an outer fit that collects (a model
    fitting its covariance estimator), or as warnings."""
    for message in messages:
        _report(message)


@contextlib.contextmanager
def silenced_warnings():
    """Drop the library's warnings in this context: a private search's runs,
    whose warnings would tell how many runs there were and a losing
    candidate's release (docs/algorithms.rst §14)."""
    token = _SILENT.set(True)
    try:
        yield
    finally:
        _SILENT.reset(token)


def warn_if_noise_dominated(name, ratio, n_samples, budget):
    """Warn :class:`~skprivcov.privacy.NoiseDominatedWarning` when ``ratio``
    is below ``NOISE_DOMINATED_RATIO``; the message names the n or the
    budget that would change that (docs/algorithms.rst §23)."""
    if ratio >= NOISE_DOMINATED_RATIO:
        return
    if ratio == 0.0:
        what = (
            f"{name} released the zero matrix: the noise level of its budget at "
            f"n = {n_samples} is above what it could resolve"
        )
        change = "more rows or a larger budget"
    else:
        what = (
            f"{name}'s release is mostly noise: its largest eigenvalue is "
            f"{ratio:.2g} times the noise level of its budget (signal_to_noise_; "
            f"below {NOISE_DOMINATED_RATIO:g} the error is typically that of "
            "releasing nothing)"
        )
        change = _what_would_change_it(ratio, n_samples, budget)
    _report(
        f"{what}. {change.capitalize()} would change that; so would a public "
        "norm_bound near the data's norms (docs/choosing_bounds.rst)."
    )


def warn_if_bound_on_grid_edge(name, bound, grid):
    """Warn when a private bound is the lowest positive or the highest
    candidate of its public grid (docs/algorithms.rst §18.2, §23): its step
    found no quantile inside the grid, and the rows are clipped to a bound
    that says nothing of their spread."""
    positive = grid[grid > 0]
    if positive.size == 0 or bound not in (positive[0], positive[-1]):
        return
    edge = "lowest" if bound == positive[0] else "highest"
    _report(
        f"{name}'s private norm bound is the {edge} candidate of its grid "
        f"({bound:.3g}): at this budget and n the private bound could not place "
        "itself inside the grid, so the release is mostly clipping or noise. Give "
        "a public norm_bound, or a bound range around the data's norms "
        "(docs/choosing_bounds.rst)."
    )

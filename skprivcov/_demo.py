"""A short demonstration on a dataset bundled with scikit-learn (no download)."""

import numpy as np
from sklearn.datasets import load_digits

from skprivcov.utils import registry

__all__ = ["plot_demo", "run_demo"]

# load_digits: 8×8 images with pixel values in 0..16, a range published with the
# dataset. A row therefore has norm at most 16·8 = 128; a data curator who accepts
# clipping the rare brightest images may choose a smaller bound. Both are public
# choices, not read from the data.
_NORM_BOUND = 80.0
RHOS = (0.01, 0.1, 1.0, 10.0, 100.0)
# What the demo leads with: the estimator to use when unsure.
_LEAD = "AutoCovariance"


def _estimators(rho, seed):
    """One estimator per mechanism at a common zCDP footing: a pure mechanism
    gets ε = √(2ρ), since pure ε-DP implies ε²/2-zCDP (docs/algorithms.rst §7)."""
    common = {"norm_bound": _NORM_BOUND, "assume_centered": False, "random_state": seed}
    epsilon = float(np.sqrt(2.0 * rho))
    budgets = {"zcdp": {"rho": rho}, "pure": {"epsilon": epsilon}}
    # The recommended estimator first (docs/choosing.rst), then the others.
    entries = sorted(registry().values(), key=lambda entry: entry.name != _LEAD)
    estimators = {}
    # The zCDP mechanisms, then the pure ones, then those that spend nothing.
    for kind, suffix in (("zcdp", ""), ("pure", " (ε=√2ρ)")):
        for entry in entries:
            if kind in entry.demo_budgets:
                name = entry.name + (" (recommended)" if entry.name == _LEAD else "")
                estimators[name + suffix] = entry.make(**budgets[kind], **common)
    for entry in entries:
        if "free" in entry.demo_budgets:
            estimators[entry.name] = entry.make(assume_centered=False)
    return estimators


def run_demo(print_fn=print, n_repeats=3, rhos=RHOS):
    """Print the relative Frobenius error of every mechanism against ρ.

    The reference is the non-private centred covariance of the clipped rows
    (the quantity the mechanisms target); the error is averaged over
    ``n_repeats`` seeds. Returns ``{estimator name: {ρ: [errors]}}``.
    """
    X = load_digits().data
    norms = np.linalg.norm(X, axis=1)
    clipped = X * np.minimum(1.0, _NORM_BOUND / norms)[:, None]
    reference = np.cov(clipped, rowvar=False, bias=True)
    scale = np.linalg.norm(reference)
    print_fn(
        f"load_digits: n={X.shape[0]}, d={X.shape[1]}, public norm bound "
        f"{_NORM_BOUND:g}; relative Frobenius error of the centred covariance "
        f"(mean of {n_repeats} seeds)"
    )
    header = f"{'estimator':<34}" + "".join(f"{f'rho={rho:g}':>11}" for rho in rhos)
    print_fn(header)
    rows = {}
    for rho in rhos:
        for seed in range(n_repeats):
            for name, estimator in _estimators(rho, seed).items():
                error = np.linalg.norm(estimator.fit(X).covariance_ - reference)
                rows.setdefault(name, {}).setdefault(rho, []).append(error / scale)
    for name, errors in rows.items():
        print_fn(
            f"{name:<34}" + "".join(f"{np.mean(errors[rho]):>11.3f}" for rho in rhos)
        )
    return rows


def plot_demo(rows, path):
    """Write the errors of :func:`run_demo` against ρ as a PNG at ``path``.

    Uses matplotlib's object-oriented API without pyplot, so the caller's
    backend and open figures are untouched. Raises ImportError without
    matplotlib (the ``plot`` extra).
    """
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9.5, 4.8))
    ax = figure.subplots()
    markers = "osD^vP*Xh"
    for (name, errors), marker in zip(rows.items(), markers, strict=False):
        rhos = sorted(errors)
        means = [np.mean(errors[rho]) for rho in rhos]
        dashed = name.startswith("ZeroCovariance")
        ax.plot(
            rhos,
            means,
            marker=None if dashed else marker,
            linestyle="--" if dashed else "-",
            color="k" if dashed else None,
            label=name,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("privacy budget ρ (zCDP); pure mechanisms at ε = √(2ρ)")
    ax.set_ylabel("‖Σ̂ − Σ‖_F / ‖Σ‖_F (mean over seeds)")
    ax.set_title("Private covariance of load_digits (n = 1797, d = 64, bound 80)")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    figure.tight_layout()
    figure.savefig(path, dpi=110)

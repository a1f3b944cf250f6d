"""A short demonstration on a dataset bundled with scikit-learn (no download)."""

import itertools

import numpy as np
from sklearn.datasets import load_digits

from skprivcov.utils import registry

__all__ = ["plot_demo", "run_demo"]

# load_digits: 8×8 images with pixel values in 0..16, a range published with the
# dataset. A row therefore has norm at most 16·8 = 128; a data curator who accepts
# clipping the rare brightest images may choose a smaller bound. Both are public
# choices, not read from the data.
_NORM_BOUND = 80.0
# Budgets a release would really use (ρ = 10 is already a weak guarantee).
RHOS = (0.01, 0.1, 1.0, 10.0)
# What the demo leads with: the estimator to use when unsure.
_LEAD = "AutoCovariance"
_BASELINE = "ZeroCovariance"
# Why a mechanism can be worse than releasing nothing at every budget here.
_NOTES = {
    "IterativeEigenCovariance": (
        "pure ε-DP eigenvectors drawn one at a time: its error grows with d and "
        "it needs a large ε or a low-rank Σ (docs/iterative.rst)"
    ),
    "LaplaceCovariance": (
        "pure ε-DP noise on every one of the d(d+1)/2 entries: at d = 64 it "
        "needs a large ε (docs/choosing.rst)"
    ),
    "SeparateCovariance": (
        "its eigenvectors come from a noisy matrix: under pure ε-DP at d = 64 "
        "that matrix is mostly noise (docs/choosing.rst)"
    ),
}


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
    header = f"{'estimator':<38}" + "".join(f"{f'rho={rho:g}':>11}" for rho in rhos)
    print_fn(header)
    rows = {}
    for rho in rhos:
        for seed in range(n_repeats):
            for name, estimator in _estimators(rho, seed).items():
                error = np.linalg.norm(estimator.fit(X).covariance_ - reference)
                rows.setdefault(name, {}).setdefault(rho, []).append(error / scale)
    best = best_per_budget(rows)
    for name, errors in rows.items():
        cells = "".join(
            f"{np.mean(errors[rho]):>10.3f}{'*' if best[rho] == name else ' '}"
            for rho in rhos
        )
        print_fn(f"{name:<38}{cells}")
    for line in _readings(rows, best):
        print_fn(line)
    return rows


def best_per_budget(rows):
    """The estimator with the least mean error at each budget (releasing
    nothing included: at some budgets nothing is best)."""
    budgets = next(iter(rows.values())).keys()
    return {
        rho: min(rows, key=lambda name: np.mean(rows[name][rho])) for rho in budgets
    }


def _readings(rows, best):
    """What to pick, and why some mechanisms never help here."""
    lines = ["* the least error at that budget; 1.000 is releasing nothing."]
    picks = ", ".join(f"rho={rho:g}: {name}" for rho, name in best.items())
    lines.append(f"best per budget: {picks}")
    for name, errors in rows.items():
        family = name.split(" ")[0]
        if family == _BASELINE:
            continue
        if all(np.mean(errors[rho]) > 1.0 for rho in errors):
            reason = _NOTES.get(family, "its noise exceeds the signal at d = 64")
            lines.append(
                f"{name}: worse than releasing nothing at every budget here; {reason}"
            )
    return lines


def plot_demo(rows, path):
    """Write the errors of :func:`run_demo` against ρ as a PNG at ``path``.

    Uses matplotlib's object-oriented API without pyplot, so the caller's
    backend and open figures are untouched. Raises ImportError without
    matplotlib (the ``plot`` extra).
    """
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 5.2))
    ax = figure.subplots()
    markers = "osD^vP<>Xh"
    best = best_per_budget(rows)
    curves = {}
    # Every row gets a curve (markers repeat; a plain zip would drop rows).
    for (name, errors), marker in zip(rows.items(), itertools.cycle(markers)):
        rhos = sorted(errors)
        means = [np.mean(errors[rho]) for rho in rhos]
        curves[name] = dict(zip(rhos, means, strict=True))
        baseline = name.startswith(_BASELINE)
        lead = name.startswith(_LEAD)
        ax.plot(
            rhos,
            means,
            marker=None if baseline else marker,
            linestyle="--" if baseline or "ε=" in name else "-",
            linewidth=2.5 if lead else 1.3,
            color="k" if baseline else None,
            label=name,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    low, high = ax.get_ylim()
    # Above the zero matrix's error (1): worse than releasing nothing.
    ax.axhspan(1.0, max(high, 1.5), color="0.85", zorder=0)
    ax.text(
        max(best),
        1.05,
        "worse than releasing nothing (the zero matrix)",
        fontsize=8,
        color="0.35",
        ha="right",
        va="bottom",
    )
    for rho, name in best.items():
        ax.plot(
            rho,
            curves[name][rho],
            marker="*",
            markersize=16,
            color="gold",
            markeredgecolor="k",
            linestyle="none",
            zorder=5,
        )
    ax.plot(
        [],
        [],
        marker="*",
        markersize=12,
        color="gold",
        markeredgecolor="k",
        linestyle="none",
        label="best at that budget",
    )
    ax.set_ylim(low, max(high, 1.5))
    ax.set_xticks(sorted(best), [f"{rho:g}" for rho in sorted(best)])
    ax.set_xlabel("privacy budget ρ (zCDP); pure mechanisms (dashed) at ε = √(2ρ)")
    ax.set_ylabel(r"$\|\hat\Sigma - \Sigma\|_F \,/\, \|\Sigma\|_F$ (mean over seeds)")
    ax.set_title(
        "Private covariance of load_digits (n = 1797, d = 64, bound 80): "
        "lower is better"
    )
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    figure.tight_layout()
    figure.savefig(path, dpi=110)

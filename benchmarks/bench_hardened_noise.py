"""Hardened noise against float noise (docs/algorithms.rst §17): time and utility.

Part 1, time. A full ``GaussianCovariance(rho=1).fit(X)`` with
``noise="hardened"`` and ``noise="float"``, seeded (``random_state=0``: the
hardened samplers read PCG64's words) and unseeded (``random_state=None``:
they read ``os.urandom``), on X of standard normal rows divided by √d (norms
≈ 1, float64, C-ordered) at n = 1e5, d ∈ {1000, 4000}; LaplaceCovariance(ε = 1)
and SeparateCovariance(ρ = 1) at the smallest d only. Times are medians of a
few repetitions (5 at d ≤ 1000, 3 above: a median of 3 still drops one slow
run, which a median of 2 would not), every repetition running all modes and
the floor in a rotated order (so drift of the machine does not favour one
mode). The floor is the one of bench_fit_time.py: the Gram matrix as one dsyrk
through SciPy's BLAS, plus the eigendecompositions SeparateCov needs. Then the
noise step alone (the mechanism function on a precomputed second moment, with
``release_generator(seed, noise=...)``) shows where the overhead is, with the
standard deviation of the noise entries over the nominal σ of the float
mechanism (the hardened scale is inflated by the Gram's float-error bound and
the grid's rounding). Last, that inflation Δ'/Δ as n grows (public values,
``noise_plan``; independent of the data).

Part 2, utility. DLY22's four settings (``_settings.DLY22``, data drawn as
reproduce_dly22.py draws them, at its budgets ρ = ε = 0.1): the mean Frobenius
error ‖Σ̂ − XᵀX/n‖_F ± its standard error of GaussCov, SeparateCov and
AdaptiveCov (``radius="norm_bound"``, as the reproduction) under zCDP and of
LapCov and SeparateCov under pure DP, hardened and float, over seeds
0..repeats−1 (``_experiment.run_panel``), and the difference hardened − float in
units of its standard error (the two columns' errors taken as independent).

    python benchmarks/bench_hardened_noise.py [--quick] [--n 100000]
        [--ds 1000 4000] [--utility-repeats 100] [--n-jobs -1]

``--quick`` (under a minute): n = 20000, d = 300, 10 utility repetitions.
"""

import argparse
import os
import time
from typing import NamedTuple

import numpy as np
from _experiment import Panel, Point, run_panel
from _settings import DLY22, markdown_table
from bench_fit_time import best_time
from reproduce_dly22 import _data
from scipy.linalg import blas

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    PrivacyCost,
    SeparateCovariance,
)
from skprivcov.mechanisms import (
    eigh_descending,
    gaussian_covariance,
    gaussian_scale,
    laplace_covariance,
    laplace_scale,
    second_moment_l1_sensitivity,
    second_moment_l2_sensitivity,
    separate_covariance,
)
from skprivcov.mechanisms._eigen import eigvalsh_descending
from skprivcov.mechanisms.noise._generators import release_generator
from skprivcov.mechanisms.noise._hardened import gram_error_bound, noise_plan

NOISES = ("hardened", "float")
# random_state → where the hardened samplers' words come from.
SOURCES = {0: "0 (PCG64)", None: "None (os.urandom)"}
MODES = [(noise, seed) for seed in SOURCES for noise in NOISES]


def interleaved_medians(functions, repeats):
    """Median time of each function; each repetition runs them all, in an order
    rotated by one from the previous repetition's."""
    names = list(functions)
    times = {name: [] for name in names}
    for repetition in range(repeats):
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(best_time(functions[name], 1))
    return {name: float(np.median(found)) for name, found in times.items()}


def timing_data(n, d):
    X = np.random.default_rng(0).standard_normal((n, d))
    X /= np.sqrt(d)
    return X


def symmetric_second_moment(X):
    """XᵀX/n from one dsyrk (its upper triangle), mirrored."""
    upper = np.triu(blas.dsyrk(1.0, X.T))
    return (upper + np.triu(upper, 1).T) / X.shape[0]


def noise_sd_ratio(release, moment, nominal):
    """Standard deviation of the released upper triangle's noise over σ."""
    rows, columns = np.triu_indices(moment.shape[0])
    return float(np.std(release[rows, columns] - moment[rows, columns]) / nominal)


def gaussian_sd(n, d):
    return gaussian_scale(second_moment_l2_sensitivity(n), 1.0)


def laplace_sd(n, d):
    return np.sqrt(2.0) * laplace_scale(second_moment_l1_sensitivity(d, n), 1.0)


class Timed(NamedTuple):
    make: object  # () -> estimator
    mechanism: object  # its mechanism function (second moment, n, budget, rng)
    budget: PrivacyCost
    noise_sd: object  # (n, d) -> the float noise's sd per entry; None: not M + noise
    eigen_floor: bool  # SeparateCov: eigenvalues and eigenvectors in the floor


TIMED = {
    "GaussianCovariance(rho=1)": Timed(
        lambda: GaussianCovariance(rho=1.0),
        gaussian_covariance,
        PrivacyCost.zcdp(1.0),
        gaussian_sd,
        False,
    ),
    "LaplaceCovariance(epsilon=1)": Timed(
        lambda: LaplaceCovariance(epsilon=1.0),
        laplace_covariance,
        PrivacyCost.pure(1.0),
        laplace_sd,
        False,
    ),
    "SeparateCovariance(rho=1)": Timed(
        lambda: SeparateCovariance(rho=1.0),
        separate_covariance,
        PrivacyCost.zcdp(1.0),
        None,
        True,
    ),
}


def time_one_d(n, d, labels, repeats, noise_repeats):
    """Fit rows and noise-step rows of the tables at one d."""
    start = time.perf_counter()
    X = timing_data(n, d)
    moment = symmetric_second_moment(X)
    elapsed = time.perf_counter() - start
    print(f"  d={d}: X is {X.nbytes / 1e9:.1f} GB, drawn in {elapsed:.1f}s", flush=True)
    eigen_floor = 0.0
    if any(TIMED[label].eigen_floor for label in labels):
        eigen_floor = sum(
            interleaved_medians(
                {
                    "eigvals": lambda: eigvalsh_descending(moment),
                    "eigh": lambda: eigh_descending(moment),
                },
                repeats,
            ).values()
        )
    fit_rows, step_rows = [], []
    for label in labels:
        timed = TIMED[label]
        functions = {"Gram": lambda: blas.dsyrk(1.0, X.T)}
        for noise, seed in MODES:
            estimator = timed.make().set_params(noise=noise, random_state=seed)
            functions[noise, seed] = lambda est=estimator: est.fit(X)
        fits = interleaved_medians(functions, repeats)
        floor = fits["Gram"] + (eigen_floor if timed.eigen_floor else 0.0)
        for seed, source in SOURCES.items():
            hardened, float_ = fits["hardened", seed], fits["float", seed]
            fit_rows.append(
                [
                    *(d, label, source, hardened, float_, hardened / float_),
                    *(floor, hardened / floor, float_ / floor),
                ]
            )
        print(f"    fits of {label}: done", flush=True)

        def step(noise, seed, timed=timed):
            rng = release_generator(seed, noise=noise)
            return timed.mechanism(moment, n, timed.budget, rng)

        steps = interleaved_medians(
            {mode: (lambda mode=mode: step(*mode)) for mode in MODES}, noise_repeats
        )
        for seed, source in SOURCES.items():
            hardened, float_ = steps["hardened", seed], steps["float", seed]
            fit_gap = fits["hardened", seed] - fits["float", seed]
            ratios = ["—", "—"]
            if timed.noise_sd is not None:
                ratios = [
                    noise_sd_ratio(step(noise, seed)[0], moment, timed.noise_sd(n, d))
                    for noise in NOISES
                ]
            step_rows.append(
                [
                    *(d, label.split("(")[0], source, hardened, float_),
                    *(hardened / float_, hardened - float_, fit_gap, *ratios),
                ]
            )
    return fit_rows, step_rows


def timing(args):
    print(f"# Part 1: time at n={args.n}, d in {args.ds}", flush=True)
    fit_rows, step_rows = [], []
    for index, d in enumerate(args.ds):
        labels = list(TIMED) if index == 0 else ["GaussianCovariance(rho=1)"]
        repeats = args.repeats or (5 if d <= 1000 else 3)
        noise_repeats = args.repeats or (7 if d <= 1000 else 3)
        fits, steps = time_one_d(args.n, d, labels, repeats, noise_repeats)
        fit_rows += fits
        step_rows += steps
    print(
        "\n## Fit time [s], median; floor = Gram matrix (dsyrk), + eigenvalues "
        "and eigendecomposition for SeparateCov\n"
    )
    print(
        markdown_table(
            [
                "d",
                "estimator",
                "random_state",
                "hardened",
                "float",
                "hardened/float",
                "floor",
                "hardened/floor",
                "float/floor",
            ],
            fit_rows,
        )
    )
    print(
        "\n## Noise step alone [s], median: the mechanism function on a "
        "precomputed XᵀX/n; noise sd/σ: the release's upper-triangle noise over "
        "the float mechanism's σ\n"
    )
    print(
        markdown_table(
            [
                "d",
                "mechanism",
                "random_state",
                "hardened",
                "float",
                "hardened/float",
                "hardened−float",
                "fit: hardened−float",
                "hardened noise sd/σ",
                "float noise sd/σ",
            ],
            step_rows,
        )
    )


def inflation(d):
    """Δ'/Δ of the hardened mechanisms as n grows: the sensitivity inflated by
    twice the Gram's float-error bound and the grid's rounding (the hardened
    noise's scale over the float noise's)."""
    coordinates = d * (d + 1) // 2
    rows = []
    for n in (10**4, 10**5, 10**6, 10**7, 10**8, 10**9):
        error = gram_error_bound(n, d)
        l2 = second_moment_l2_sensitivity(n)
        l1 = second_moment_l1_sensitivity(d, n)
        gauss = noise_plan(
            l2, PrivacyCost.zcdp(1.0), coordinates, statistic_error=error
        )
        laplace = noise_plan(
            l1, PrivacyCost.pure(1.0), coordinates, statistic_error=d * error
        )
        ratios = (gauss.sensitivity / l2, laplace.sensitivity / l1)
        rows.append([f"{n:.0e}", error, *(f"{ratio:.7f}" for ratio in ratios)])
    print(
        f"\n## Hardened noise scale over float noise scale (Δ'/Δ), d = {d}, "
        "ρ = ε = 1 (hardly depends on d or the budget)\n"
    )
    print(
        markdown_table(
            ["n", "Gram error bound E", "GaussCov Δ'/Δ", "LapCov Δ'/Δ"], rows
        )
    )


UTILITY = {
    "GaussCov (zCDP)": lambda budget: GaussianCovariance(rho=budget),
    "SeparateCov (zCDP)": lambda budget: SeparateCovariance(rho=budget),
    "AdaptiveCov (zCDP)": lambda budget: AdaptiveCovariance(
        rho=budget, radius="norm_bound"
    ),
    "LapCov (pure)": lambda budget: LaplaceCovariance(epsilon=budget),
    "SeparateCov (pure)": lambda budget: SeparateCovariance(epsilon=budget),
}


def utility_estimators(point):
    """Hardened and float versions of the compared estimators at ``point``."""
    return {
        (name, noise): make(point.budget).set_params(noise=noise)
        for name, make in UTILITY.items()
        for noise in NOISES
    }


def utility(args):
    print(
        f"\n# Part 2: utility on DLY22's settings, ρ = ε = {args.budget:g}, "
        f"{args.utility_repeats} seeds",
        flush=True,
    )
    start = time.perf_counter()
    rows, gaps = [], []
    for label, (n, d, bins) in DLY22.items():
        panel = Panel(
            key=label,
            title=label,
            xlabel="d",
            points=[Point(d, _data(n, d, bins), args.budget, d)],
        )
        run_panel(
            panel,
            utility_estimators,
            repeats=args.utility_repeats,
            n_jobs=args.n_jobs,
            postprocess=lambda covariance: covariance,
            log=lambda line: print(line, flush=True),
        )
        for name in UTILITY:
            (hardened, h_sem), (float_, f_sem) = (
                (panel.means[name, noise][0], panel.sems[name, noise][0])
                for noise in NOISES
            )
            gap = (hardened - float_) / np.hypot(h_sem, f_sem)
            gaps.append(gap)
            rows.append(
                [
                    label,
                    name,
                    f"{hardened:.4g} ± {h_sem:.2g}",
                    f"{float_:.4g} ± {f_sem:.2g}",
                    f"{(hardened - float_) / float_:+.2%}",
                    f"{gap:+.2f}",
                ]
            )
    print(
        f"\n## Mean Frobenius error ± standard error, {args.utility_repeats} "
        "seeds (the same seeds for both noises)\n"
    )
    print(
        markdown_table(
            [
                "setting",
                "estimator",
                "hardened",
                "float",
                "(h − f)/f",
                "(h − f)/se",
            ],
            rows,
        )
    )
    gaps = np.abs(gaps)
    print(
        f"\n{gaps.size} comparisons: max |difference|/se = {gaps.max():.2f}, "
        f"{int((gaps > 2).sum())} beyond 2 se (about {0.05 * gaps.size:.1f} "
        f"expected by chance), {int((gaps > 3).sum())} beyond 3 se; "
        f"{time.perf_counter() - start:.0f}s"
    )
    if args.utility_repeats < 30:
        print(
            "(few seeds: the standard errors are rough and |difference|/se has "
            "heavy tails, so a few beyond 2 or 3 se are no evidence; the check is "
            "meant for the default 100 seeds)"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a run under a minute")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--ds", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timing repetitions (default: 5 fits and 7 noise steps at d ≤ 1000, "
        "3 and 3 above)",
    )
    parser.add_argument("--utility-repeats", type=int, default=100)
    parser.add_argument("--budget", type=float, default=0.1, help="ρ and ε")
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--skip-utility", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.n, args.ds, args.utility_repeats = 20_000, [300], 10
    # Timings on a small machine mean little if something else is running.
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    start = time.perf_counter()
    if not args.skip_timing:
        timing(args)
    inflation(args.ds[0])
    if not args.skip_utility:
        utility(args)
    print(f"\ntotal {time.perf_counter() - start:.0f}s")


if __name__ == "__main__":
    main()

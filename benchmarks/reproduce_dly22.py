"""Reproduce the synthetic experiments of DLY22 (Dong, Liang, Yi), Figs. 2, 3, 6, 7.

Data: ``make_zipf_norms`` (DLY22 §7.1: Z·U mixing, centred, row norms in N
Zipf(s = 3) bins of norm 2^(k−N); N = 1 is trace 1). Error: mean Frobenius
error ‖Σ̂ − Σ‖_F, Σ = XᵀX/n, over ``--repeats`` releases (the paper: 50). As in
the paper's experiments the data's radius is known to lie in [0.5, 1], so
AdaptiveCov skips the private-radius step (``radius="norm_bound"``).

* ``--figure 2``: ρ = 0.1, trace 1, d swept for n ∈ {1000, 4000, 16000}.
* ``--figure 3``: d = 200, n = 50000, N = 4, ρ = 0.1, sweeping N, d, n and ρ.
* ``--figure 6``: pure DP (ε = 0.1, the value ρ had), trace 1, d swept for
  n ∈ {1000, 4000, 16000, 10000, 40000, 160000}.
* ``--figure 7``: pure DP at n = 50000 (``--fig7-n`` adds 500000, as the paper),
  sweeping d, N and ε.

Estimators: the paper's (Zero, GaussCov / LapCov, SeparateCov, AdaptiveCov,
EMCov = ``IterativeEigenCovariance``, under pure DP with the adaptive budget
split the paper reports) and the library's additions (ProjectionCov: GaussCov
projected on {PSD, trace ≤ 1}; the nuclear-norm Laplace mechanism under pure
DP). EMCov costs O(d⁴) and the nuclear sampler O(d³) per sweep, so they are run
up to ``--emcov-max-d`` / ``--nuclear-max-d``. Results (markdown, JSON, PNG)
go to ``--out`` (default benchmarks/results).

    python benchmarks/reproduce_dly22.py --figure 2 3 6 7 --repeats 50
"""

import functools
import itertools
import time
from pathlib import Path

import numpy as np
from _experiment import (
    Panel,
    Point,
    experiment_parser,
    load_means,
    mean_at,
    parse_arguments,
    run_panel,
    write_outputs,
)

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.datasets import make_zipf_norms

ORDER = [
    "Zero",
    "GaussCov",
    "LapCov",
    "SeparateCov",
    "AdaptiveCov",
    "EMCov",
    "ProjectionCov",
    "NuclearLaplace",
]
DATA_SEED = 20221


def _data(n, d, bins):
    return functools.partial(
        make_zipf_norms, n, d, n_bins=bins, random_state=DATA_SEED + 7 * d + bins
    )


def zcdp_estimators(args, point):
    rho = point.budget
    found = {
        "Zero": ZeroCovariance(),
        "GaussCov": GaussianCovariance(rho=rho),
        "SeparateCov": SeparateCovariance(rho=rho),
        "AdaptiveCov": AdaptiveCovariance(rho=rho, radius="norm_bound"),
        "ProjectionCov": ProjectionCovariance(rho=rho),
    }
    if point.n_features <= args.emcov_max_d:
        found["EMCov"] = IterativeEigenCovariance(rho=rho)
    return found


def pure_estimators(args, point):
    epsilon = point.budget
    found = {
        "Zero": ZeroCovariance(),
        "LapCov": LaplaceCovariance(epsilon=epsilon),
        "SeparateCov": SeparateCovariance(epsilon=epsilon),
        "AdaptiveCov": AdaptiveCovariance(epsilon=epsilon, radius="norm_bound"),
    }
    if point.n_features <= args.emcov_max_d:
        found["EMCov"] = IterativeEigenCovariance(
            epsilon=epsilon, budget_split="adaptive"
        )
    if point.n_features <= args.nuclear_max_d:
        found["NuclearLaplace"] = NuclearLaplaceCovariance(epsilon=epsilon)
    return found


def trace_one_panels(key, ns, ds, budget, budget_name):
    return [
        Panel(
            key=f"{key}-n{n}",
            title=f"tr = 1, n = {n}, {budget_name} = {budget:g}",
            xlabel="d",
            points=[Point(d, _data(n, d, 1), budget, d) for d in ds],
        )
        for n in ns
    ]


def sweep_panels(key, *, n, d, bins, budget, budget_name, sweeps):
    """One panel per swept parameter, the others at their defaults."""
    panels = []
    for parameter, values in sweeps.items():
        points = []
        for value in values:
            setting = {"n": n, "d": d, "N": bins, budget_name: budget}
            setting[parameter] = value
            points.append(
                Point(
                    value,
                    _data(setting["n"], setting["d"], setting["N"]),
                    setting[budget_name],
                    setting["d"],
                )
            )
        fixed = ", ".join(
            f"{name} = {value:g}"
            for name, value in {"n": n, "d": d, "N": bins, budget_name: budget}.items()
            if name != parameter
        )
        panels.append(
            Panel(
                key=f"{key}-{parameter}",
                title=f"{parameter} varies ({fixed})",
                xlabel=parameter,
                points=points,
                log_x=parameter != "N",
            )
        )
    return panels


def _end_ratios(panel, small):
    """``small``/SeparateCov at the first and last points of ``panel``, and a
    sentence stating both."""
    first, last = panel.points[0].x, panel.points[-1].x
    low, high = (
        mean_at(panel, small, x) / mean_at(panel, "SeparateCov", x)
        for x in (first, last)
    )
    detail = (
        f"{small}/SeparateCov = {low:.2f} at {panel.xlabel} = {first:g}, "
        f"{high:.2f} at {panel.xlabel} = {last:g}"
    )
    return low, high, detail


def _adaptive_claim(panels, pair):
    worst = max(
        panel.means["AdaptiveCov"][i]
        / min(panel.means[pair[0]][i], panel.means[pair[1]][i])
        for panel in panels
        for i in range(len(panel.points))
    )
    return (
        f"AdaptiveCov is close to the better of {pair[0]} and {pair[1]} "
        "(a small price for its private trace and threshold)",
        worst <= 1.5,
        f"worst ratio to the better one {worst:.2f}; 'close' read as ≤ 1.5",
    )


def _always_better(panels, winner, loser):
    """``winner`` is not worse than ``loser`` anywhere, beyond the noise of the
    means: a point counts against the claim when the winner's mean exceeds
    the loser's by more than two standard errors of the difference (where
    both mechanisms are uninformative their errors tie)."""
    wins, ties, losses = 0, 0, []
    for panel in panels:
        for i, point in enumerate(panel.points):
            if not np.isfinite(panel.means[loser][i]):
                continue
            gap = panel.means[winner][i] - panel.means[loser][i]
            noise = 2 * np.hypot(panel.sems[winner][i], panel.sems[loser][i])
            if gap < -noise:
                wins += 1
            elif gap <= noise:
                ties += 1
            else:
                losses.append(f"{panel.key} at {panel.xlabel} = {point.x:g}")
    return (
        f"{winner} outperforms {loser} wherever {loser} was run",
        not losses,
        f"better at {wins} points, tied within 2 standard errors at {ties}"
        + (f", worse at {', '.join(losses)}" if losses else ""),
    )


def _crossover_claims(panels, small):
    """``small`` wins at the smallest d, SeparateCov much more so at the largest."""
    claims = []
    for panel in panels:
        low, high, detail = _end_ratios(panel, small)
        claims.append(
            (
                f"{panel.title}: {small} is better than SeparateCov at low d and "
                "SeparateCov much better at high d",
                low <= 1.0 and high > 1.5,
                detail,
            )
        )
    return claims


def _gains_with_d(panel, small):
    low, high, detail = _end_ratios(panel, small)
    return f"{panel.title}: SeparateCov gains on {small} as d grows", high > low, detail


def _trend_claims(panels, small, direction):
    """SeparateCov gains on ``small`` as d grows, n shrinks, the budget shrinks."""
    claims = []
    for panel in panels:
        parameter = panel.xlabel
        if parameter not in direction:
            continue
        low, high, detail = _end_ratios(panel, small)
        grows = direction[parameter]
        claims.append(
            (
                f"SeparateCov gains on {small} as {parameter} "
                f"{'grows' if grows else 'shrinks'}",
                high > low if grows else high < low,
                detail,
            )
        )
    return claims


def _trace_claims(panel, trace_sensitive, insensitive):
    first, last = panel.points[0].x, panel.points[-1].x
    claims = []
    flat = max(panel.means[insensitive]) / min(panel.means[insensitive])
    claims.append(
        (
            f"{insensitive} is not trace-sensitive (flat in N)",
            flat < 1.25,
            f"max/min over N = {flat:.2f}",
        )
    )
    for name in trace_sensitive:
        if name in panel.means and np.isfinite(mean_at(panel, name, last)):
            drop = mean_at(panel, name, first) / mean_at(panel, name, last)
            claims.append(
                (
                    f"{name} is trace-sensitive (error falls as N grows)",
                    drop > 2.0,
                    f"error at N = {first:g} over error at N = {last:g}: {drop:.1f}",
                )
            )
    best = min(
        (mean_at(panel, name, last), name)
        for name in panel.means
        if np.isfinite(mean_at(panel, name, last))
    )[1]
    claims.append(
        (
            "at tiny trace the zero matrix is the best trace-sensitive answer",
            best == "Zero",
            f"best at N = {last:g}: {best}",
        )
    )
    return claims


def figure_2(args):
    panels = trace_one_panels("fig2", (1000, 4000, 16000), args.ds, args.rho, "ρ")
    return (
        panels,
        zcdp_estimators,
        lambda: [
            *_crossover_claims(panels, "GaussCov"),
            _adaptive_claim(panels, ("GaussCov", "SeparateCov")),
            _always_better(panels, "SeparateCov", "EMCov"),
        ],
    )


def figure_3(args):
    panels = sweep_panels(
        "fig3",
        n=50_000,
        d=200,
        bins=4,
        budget=args.rho,
        budget_name="ρ",
        sweeps={
            "N": (1, 2, 4, 8, 16, 32),
            "d": tuple(d for d in (50, 100, 200, 400, 800) if d <= max(args.ds)),
            "n": (6250, 12_500, 25_000, 50_000, 100_000, 200_000),
            "ρ": (0.0125, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8),
        },
    )
    return (
        panels,
        zcdp_estimators,
        lambda: (
            _trace_claims(
                panels[0], ("SeparateCov", "AdaptiveCov", "EMCov"), "GaussCov"
            )
            + _trend_claims(panels, "GaussCov", {"d": True, "n": False, "ρ": False})
            + [_adaptive_claim(panels, ("GaussCov", "SeparateCov"))]
        ),
    )


def figure_6(args):
    ns = (1000, 4000, 16_000, 10_000, 40_000, 160_000)
    panels = trace_one_panels("fig6", ns, args.ds, args.epsilon, "ε")

    def claims():
        found = [_always_better(panels, "SeparateCov", "EMCov")]
        found += [_gains_with_d(panel, "LapCov") for panel in panels]
        # The paper's mechanisms only: the largest d at which one of them
        # beats releasing the zero matrix should grow with n.
        theirs = ("LapCov", "SeparateCov", "EMCov")
        largest = {}
        for panel, n in zip(panels, ns, strict=True):
            beaten = [
                point.x
                for i, point in enumerate(panel.points)
                if np.nanmin([panel.means[name][i] for name in theirs])
                < panel.means["Zero"][i]
            ]
            largest[n] = max(beaten, default=0)
        ordered = [largest[n] for n in sorted(largest)]
        found.append(
            (
                "beating the zero matrix needs larger n under pure DP",
                all(b >= a for a, b in itertools.pairwise(ordered)),
                "largest d at which LapCov, SeparateCov or EMCov beats Zero, by n: "
                + ", ".join(f"{n}: {largest[n]:g}" for n in sorted(largest)),
            )
        )
        return found

    return panels, pure_estimators, claims


def figure_7(args):
    panels = []
    for n in args.fig7_n:
        panels += sweep_panels(
            f"fig7-n{n}",
            n=n,
            d=200,
            bins=4,
            budget=args.epsilon,
            budget_name="ε",
            sweeps={
                "d": tuple(d for d in (50, 100, 200, 400) if d <= max(args.ds)),
                "N": (1, 2, 4, 8, 16, 32),
                "ε": (0.025, 0.05, 0.1, 0.2, 0.4, 0.8),
            },
        )
    return (
        panels,
        pure_estimators,
        lambda: [
            _always_better(panels, "SeparateCov", "EMCov"),
            *_trend_claims(panels, "LapCov", {"d": True, "ε": False}),
        ],
    )


FIGURES = {
    "2": (figure_2, "DLY22 Fig. 2: trace 1, ρ-zCDP"),
    "3": (figure_3, "DLY22 Fig. 3: d, n, N, ρ sweeps, ρ-zCDP"),
    "6": (figure_6, "DLY22 Fig. 6: trace 1, pure ε-DP"),
    "7": (figure_7, "DLY22 Fig. 7: d, N, ε sweeps, pure ε-DP"),
}


def run_figure(panels, make, args, heading):
    start = time.perf_counter()
    print(f"{heading}: {len(panels)} panels, {args.repeats} repetitions", flush=True)
    for panel in panels:
        run_panel(
            panel,
            make,
            repeats=args.repeats,
            n_jobs=args.n_jobs,
            postprocess=lambda covariance: covariance,
            log=lambda line: print(line, flush=True),
        )
    return [
        f"Mean Frobenius error over {args.repeats} releases ± its standard "
        f"error; {time.perf_counter() - start:.0f} s on this machine. "
        f"EMCov run up to d = {args.emcov_max_d}, the nuclear-norm "
        f"mechanism up to d = {args.nuclear_max_d}. "
        "Produced by `benchmarks/reproduce_dly22.py`.",
    ]


def main():
    parser = experiment_parser(__doc__.splitlines()[0])
    parser.add_argument("--figure", nargs="+", choices=FIGURES, default=list(FIGURES))
    parser.add_argument("--rho", type=float, default=0.1)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument(
        "--ds", type=int, nargs="+", default=[10, 25, 50, 100, 200, 400, 800]
    )
    parser.add_argument("--fig7-n", type=int, nargs="+", default=[50_000])
    parser.add_argument("--emcov-max-d", type=int, default=200)
    parser.add_argument("--nuclear-max-d", type=int, default=200)
    args = parse_arguments(parser)

    for figure in args.figure:
        build, heading = FIGURES[figure]
        panels, make, claims = build(args)
        stem = f"dly22_fig{figure}"
        if args.replot:
            notes = load_means(panels, Path(args.out) / f"{stem}.json")
        else:
            notes = run_figure(panels, functools.partial(make, args), args, heading)
        write_outputs(
            panels,
            args.out,
            stem,
            heading=heading,
            notes=notes,
            claims=claims(),
            order=ORDER,
            log=lambda text: print(text, flush=True),
        )


if __name__ == "__main__":
    main()

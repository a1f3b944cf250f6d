"""Fit time of every estimator divided by the non-private floor, and the exact
statistics pass divided by the float Gram matrix.

The floor is the work any exact method must do: the Gram matrix XᵀX, plus the
eigendecompositions the fit needs. Those are counted, not assumed: a first
(warm-up) fit of each estimator records every eigendecomposition it makes
(SciPy's and NumPy's ``eigh``/``eigvalsh``) with its matrix, and the floor
repeats exactly those on the same matrices (the PSD–trace projection of the
default ``projection="psd-trace"`` is one of them: at the defaults every
covariance estimator makes it). The floor's Gram matrix is one symmetric
rank-k update (dsyrk) over all of X through SciPy's BLAS, the library the
estimators use: NumPy and SciPy each ship an OpenBLAS, and alternating between
the two makes their threads contend, which would blur the comparison on a
small machine.

Rows: every estimator at its defaults (``norm_bound="auto"``: a private bound
from a first pass over the row norms; ``assume_centered=False``: the mean too),
then, marked "public bound", the papers' setting (``norm_bound=1``, the second
moment). The exact statistics pass (``skprivcov._data._statistics.unit_ball_statistics``
at a bound that clips half the rows, without and with the mean) is compared
with the floor's Gram matrix alone. PRODUCT.md §2.2 sets the goals at
n = 1e5, d = 1000: every default fit ≤ 1.15 × its floor, the exact pass
≤ 1.2 × the float Gram.

Each repetition times the floor's parts and the fit one after the other, in
an order rotated from one repetition to the next, so that a drift of the
machine's speed does not favour either side. The table gives the ratio of the
fastest fit to the fastest floor ("best") and the median of the repetitions'
own ratios ("median"); the load average of the machine is printed before and
after, and the cores other processes used during the run (they distort every
number: measure on an idle machine).

    python benchmarks/bench_fit_time.py [--n 100000] [--d 1000] [--repeats 5]
        [--dtype float32] [--only Gaussian Separate exact]

``--only`` keeps the rows whose name contains one of the words ("exact" for
the statistics pass; d = 4000 at n = 20000 for GaussianCovariance,
SeparateCovariance and ProjectionCovariance is the large case of PRODUCT.md
§2.2).
"""

import argparse
import os
import statistics
import time
from contextlib import contextmanager

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov._data._statistics import unit_ball_statistics


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def rotated_times(parts, repeats):
    """{name: [seconds per repetition]} of the functions ``parts`` (a dict),
    each repetition running all of them in an order rotated by one."""
    names = list(parts)
    times = {name: [] for name in names}
    for repetition in range(repeats):
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(timed(parts[name]))
    return times


@contextmanager
def recorded_eigendecompositions():
    """Record every eigh/eigvalsh of SciPy and NumPy made inside the block as
    (function, copy of its matrix, keyword arguments)."""
    calls = []
    originals = {
        (scipy.linalg, "eigh"): scipy.linalg.eigh,
        (np.linalg, "eigh"): np.linalg.eigh,
        (np.linalg, "eigvalsh"): np.linalg.eigvalsh,
    }

    def recorder(original):
        def wrapper(matrix, *args, **kwargs):
            calls.append((original, np.array(matrix, copy=True), args, kwargs))
            return original(matrix, *args, **kwargs)

        return wrapper

    for (module, name), original in originals.items():
        setattr(module, name, recorder(original))
    try:
        yield calls
    finally:
        for (module, name), original in originals.items():
            setattr(module, name, original)


def describe(calls):
    """ "eigh(1001) + eigvalsh(1001)"-like text for recorded calls."""
    words = []
    for original, matrix, _, kwargs in calls:
        only = kwargs.get("eigvals_only") or original is np.linalg.eigvalsh
        words.append(f"{'eigvalsh' if only else 'eigh'}({matrix.shape[0]})")
    return " + ".join(words) or "none"


def replay(calls):
    """A function repeating the recorded eigendecompositions."""

    def run():
        for original, matrix, args, kwargs in calls:
            original(matrix, *args, **kwargs)

    return run


def estimator_rows(wanted):
    defaults = [
        ("GaussianCovariance", GaussianCovariance),
        ("LaplaceCovariance", LaplaceCovariance),
        ("SeparateCovariance (zCDP)", SeparateCovariance),
        ("SeparateCovariance (pure)", lambda: SeparateCovariance(epsilon=1.0)),
        ("ProjectionCovariance", ProjectionCovariance),
        ("AdaptiveCovariance", AdaptiveCovariance),
    ]
    rows = []
    for name, make in defaults:
        rows.append((name, make()))
    for name, make in defaults:
        public = make().set_params(norm_bound=1.0, assume_centered=True)
        rows.append((f"{name}, public bound", public))
    return [
        (name, est.set_params(random_state=0)) for name, est in rows if wanted(name)
    ]


def load():
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def busy_seconds():
    """(CPU seconds of the whole machine, of this process) so far, or None
    where /proc/stat is not there."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:9]]
    except OSError:
        return None
    user, nice, system, _, _, irq, softirq, steal = fields
    machine = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    own = os.times()
    return machine, own.user + own.system


def others_load(start, seconds):
    """Cores used on average by other processes since ``start``."""
    end = busy_seconds()
    if start is None or end is None:
        return "other processes: unknown"
    others = (end[0] - start[0]) - (end[1] - start[1])
    # Tick-based accounting: a few hundredths of a core either way.
    share = max(0.0, others / seconds)
    return f"other processes used about {share:.2f} cores on average"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    def wanted(name):
        return args.only is None or any(word in name for word in args.only)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.n, args.d))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None] * 1.1
    X = X.astype(args.dtype, copy=False)
    started, wall = busy_seconds(), time.perf_counter()
    print(
        f"n={args.n}, d={args.d}, {args.dtype}, {args.repeats} repetitions; "
        f"{os.cpu_count()} CPUs; {load()}",
        flush=True,
    )
    # The floor's Gram matrix is in float64, as the estimators' (float32 input
    # is converted chunk by chunk; ssyrk would lose precision over n rows).
    X64 = X.astype(np.float64, copy=False)

    def gram():
        blas.dsyrk(1.0, X64.T)

    header = f"{'':<44}{'time [s]':>9}{'floor [s]':>10}{'best':>7}{'median':>8}"
    results = []
    if wanted("exact"):
        # A bound that clips half the rows (the work does not depend on it).
        bound = float(np.median(np.linalg.norm(X64, axis=1)))
        parts = {
            "gram": gram,
            "exact": lambda: unit_ball_statistics(X, bound),
            "exact, mean": lambda: unit_ball_statistics(X, bound, with_mean=True),
        }
        times = rotated_times(parts, args.repeats)
        for name in ("exact", "exact, mean"):
            ratios = [t / g for t, g in zip(times[name], times["gram"], strict=True)]
            results.append(
                (
                    f"exact pass{' with the mean' if 'mean' in name else ''}"
                    " / float Gram",
                    min(times[name]),
                    min(times["gram"]),
                    statistics.median(ratios),
                )
            )
            print(f"  {results[-1][0]}: {min(times[name]):.3f}s", flush=True)

    for name, estimator in estimator_rows(wanted):
        with recorded_eigendecompositions() as calls:
            estimator.fit(X)
        mechanism = getattr(estimator, "mechanism_", None)
        label = f"{name} [{mechanism}]" if mechanism else name
        eigen = replay(calls)
        parts = {"gram": gram, "eigen": eigen, "fit": lambda e=estimator: e.fit(X)}
        times = rotated_times(parts, args.repeats)
        floors = [g + e for g, e in zip(times["gram"], times["eigen"], strict=True)]
        ratios = [f / g for f, g in zip(times["fit"], floors, strict=True)]
        results.append(
            (label, min(times["fit"]), min(floors), statistics.median(ratios))
        )
        print(f"  {label}: {min(times['fit']):.3f}s, floor: Gram + {describe(calls)}")
    print(f"{load()} (with this benchmark's own threads); ", end="")
    print(others_load(started, time.perf_counter() - wall))
    print(header)
    for label, time_, floor, median in results:
        print(
            f"{label:<44}{time_:>9.3f}{floor:>10.3f}{time_ / floor:>7.2f}{median:>8.2f}"
        )
    if args.only is None:
        zero = min(timed(lambda: ZeroCovariance().fit(X)) for _ in range(args.repeats))
        print(f"{'ZeroCovariance':<44}{zero:>9.3f}{'(no floor)':>10}")


if __name__ == "__main__":
    main()

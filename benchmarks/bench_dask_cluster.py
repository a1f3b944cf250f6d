"""GaussianCovariance on a dask.distributed cluster of worker processes.

The rows (10⁸ × 100 by default) are generated lazily on the cluster by a seeded
``dask.array.random`` generator, block by block where each block is computed:
no data is shipped, and every read of X generates the same values. They are
uniform on [−1, 1)^d by default: NumPy draws those about five times faster than
normal ones (about 150 and 30 million values per second and core on the
development machine), and generating the rows is a cost of every pass, paid
by the floor too. On a
``LocalCluster(processes=True)`` of ``--workers`` worker processes (one thread
each) it times:

* ``generate``: one pass that only generates the rows (the column sums of X,
  computed on the cluster), what every other line pays per pass;
* ``floor``: the non-private floor, the same dask array's ``X.T @ X`` computed
  on the cluster (one pass, a GEMM per block, the partial products added in
  dask's reduction tree);
* ``gaussian, public bound``: ``GaussianCovariance(norm_bound=B)``, the
  centred release at a public bound: one statistics pass;
* ``gaussian, default``: ``GaussianCovariance()``, the default private bound
  chosen inside the budget: a pass for the row-norm counts, then the
  statistics pass (docs/large_data.rst).

For each it prints the wall time, the throughput (rows/s), the ratio to the
floor, the CPU seconds the worker processes spent (and their ratio to the
floor's), the peak resident memory of every worker process (psutil, sampled
every 50 ms by a thread in the worker, started and read through
``client.run``) and of the driver. Only d × d partial sums travel to the driver.

    python benchmarks/bench_dask_cluster.py [--rows 100000000] [--features 100]
        [--workers 2] [--block-rows 100000] [--seed 0]
        [--distribution uniform normal] [--only generate floor public default]
"""

import argparse
import os
import threading
import time

import dask
import dask.array as da
import numpy as np
import psutil
from distributed import Client, LocalCluster

from skprivcov import GaussianCovariance

MiB = 2.0**20
SAMPLE_SECONDS = 0.05
PHASES = ("generate", "floor", "public", "default")


class PeakMemory:
    """A daemon thread that keeps the peak resident memory of this process
    (psutil, every ``interval`` seconds) since the last :meth:`read`."""

    def __init__(self, interval):
        self._process = psutil.Process()
        self._peak = self._process.memory_info().rss
        self._stop = threading.Event()
        threading.Thread(target=self._sample, args=(interval,), daemon=True).start()

    def _sample(self, interval):
        while not self._stop.wait(interval):
            self._peak = max(self._peak, self._process.memory_info().rss)

    def read(self):
        """The peak since the last read (or the start); starts a new one."""
        now = self._process.memory_info().rss
        peak, self._peak = max(self._peak, now), now
        return peak


def _start_sampling(interval, dask_worker):
    """In each worker process, through ``client.run``: its own sampler."""
    if getattr(dask_worker, "_bench_memory", None) is None:
        dask_worker._bench_memory = PeakMemory(interval)
    return os.getpid()


def _read_peak(dask_worker):
    return dask_worker._bench_memory.read()


def _cpu_seconds():
    """User + system CPU seconds of this process so far (all its threads)."""
    times = psutil.Process().cpu_times()
    return times.user + times.system


def lazy_rows(n_rows, n_features, block_rows, seed, distribution="uniform"):
    """Rows generated where each block is computed: uniform on [−1, 1)^d or
    standard normal."""
    rng = da.random.default_rng(seed)
    shape, chunks = (n_rows, n_features), (block_rows, n_features)
    if distribution == "normal":
        return rng.standard_normal(shape, chunks=chunks)
    return rng.uniform(-1.0, 1.0, shape, chunks=chunks)


def run_phase(client, driver, label, function):
    """Time ``function()`` and the peak memory of every process meanwhile."""
    client.run(_read_peak)  # a new peak in every worker
    driver.read()
    cpu = client.run(_cpu_seconds)
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    cpu_after = client.run(_cpu_seconds)
    return {
        "label": label,
        "seconds": seconds,
        "result": result,
        "workers": client.run(_read_peak),
        "driver": driver.read(),
        "cpu": sum(cpu_after[a] - cpu[a] for a in cpu),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--block-rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--distribution", choices=["uniform", "normal"], default="uniform"
    )
    parser.add_argument("--only", nargs="+", choices=PHASES, default=list(PHASES))
    args = parser.parse_args(argv)
    n_rows, d = int(args.rows), args.features
    # B a little above the norm of a typical row (E‖x‖² = d/3 for uniform
    # entries on [−1, 1), d for normal ones): the release clips only the
    # largest rows.
    typical = d / 3 if args.distribution == "uniform" else d
    public_bound = 1.25 * np.sqrt(typical)

    with (
        dask.config.set({"distributed.comm.timeouts.connect": "30s"}),
        LocalCluster(
            processes=True,
            n_workers=args.workers,
            threads_per_worker=1,
            dashboard_address=None,
            # The scheduler's HTTP server (health, metrics) on a free local
            # port, not 8787, which another cluster may hold.
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        ) as cluster,
        Client(cluster) as client,
    ):
        pids = client.run(_start_sampling, SAMPLE_SECONDS)
        driver = PeakMemory(SAMPLE_SECONDS)
        idle = client.run(_read_peak)
        X = lazy_rows(n_rows, d, args.block_rows, args.seed, args.distribution)
        print(
            f"{n_rows:.3g} {args.distribution} rows x {d} features "
            f"({X.nbytes / 2**30:.1f} GiB of "
            f"float64, never held), {X.numblocks[0]} blocks of {args.block_rows} "
            f"rows; LocalCluster(processes=True): {args.workers} worker processes "
            f"(pids {sorted(pids.values())}), 1 thread each; "
            f"{os.cpu_count()} CPUs; driver pid {os.getpid()}; idle RSS per "
            f"worker {', '.join(f'{rss / MiB:.0f}' for rss in idle.values())} MiB"
        )
        # Warm-up: imports in the workers, the first BLAS calls.
        warm = lazy_rows(
            4 * args.block_rows, d, args.block_rows, args.seed + 1, args.distribution
        )
        GaussianCovariance(norm_bound=public_bound, random_state=0).fit(warm)
        (warm.T @ warm).compute()

        phases = {
            "generate": (
                "generate (column sums)",
                lambda: X.sum(axis=0).compute(),
            ),
            "floor": ("floor: X.T @ X", lambda: (X.T @ X).compute()),
            "public": (
                f"gaussian, public bound {public_bound:.3g} (1 pass)",
                lambda: GaussianCovariance(norm_bound=public_bound, random_state=0).fit(
                    X
                ),
            ),
            "default": (
                "gaussian, default: private bound (2 passes)",
                lambda: GaussianCovariance(random_state=0).fit(X),
            ),
        }
        results = {
            key: run_phase(client, driver, *phases[key])
            for key in PHASES
            if key in args.only
        }

    floor = results.get("floor", {}).get("seconds")
    floor_cpu = results.get("floor", {}).get("cpu")
    print(
        f"\n{'':46s} {'wall s':>8s} {'rows/s':>11s} {'/ floor':>8s} "
        f"{'worker CPU s':>12s} {'/ floor':>8s} "
        f"{'peak RSS per worker (MiB)':>26s} {'driver MiB':>10s}"
    )
    for result in results.values():
        seconds, cpu = result["seconds"], result["cpu"]
        ratio = f"{seconds / floor:8.2f}" if floor else f"{'':8s}"
        cpu_ratio = f"{cpu / floor_cpu:8.2f}" if floor_cpu else f"{'':8s}"
        peaks = ", ".join(f"{peak / MiB:.0f}" for peak in result["workers"].values())
        print(
            f"{result['label']:46s} {seconds:8.1f} {n_rows / seconds:11.3g} "
            f"{ratio} {cpu:12.1f} {cpu_ratio} {peaks:>26s} "
            f"{result['driver'] / MiB:10.0f}"
        )
    print(
        "\nworker CPU s: user + system seconds of all worker processes (every "
        "thread) during the line; less disturbed than wall time by other load "
        f"on the machine (load average at the end: {os.getloadavg()[0]:.1f})."
    )
    # A sanity check of the releases against the floor's covariance.
    if "floor" in results:
        second_moment = results["floor"]["result"] / n_rows
        for key in ("public", "default"):
            if key in results:
                release = results[key]["result"]
                scale = release.norm_bound_**2
                error = np.linalg.norm(release.covariance_ - second_moment) / scale
                print(
                    f"{results[key]['label']}: ‖release − XᵀX/n‖_F / B² = "
                    f"{error:.2e} (B = {release.norm_bound_:.3g}; the clipped "
                    "rows and the centring make up most of it)"
                )


if __name__ == "__main__":
    main()

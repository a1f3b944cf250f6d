"""Large inputs: a memmap of 10⁷ × 100 rows, dask arrays, sparse hashing features.

For each case it prints the fit time, the non-private floor (the same data read
once and its Gram matrix computed by the same chunked dsyrk, or scipy's sparse
product), their ratio, and the memory a fit used on top of what it started with:

* ``alloc``: the peak of the bytes numpy and Python allocated (tracemalloc);
* ``anon``: the peak growth of the process's anonymous resident memory (RssAnon
  of /proc/self/status, sampled every 5 ms). Pages of a memmap that were read
  are file-backed and shared with the page cache: they count in RSS but not in
  RssAnon, and the kernel drops them under memory pressure.

Cases (``--case``, several allowed):

* ``memmap``: GaussianCovariance, SeparateCovariance and AdaptiveCovariance on
  the memmap, with its pages first evicted from the page cache ("cold",
  posix_fadvise) and then cached ("warm"). The file (8 GB by default) is made on
  first use in ``--data-dir``.
* ``passes``: AdaptiveCovariance's two passes (the norm profile, then the Gram
  matrix at the threshold it chose) against one pass that keeps, for every
  candidate threshold 2^e, e ∈ [−63, 0], the Gram matrices of the rows of norm
  in (2^{e−1}, 2^e] both as they are and normalised to norm 1 (the clipped rows
  at any threshold); the threshold's Gram matrix is then a sum of them. That
  alternative is prototyped here only to measure it.
* ``dask``: the memmap as a dask array of 10⁵-row blocks on the local threaded
  scheduler.
* ``sparse``: hashing-trick features (CSR and CSC, Zipf-distributed tokens).

    python benchmarks/bench_large_inputs.py [--case memmap passes dask sparse]
        [--n 10000000] [--d 100] [--data-dir /tmp/skprivcov-bench] [--repeats 3]

Times are the fastest of ``--repeats`` runs, memory the largest.
"""

import argparse
import os
import pathlib
import re
import threading
import time
import tracemalloc

import numpy as np
from scipy import sparse
from scipy.linalg import blas

from skprivcov import AdaptiveCovariance, GaussianCovariance, SeparateCovariance
from skprivcov._data._row_norms import row_norms
from skprivcov._data._statistics import (
    _ceil_log2,
    _dense_chunks,
    _rows_per_chunk,
    norm_profile,
    unit_ball_statistics,
)
from skprivcov.mechanisms import eigh_descending
from skprivcov.mechanisms._eigen import eigvalsh_descending

MiB = 2.0**20
REPEATS = 3


def _anonymous_rss():
    """RssAnon of this process, in bytes."""
    status = pathlib.Path("/proc/self/status").read_text()
    return int(re.search(r"RssAnon:\s+(\d+) kB", status).group(1)) * 1024


def measure(function, before=None):
    """(seconds, result, peak allocated bytes, peak RssAnon growth in bytes):
    the fastest time and the largest memory of ``REPEATS`` runs, each after
    ``before()`` (the eviction of a cold run)."""
    runs = []
    for _ in range(REPEATS):
        if before is not None:
            before()
        runs.append(_measure_once(function))
    return (
        min(run[0] for run in runs),
        runs[-1][1],
        max(run[2] for run in runs),
        max(run[3] for run in runs),
    )


def _measure_once(function):
    baseline = _anonymous_rss()
    peak = [baseline]
    running = threading.Event()
    running.set()

    def sample():
        while running.is_set():
            peak[0] = max(peak[0], _anonymous_rss())
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    tracemalloc.start()
    start = time.perf_counter()
    try:
        result = function()
    finally:
        seconds = time.perf_counter() - start
        allocated = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        running.clear()
        sampler.join()
    return seconds, result, allocated, peak[0] - baseline


def evict(path):
    """Drop the file's clean pages from the page cache (a cold read follows)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


def memmap_data(data_dir, n, d):
    """The benchmark's memmap: Gaussian directions times Pareto(3) norms, so
    about 2% of the rows exceed the bound 1 (made once, in 10⁵-row slabs)."""
    path = pathlib.Path(data_dir) / f"X_{n}x{d}.npy"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"writing {path} ({n * d * 8 / 2**30:.1f} GiB) ...", flush=True)
        X = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(n, d))
        rng = np.random.default_rng(0)
        for start in range(0, n, 100_000):
            rows = min(100_000, n - start)
            directions = rng.standard_normal((rows, d)) / np.sqrt(d)
            X[start : start + rows] = directions * 0.3 * rng.pareto(3.0, (rows, 1))
        X.flush()
        del X
    return path


def streaming_floor(X):
    """The non-private floor on a memmap: one read and the Gram matrix of the raw
    rows, by the same chunked dsyrk as the estimators."""
    d = X.shape[1]
    gram = np.zeros((d, d), order="F")
    for rows in _dense_chunks(X, _rows_per_chunk(d, None)):
        gram = blas.dsyrk(1.0, rows.T, beta=1.0, c=gram, overwrite_c=1)
    return gram


def report(label, seconds, allocated, anonymous, floor=None):
    ratio = f"{seconds / floor:7.2f}" if floor else f"{'':7}"
    memory = f"{allocated / MiB:10.1f}{anonymous / MiB:10.1f}"
    print(f"{label:<46}{seconds:9.2f}{ratio}{memory}", flush=True)


def header(title):
    print(f"\n## {title}")
    print(f"{'':<46}{'time [s]':>9}{'ratio':>7}{'alloc MiB':>10}{'anon MiB':>10}")


ESTIMATORS = [
    ("GaussianCovariance", lambda: GaussianCovariance(rho=0.1, random_state=0)),
    ("SeparateCovariance", lambda: SeparateCovariance(rho=0.1, random_state=0)),
    ("AdaptiveCovariance", lambda: AdaptiveCovariance(rho=0.1, random_state=0)),
]


def case_memmap(path):
    shape = np.load(path, mmap_mode="r").shape
    header(f"memmap {shape[0]} x {shape[1]} ({shape[0] * shape[1] / 2**27:.1f} GiB)")
    # Each run maps the file afresh: pages still mapped by an earlier memmap
    # would not be evicted.
    for cache in ("cold", "warm"):
        runs = [("floor: read + Gram", lambda: streaming_floor(load(path)))]
        runs += [
            (name, lambda m=make: m().fit(load(path))) for name, make in ESTIMATORS
        ]
        for name, function in runs:
            before = (lambda: evict(path)) if cache == "cold" else None
            seconds, result, allocated, anonymous = measure(function, before)
            if name.startswith("floor"):
                floor = seconds
            if hasattr(result, "mechanism_"):
                name = f"{name} ({result.mechanism_})"
            ratio_to = None if name.startswith("floor") else floor
            report(f"{name} ({cache})", seconds, allocated, anonymous, ratio_to)


def load(path):
    return np.load(path, mmap_mode="r")


def per_bucket_single_pass(X, norm_bound):
    """Prototype: every candidate threshold's Gram matrix from one pass.

    For e ∈ [−63, 0] it keeps Σ z zᵀ and Σ ẑ ẑᵀ (ẑ = z/‖z‖) over the rows with
    ⌈log₂‖z‖⌉ = e, and one Σ z zᵀ over all smaller rows (inside every
    threshold): twice the Gram work for the rows in the window, and up to 129
    d × d matrices.
    """
    d = X.shape[1]
    sums = {}
    for chunk in _dense_chunks(X, _rows_per_chunk(d, None)):
        norms = row_norms(chunk)
        rows = chunk / np.maximum(norms, norm_bound)[:, None]
        scaled = np.minimum(norms / norm_bound, 1.0)
        exponent = np.full(len(rows), -64)
        positive = scaled > 0
        exponent[positive] = np.maximum(_ceil_log2(scaled[positive]), -64)
        for e in np.unique(exponent):
            members = rows[exponent == e]
            kinds = [("raw", members)]
            if e > -64:
                kinds.append(("unit", members / scaled[exponent == e][:, None]))
            for kind, part in kinds:
                previous = sums.get((e, kind), np.zeros((d, d), order="F"))
                sums[(e, kind)] = blas.dsyrk(
                    1.0, part.T, beta=1.0, c=previous, overwrite_c=1
                )
    return sums


def case_passes(path, n_in_memory, d_in_memory):
    header("AdaptiveCovariance: two passes against one pass of per-bucket sums")
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n_in_memory, d_in_memory)) / np.sqrt(d_in_memory)
    X *= 0.3 * rng.pareto(3.0, (n_in_memory, 1))
    sources = [(f"in memory {n_in_memory} x {d_in_memory}", lambda: X, False)]
    sources += [("memmap (cold)", lambda: load(path), True)]
    sources += [("memmap (warm)", lambda: load(path), False)]
    steps = [
        ("pass 1: norm profile", norm_profile),
        ("pass 2: Gram at one threshold", unit_ball_statistics),
        ("one pass, per-bucket sums", per_bucket_single_pass),
    ]
    for label, source, cold in sources:
        for step, statistic in steps:
            seconds, result, allocated, anonymous = measure(
                lambda f=statistic, s=source: f(s(), 1.0),
                (lambda: evict(path)) if cold else None,
            )
            extra = f" [{len(result)} matrices]" if isinstance(result, dict) else ""
            report(f"{label}: {step}{extra}", seconds, allocated, anonymous)


def case_dask(path):
    import dask.array as da

    X = da.from_array(np.load(path, mmap_mode="r"), chunks=(100_000, -1))
    header(f"dask array {X.shape[0]} x {X.shape[1]}, {X.numblocks[0]} blocks, threads")
    for name, make in ESTIMATORS:
        seconds, _, allocated, anonymous = measure(lambda m=make: m().fit(X))
        report(name, seconds, allocated, anonymous)


def hashing_features(n, d, tokens_per_row, rng):
    """CSR rows of Zipf(1.2)-distributed token counts hashed into d columns,
    normalised to unit ℓ2 norm (a TF-IDF-like bag of words)."""
    columns = (rng.zipf(1.2, size=n * tokens_per_row) * 2654435761) % d
    rows = np.repeat(np.arange(n), tokens_per_row)
    X = sparse.csr_matrix((np.ones(n * tokens_per_row), (rows, columns)), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sparse.diags_array(1.0 / norms) @ X


def case_sparse(n, d):
    rng = np.random.default_rng(2)
    X = hashing_features(n, d, 60, rng).tocsr()
    header(f"hashing features: CSR {n} x {d}, {X.nnz / n:.0f} non-zeros per row")
    seconds, gram, allocated, anonymous = measure(lambda: (X.T @ X).toarray())
    report("floor: scipy X.T @ X", seconds, allocated, anonymous)
    # SeparateCov's floor adds the eigenvalues of Σ and the eigendecomposition
    # of the noisy matrix.
    eigen = measure(lambda: eigvalsh_descending(gram))[0]
    eigen += measure(lambda: eigh_descending(gram))[0]
    floors = {"GaussianCovariance": seconds, "SeparateCovariance": seconds + eigen}
    report("floor + eigendecompositions", seconds + eigen, 0, 0)
    for fmt in ("csr", "csc"):
        data = X.asformat(fmt)
        for name, make in ESTIMATORS[:2]:
            seconds, _, allocated, anonymous = measure(
                lambda m=make, x=data: m().fit(x)
            )
            report(f"{name} ({fmt})", seconds, allocated, anonymous, floors[name])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--case",
        nargs="*",
        default=["memmap", "passes", "dask", "sparse"],
        choices=["memmap", "passes", "dask", "sparse"],
    )
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--data-dir", default="/tmp/skprivcov-bench")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    global REPEATS
    REPEATS = args.repeats
    if {"memmap", "passes", "dask"} & set(args.case):
        path = memmap_data(args.data_dir, args.n, args.d)
    if "memmap" in args.case:
        case_memmap(path)
    if "passes" in args.case:
        case_passes(path, 100_000, 1000)
    if "dask" in args.case:
        case_dask(path)
    if "sparse" in args.case:
        case_sparse(200_000, 4096)


if __name__ == "__main__":
    main()

"""Private PCA against diffprivlib's and OpenDP's, at equal pure ε.

Captured variance of the top-k subspace, tr(VᵀCV) / tr(V*ᵀCV*) with C the
non-private covariance and V* its top-k eigenvectors (1 = the non-private
PCA), and the fit time, on digits (pixels / 128: rows in the unit ball) and a
synthetic Gaussian with a decaying spectrum (n = 20000, d = 20, λ_i ∝ 0.7^i,
rows clipped to the unit ball), for ε ∈ {0.5, 1, 4} and k ∈ {2, 5, 10}; mean
of 10 releases (a peer cell stops at its first DNF), next to a uniformly
random subspace (what a release carrying no information gives). Each peer
fit runs in its own process, stopped after 60 s (DNF). Equal spend:
diffprivlib's ``PCA(centered=False)`` spends its ε on the mean and the
covariance together (given public feature bounds); OpenDP's class spends twice
its ``epsilon`` by its own accounting, so it gets ε/2.

Peers are benchmark extras, never dependencies. In an environment with
scikit-learn 1.6 (diffprivlib 0.6.6 does not import with 1.9):

    pip install "scikit-learn==1.6.1" diffprivlib opendp randomgen && pip install -e .
    python benchmarks/bench_pca_peers.py
"""

import argparse
import multiprocessing
import time
from queue import Empty

import numpy as np
from _settings import markdown_table
from sklearn.datasets import load_digits

EPSILONS = (0.5, 1.0, 4.0)
COMPONENTS = (2, 5, 10)
TIMEOUT = 60.0


def datasets():
    rng = np.random.default_rng(0)
    scales = np.sqrt(0.7 ** np.arange(20))
    X = rng.normal(size=(20000, 20)) * scales * 0.25
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    return {
        "digits": (load_digits().data / 128.0, (0.0, 16.0 / 128.0)),
        "gaussian d=20": (X, (-1.0, 1.0)),
    }


def _fit(method, X, bounds, epsilon, k, seed):
    """(components (k, d), seconds) of one private PCA fit."""
    start = time.perf_counter()
    if method == "skprivcov Auto":
        from skprivcov import AutoCovariance
        from skprivcov.decomposition import PrivatePCA

        model = PrivatePCA(
            n_components=k,
            estimator=AutoCovariance(epsilon=epsilon, allow_zero=False),
            random_state=seed,
        ).fit(X)
    elif method == "skprivcov EMCov rank k":
        from skprivcov import IterativeEigenCovariance
        from skprivcov.decomposition import PrivatePCA

        model = PrivatePCA(
            n_components=k,
            estimator=IterativeEigenCovariance(epsilon=epsilon),
            random_state=seed,
        ).fit(X)
    elif method == "random subspace":
        # The floor: a uniformly random k-dimensional subspace (no data).
        from scipy.stats import ortho_group

        return ortho_group.rvs(X.shape[1], random_state=seed)[:k], 0.0
    elif method == "diffprivlib":
        from diffprivlib.models import PCA

        model = PCA(
            n_components=k,
            epsilon=epsilon,
            data_norm=1.0,
            centered=False,
            bounds=bounds,
            random_state=seed,
        ).fit(X)
    else:  # OpenDP
        import opendp.prelude as dp
        from opendp.extras.sklearn.decomposition import PCA

        # The features its PCA class asks for (a peer's own caveats).
        dp.enable_features("contrib", "honest-but-curious", "idealized-numerics")
        model = PCA(
            epsilon=epsilon / 2,
            row_norm=1.0,
            n_samples=X.shape[0],
            n_features=X.shape[1],
            n_components=k,
        ).fit(X)
    return np.asarray(model.components_)[:k], time.perf_counter() - start


def _worker(queue, *args):
    try:
        queue.put(_fit(*args))
    except Exception as error:  # a peer failing is a result to report
        queue.put(type(error).__name__)


def timed_fit(method, *args):
    """_fit of a peer in its own process, or "DNF" after TIMEOUT seconds
    (skprivcov and the random floor run here: they neither hang nor crash)."""
    if not method.startswith(("diffprivlib", "OpenDP")):
        return _fit(method, *args)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_worker, args=(queue, method, *args))
    process.start()
    try:
        # Read before joining: a child cannot exit before its result is read.
        result = queue.get(timeout=TIMEOUT)
    except Empty:
        result = "DNF" if process.is_alive() else "crashed"
    process.terminate()
    process.join()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    methods = [
        "skprivcov Auto",
        "skprivcov EMCov rank k",
        "diffprivlib",
        "OpenDP",
        "random subspace",
    ]
    rows = []
    for name, (X, bounds) in datasets().items():
        covariance = np.cov(X, rowvar=False, bias=True)
        values = np.linalg.eigvalsh(covariance)
        for epsilon in EPSILONS:
            for k in COMPONENTS:
                best = values[::-1][:k].sum()
                cells = [name, epsilon, k]
                for method in methods:
                    results = []
                    for seed in range(args.repeats):
                        results.append(timed_fit(method, X, bounds, epsilon, k, seed))
                        if isinstance(results[-1], str):
                            break  # DNF or failed: the cell is that
                    if any(isinstance(result, str) for result in results):
                        failed = [r for r in results if isinstance(r, str)]
                        cells.append(failed[0])
                        continue
                    captured = [
                        np.trace(c @ covariance @ c.T) / best for c, _ in results
                    ]
                    seconds = np.mean([s for _, s in results])
                    cells.append(f"{np.mean(captured):.3f} ({seconds:.2f} s)")
                rows.append(cells)
                print(" | ".join(str(c) for c in cells), flush=True)
    print("\ncaptured variance / non-private (fit time), mean of", args.repeats, "\n")
    print(markdown_table(["data", "ε", "k", *methods], rows))


if __name__ == "__main__":
    main()

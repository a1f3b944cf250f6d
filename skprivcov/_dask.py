"""dask.array input: detection, validation without loading X, block reductions.

dask is optional (the ``dask`` extra). Nothing here imports it unless X already
is a dask array, so dask is never a dependency of the other inputs. The
statistics of a dask array are reduced block by block where the blocks live
(each block through the numpy or scipy.sparse path of ``_stats``); only the
d × d partial sums travel, added pairwise in a tree fixed by the chunking, and
the release is computed on the driver.
"""

import sys

import numpy as np

__all__ = ["check_dask_array", "compute_array", "is_dask_array", "reduce_blocks"]


def is_dask_array(X):
    """Whether X is a ``dask.array.Array`` (False when dask is not imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(X, module.Array)


def check_dask_array(X, *, ensure_min_samples, ensure_min_features, owner):
    """Checks of ``sklearn.utils.check_array`` for a dask array, without loading it.

    2-D, known shape, numeric (integers and booleans become float64 lazily;
    float32 and float64 are kept), enough rows and columns. These are public
    facts: no value of X is read (docs/algorithms.rst §13.2). The values are checked
    in the first statistics pass, after the budget is charged.

    Returns
    -------
    X : dask array of float32 or float64.
    """
    if X.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got a dask array with {X.ndim} dimension(s) "
            f"(shape {X.shape}); {owner} needs X of shape (n_samples, n_features)."
        )
    if any(np.isnan(size) for size in X.shape):
        raise ValueError(
            f"The dask array X has unknown chunk sizes (shape {X.shape}); call "
            "X.compute_chunk_sizes() before fitting."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(
            f"{owner} needs numeric X; the dask array has dtype {X.dtype}."
        )
    if X.dtype not in (np.float32, np.float64):
        X = X.map_blocks(_as_float64, dtype=np.float64)
    n_samples, n_features = X.shape
    if n_samples < ensure_min_samples:
        raise ValueError(
            f"Found array with {n_samples} sample(s) (shape={X.shape}) while a "
            f"minimum of {ensure_min_samples} is required by {owner}."
        )
    if n_features < ensure_min_features:
        raise ValueError(
            f"Found array with {n_features} feature(s) (shape={X.shape}) while a "
            f"minimum of {ensure_min_features} is required by {owner}."
        )
    return X


def _as_float64(block):
    """A block cast to float64 in silence, in whatever thread runs it: a
    warning that a float128 overflows would tell that a value is huge
    (docs/algorithms.rst §13.1); the value becomes inf, for the nonfinite rule."""
    with np.errstate(all="ignore"):
        return block.astype(np.float64)


def _add(left, right):
    """Element-wise sum of two tuples of partial sums (None stays None)."""
    return tuple(None if a is None else a + b for a, b in zip(left, right, strict=True))


def reduce_blocks(X, function, *args):
    """Σ over the row blocks of X of ``function(block, *args)`` (a tuple of
    arrays), computed on the cluster and added pairwise in a fixed tree. Each
    block holds whole rows (the columns are rechunked into one)."""
    import dask

    blocks = X.rechunk({1: -1}).to_delayed().ravel()
    parts = [dask.delayed(function)(block, *args) for block in blocks]
    while len(parts) > 1:
        pairs = [
            dask.delayed(_add)(a, b)
            for a, b in zip(parts[::2], parts[1::2], strict=False)
        ]
        parts = pairs + parts[2 * len(pairs) :]
    (total,) = _computed(dask.compute, parts[0])
    return total


def compute_array(X):
    """``X.compute()``, with the error of a failing block reported by its type
    only (see :func:`_computed`)."""
    return _computed(lambda array: array.compute(), X)


def _computed(compute, *args):
    try:
        return compute(*args)
    except Exception as error:
        # A block's own computation failed (a loader, a map_blocks function):
        # its message may quote a value of X, and no message may name one
        # (docs/algorithms.rst §13.1).
        raise RuntimeError(
            f"Computing the blocks of the dask array X failed "
            f"({type(error).__name__}); the message is not shown, since it may "
            "quote a value of X. Compute a block by hand to see it."
        ) from None

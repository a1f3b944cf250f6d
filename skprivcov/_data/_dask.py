"""dask.array input: detection, validation without loading X, block reductions.

dask is optional (the ``dask`` extra). Nothing here imports it unless X already
is a dask array, so dask is never a dependency of the other inputs. The
statistics of a dask array are reduced block by block where the blocks live
(each block through the numpy or scipy.sparse path of ``_stats``); only the
d × d partial sums travel, added pairwise in a tree fixed by the chunking, and
the release is computed on the driver.
"""

import sys
import uuid

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
    (docs/algorithms.rst §13.1); the value becomes inf, for the nonfinite rule.
    A block whose values are not what its dtype says (a word in an int64
    array) fails the cast with a message that quotes the value, and a worker
    logs the message of every failed task: it fails as a BlockError that
    names the error's type only (:func:`_on_block`)."""
    return _on_block(_cast_quietly, block)


def _cast_quietly(block):
    with np.errstate(all="ignore"):
        return block.astype(np.float64)


def _add(left, right):
    """Element-wise sum of two tuples of partial sums (None stays None)."""
    return tuple(None if a is None else a + b for a, b in zip(left, right, strict=True))


class BlockError(Exception):
    """The statistics of a block failed where the block lives; only the type
    of the error is kept (``type_name``)."""

    def __init__(self, type_name):
        super().__init__(type_name)
        self.type_name = type_name


def _on_block(function, block, *args):
    """``function(block, *args)``, run where the block lives. An error of its
    own (a block whose values are not what its dtype says, say) may quote a
    value of X, and a worker logs the message of every failed task (dask's
    "Compute Failed", kept in the worker's log and sent to any client that
    asks, ``Client.get_worker_logs``): it leaves the worker as a BlockError
    that names its type only (docs/algorithms.rst §13.1). A failure of the
    block itself (the user's loader) fails an earlier task, not this one."""
    try:
        return function(block, *args)
    except Exception as error:
        type_name = type(error).__name__
    # Raised outside the handler, so that the original (its message, its
    # frames and their blocks) is not kept as this one's context.
    raise BlockError(type_name)


def reduce_blocks(X, function, *args):
    """Σ over the row blocks of X of ``function(block, *args)`` (a tuple of
    arrays), computed on the cluster and added pairwise in a fixed tree. Each
    block holds whole rows (the columns are rechunked into one)."""
    import dask
    from dask.utils import funcname

    blocks = X.rechunk({1: -1}).to_delayed().ravel()
    # Keys named after ``function``, as dask.delayed(function) would name them.
    parts = [
        dask.delayed(_on_block)(
            function, block, *args, dask_key_name=f"{funcname(function)}-{uuid.uuid4()}"
        )
        for block in blocks
    ]
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
        if isinstance(error, BlockError):  # a block's statistics (_on_block)
            type_name = error.type_name
        else:
            type_name = type(error).__name__
    # Raised outside the handler: the original error is not kept as its
    # context either (``from None`` only hides it from tracebacks; any code
    # that reads ``__context__`` would still find its message).
    raise RuntimeError(
        f"Computing the blocks of the dask array X failed ({type_name}); the "
        "message is not shown, since it may quote a value of X. Compute a block "
        "by hand to see it."
    ) from None

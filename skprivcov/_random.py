"""The single source of randomness of a fit."""

import numbers

import numpy as np

__all__ = ["check_generator"]


def check_generator(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` seeds a new generator from OS entropy (not from numpy's global
    state); an int seeds ``default_rng``; a Generator is used as is (and so is
    advanced); a legacy ``RandomState`` is consumed for a 128-bit seed, so that
    scikit-learn style instances keep working.
    """
    if random_state is None or isinstance(random_state, numbers.Integral):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int.from_bytes(random_state.bytes(16), "little"))
    raise TypeError(
        "random_state must be None, an int, a numpy Generator or RandomState; "
        f"got {random_state!r}."
    )

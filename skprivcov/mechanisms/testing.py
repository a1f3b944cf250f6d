"""Testing utilities of the mechanisms: the privacy audits' planted bug.

Not for releases. :func:`planted_scale` makes every noise scale of one kind
smaller, in the whole process, so that an audit can show that its test
catches a noise too small (docs/audit.rst, ``tests/test_audit.py``). A fit
made while a bug is planted, on any thread, is not private at its stated
budget.
"""

import contextlib
import math
import threading

from skprivcov.mechanisms import _covariance
from skprivcov.mechanisms.noise import _hardened as _hardened
from skprivcov.mechanisms.noise import _source as _noise_source

__all__ = ["planted_scale"]

# The hardened path's two plans: a float statistic's grid and an exact
# statistic's integers (docs/algorithms.rst §17, §19).
_PLANS = ("noise_plan", "exact_noise_plan")
# One plant at a time in the process; contexts of the same plant nest (the
# audit's threads each enter it), and the honest functions come back when
# the last one exits, whatever the order of the exits.
_LOCK = threading.Lock()
_ACTIVE = {"plant": None, "depth": 0, "originals": {}}


def _smaller_scale(original, factor):
    def smaller_scale(*args, **kwargs):
        return factor * original(*args, **kwargs)

    return smaller_scale


def _smaller_plan(original, factor):
    def smaller_plan(*args, **kwargs):
        honest = original(*args, **kwargs)
        units = honest.units * factor
        return honest._replace(
            units=units if honest.gaussian else max(1, math.ceil(units))
        )

    return smaller_plan


def _install(function, factor):
    """Replace the honest functions; return them, to be put back."""
    # The float scale where each path computes it (the eigenvalues in
    # _covariance, the second moments in _noise_source), and both plans.
    originals = {
        (module, function): getattr(module, function)
        for module in (_covariance, _noise_source)
    }
    originals.update({(_hardened, name): getattr(_hardened, name) for name in _PLANS})
    for (module, name), original in originals.items():
        smaller = _smaller_plan if module is _hardened else _smaller_scale
        setattr(module, name, smaller(original, factor))
    return originals


@contextlib.contextmanager
def planted_scale(function, factor):
    """Plant a bug, for audits only: a noise scale multiplied by ``factor``.

    In the context, the noise scale ``function`` of the float path is
    multiplied by ``factor`` in the whole process, and so is every discrete
    noise scale of the hardened path (docs/algorithms.rst §17).
    :func:`skprivcov.utils.audit` plants it to show that its test catches a
    noise too small (docs/audit.rst). Never release anything while it is
    active: a fit on any thread then has less noise than its budget says.

    Parameters
    ----------
    function : {"gaussian_scale", "laplace_scale"}
        The noise scale to change.
    factor : float
        What it is multiplied by (e.g. 0.5: half the noise).

    Yields
    ------
    None
        The honest scales come back when the last context of the plant exits
        (contexts of the same plant nest, on any thread).

    Raises
    ------
    RuntimeError
        If another plant (another function or factor) is active.
    """
    plant = (function, float(factor))
    with _LOCK:
        if _ACTIVE["depth"] and _ACTIVE["plant"] != plant:
            raise RuntimeError(
                "Another planted bug is active in this process: plant one at a time."
            )
        if not _ACTIVE["depth"]:
            _ACTIVE["originals"] = _install(function, factor)
            _ACTIVE["plant"] = plant
        _ACTIVE["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _ACTIVE["depth"] -= 1
            if not _ACTIVE["depth"]:
                for (module, name), original in _ACTIVE["originals"].items():
                    setattr(module, name, original)
                _ACTIVE["originals"], _ACTIVE["plant"] = {}, None

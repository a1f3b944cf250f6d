"""A planted bug for the privacy audits: every noise scale made smaller.

docs/audit.rst: an audit must catch a mechanism whose noise is too small; the
audits plant that bug here, where the noise scales are computed, and check
that their test fails on it (``tests/test_audit.py``).
"""

import contextlib
import math

from skprivcov.mechanisms import _covariance, _hardened, _noise_source

__all__ = ["planted_scale"]


@contextlib.contextmanager
def _scaled(module, name, factor):
    original = getattr(module, name)
    setattr(module, name, lambda *args: factor * original(*args))
    try:
        yield
    finally:
        setattr(module, name, original)


_PLANS = ("noise_plan", "exact_noise_plan")


@contextlib.contextmanager
def planted_scale(function, factor):
    """Plant a bug, for audits only: a noise scale multiplied by ``factor``.

    A context in which the noise scale ``function`` of the float path is multiplied by
    ``factor``, and so is every discrete noise scale of the hardened path
    (docs/algorithms.rst §17).

    :func:`skprivcov.utils.audit` plants it to show that its test catches a
    noise too small (docs/audit.rst). Never use it to release anything.

    Parameters
    ----------
    function : {"gaussian_scale", "laplace_scale"}
        The noise scale to change.
    factor : float
        What it is multiplied by (e.g. 0.5: half the noise).

    Yields
    ------
    None
        The scales are restored on exit.
    """
    plans = {name: getattr(_hardened, name) for name in _PLANS}

    def smaller(plan):
        def smaller_plan(*args, **kwargs):
            honest = plan(*args, **kwargs)
            units = honest.units * factor
            return honest._replace(
                units=units if honest.gaussian else max(1, math.ceil(units))
            )

        return smaller_plan

    # The float scale where each path computes it (the eigenvalues in
    # _covariance, the second moments in _noise_source), and both hardened
    # plans (a float statistic's grid, an exact statistic's integers, §19).
    with (
        _scaled(_covariance, function, factor),
        _scaled(_noise_source, function, factor),
    ):
        for name, plan in plans.items():
            setattr(_hardened, name, smaller(plan))
        try:
            yield
        finally:
            for name, plan in plans.items():
                setattr(_hardened, name, plan)

"""What an estimator's parameters may say in a ledger or a record (§13.1)."""

import numpy as np
from sklearn.base import BaseEstimator

from skprivcov.mechanisms.noise import seed_description

__all__ = ["describe", "public_parameters"]


def public_parameters(estimator):
    """The parameters of ``estimator`` that may be published with its release.

    Never the seed: with it and the release, anyone could regenerate the noise
    and subtract it; only whether one was fixed (then releases with the same
    seed share their noise). Nor the accountant (not a parameter of the
    release). A nested estimator is described by its own public parameters,
    an array by its shape only; other values by their repr.

    Parameters
    ----------
    estimator : estimator
        The estimator.

    Returns
    -------
    parameters : dict
        Its public parameters, by name.
    """
    parameters = estimator.get_params(deep=False)
    parameters.pop("accountant", None)
    if "random_state" in parameters:
        parameters["random_state"] = seed_description(parameters["random_state"])
    return {name: _public_value(value) for name, value in parameters.items()}


def describe(estimator):
    """``Name(parameter=value, ...)`` with the public parameters only.

    Parameters
    ----------
    estimator : estimator
        The estimator.

    Returns
    -------
    description : str
        Its class name and :func:`public_parameters`.
    """
    arguments = ", ".join(
        f"{name}={value!r}" for name, value in public_parameters(estimator).items()
    )
    return f"{type(estimator).__name__}({arguments})"


def _public_value(value):
    if isinstance(value, bool | int | float | str | None):
        return value
    if isinstance(value, BaseEstimator):
        return describe(value)
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    return repr(value)

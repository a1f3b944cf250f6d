"""Exceptions raised by skprivcov's privacy layer, and its warning."""

__all__ = [
    "BudgetExceededError",
    "NoiseDominatedWarning",
    "UnsupportedPrivacyNotionError",
]


class BudgetExceededError(ValueError):
    """A fit would spend more privacy budget than an accountant has left.

    Raised before any data is read; nothing is computed or recorded.

    See Also
    --------
    PrivacyAccountant : Raises it.
    UnsupportedPrivacyNotionError : The other refusal before any data is read.

    Examples
    --------
    >>> from skprivcov import BudgetExceededError, PrivacyAccountant, PrivacyCost
    >>> accountant = PrivacyAccountant(rho=1.0)
    >>> try:
    ...     _ = accountant.spend(PrivacyCost.zcdp(2.0), source="example")
    ... except BudgetExceededError:
    ...     print("refused")
    refused
    """


class UnsupportedPrivacyNotionError(ValueError):
    """The requested privacy notion is not offered by this mechanism.

    For example pure ε-DP (``delta=0``) asked of a Gaussian mechanism, or a
    zCDP budget ``rho`` given to a mechanism that is pure ε-DP only.

    See Also
    --------
    BudgetExceededError : The other refusal before any data is read.

    Examples
    --------
    >>> from skprivcov import GaussianCovariance, UnsupportedPrivacyNotionError
    >>> try:
    ...     GaussianCovariance(epsilon=1.0).fit([[0.1, 0.2], [0.3, 0.1]])
    ... except UnsupportedPrivacyNotionError:
    ...     print("no pure version")
    no pure version
    """


class NoiseDominatedWarning(UserWarning):
    """A release is mostly noise, or nothing, at the budget and n it was fit at.

    Warned after a fit whose release is dominated by its noise: its largest
    eigenvalue is below ``NOISE_DOMINATED_RATIO`` (4) times the public noise
    level of its budget (``signal_to_noise_`` < 4, docs/algorithms.rst §23),
    or the release is the zero matrix; and when a private bound falls on the
    edge of its grid. The message names the rows or budget that would change
    that. Post-processing of the release and public facts only: the warning
    reveals nothing the release does not.

    See Also
    --------
    BudgetExceededError : A refusal before any data is read.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.privacy import NoiseDominatedWarning
    >>> X = np.random.default_rng(0).normal(size=(50, 4))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     est = GaussianCovariance(rho=0.01, norm_bound=4.0, random_state=0).fit(X)
    >>> any(issubclass(w.category, NoiseDominatedWarning) for w in caught)
    True
    >>> bool(est.signal_to_noise_ < 4)
    True
    """

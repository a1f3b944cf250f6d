"""Exceptions raised by skprivcov's privacy layer."""

__all__ = ["BudgetExceededError", "UnsupportedPrivacyNotionError"]


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

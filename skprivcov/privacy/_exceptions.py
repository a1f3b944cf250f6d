"""Exceptions raised by skprivcov's privacy layer."""

__all__ = ["BudgetExceededError", "UnsupportedPrivacyNotionError"]


class BudgetExceededError(ValueError):
    """A fit would spend more privacy budget than an accountant has left.

    Raised before any data is read; nothing is computed or recorded.
    """


class UnsupportedPrivacyNotionError(ValueError):
    """The requested privacy notion is not offered by this mechanism.

    For example pure ε-DP (``delta=0``) asked of a Gaussian mechanism, or a
    zCDP budget ``rho`` given to a mechanism that is pure ε-DP only.
    """

"""Caveats that weaken a privacy guarantee, in machine-readable form.

docs/algorithms.rst §13.6: a caveat is carried wherever a cost is recorded (the
``PrivacyCost`` of a fit, the accountant's ledger, the command line's record)
and survives composition. Each has a short code and a statement.
"""

__all__ = ["CAVEATS", "MCMC_NOISE"]

MCMC_NOISE = "mcmc-noise"

CAVEATS = {
    MCMC_NOISE: (
        "Part of the noise is drawn by a Markov chain run for a finite number "
        "of sweeps (the normalised spectrum of nuclear-Laplace noise, "
        "docs/algorithms.rst §6.3). The stated ε holds for the exact noise law; if the "
        "chain's law is at total variation η from it, the release is "
        "(ε, (1 + e^ε)·η)-DP, and η is not certified."
    ),
}

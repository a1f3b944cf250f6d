"""High-probability bounds on the norms of noise (utility only, never privacy).

docs/algorithms.rst §0.3 (DLY22 Lemmas 6–7) for Gaussian noise and, for Laplace
noise, the explicit constants of the authors' code (the paper's Lemmas 15–17
only give O(·)). They feed AdaptiveCov's decision rule, which is data
independent given the private trace: their values never affect privacy.
"""

import math

__all__ = ["eta", "eta_laplace", "nu", "nu_laplace", "omega", "omega_laplace"]


def eta(d, b):
    """‖N(0, I_d)‖₂ ≤ η(d, b) with probability ≥ 1 − b (Laurent–Massart)."""
    log_b = math.log(1.0 / b)
    return math.sqrt(d + 2.0 * math.sqrt(d * log_b) + 2.0 * log_b)


def nu(d, b):
    """‖SGW(d)‖_op ≤ ν(d, b) w.p. ≥ 1 − b (Bandeira–van Handel); d = 1 guarded."""
    tail = 2.0 * math.sqrt(2.0 * math.log(1.0 / b))
    if d == 1:
        return 2.0 + tail
    log_d = math.log(d)
    theta = (log_d / d) ** (1.0 / 3.0)
    return (
        2.0 * math.sqrt(d)
        + 2.0 * d ** (1.0 / 6.0) * log_d ** (1.0 / 3.0)
        + 6.0 * (1.0 + theta) * math.sqrt(log_d) / math.sqrt(math.log1p(theta))
        + tail
    )


def omega(d, b):
    """‖SGW(d)‖_F ≤ ω(d, b) w.p. ≥ 1 − b."""
    log_2b = math.log(2.0 / b)
    return math.sqrt(
        d * d
        + 2.0 * math.sqrt(d * log_2b) * (1.0 + math.sqrt(2.0 * (d - 1)))
        + 6.0 * log_2b
    )


def _k1(m):
    return 2.0 * max(
        (math.sqrt(2) + 1) / (math.sqrt(2) - 1), 2.0 * math.log(m) / math.log(2)
    )


def eta_laplace(d, b):
    """Bound on ‖Lap(1)^d‖₂ (reference-code constants)."""
    return 1.5 * math.sqrt(d) + math.log(2.0 / b) * _k1(d)


def nu_laplace(d, b):
    """Bound on ‖SLW(d)‖_op (reference-code constants); d = 1 guarded."""
    tail = math.sqrt(2.0) * math.log(2.0 / b) * _k1(d * (d + 1) / 2)
    if d == 1:
        return 2.0 + tail
    log_d = math.log(d)
    theta = min((log_d / d) ** 0.3, 0.5)
    return (1.0 + theta) * (
        2.0 * math.sqrt(d) + 6.0 * log_d / math.sqrt(math.log1p(theta))
    ) + tail


def omega_laplace(d, b):
    """Bound on ‖SLW(d)‖_F (reference-code constants)."""
    return 1.5 * d + math.log(2.0 / b) * _k1(d * (d + 1) / 2)

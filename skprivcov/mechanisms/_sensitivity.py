"""Sensitivities of the statistics released by the mechanisms.

Replace-one neighbours, every row in the unit ℓ2 ball, n rows (docs/algorithms.rst §0,
§0.2). Σ = XᵀX/n is the uncentred second moment.
"""

import math

__all__ = [
    "class_counts_sensitivity",
    "class_squares_sensitivity",
    "class_sums_sensitivity",
    "eigenvalues_l1_sensitivity",
    "eigenvalues_l2_sensitivity",
    "gaussian_scale",
    "laplace_scale",
    "per_class_sums_l1_sensitivity",
    "second_moment_l1_sensitivity",
    "second_moment_l2_sensitivity",
    "second_moment_nuclear_sensitivity",
    "trace_sensitivity",
]


def second_moment_l2_sensitivity(n_samples):
    """The Frobenius (ℓ2 of the upper triangle) sensitivity of Σ: √2/n (§0.2).

    ‖xxᵀ − yyᵀ‖_F² = ‖x‖⁴ + ‖y‖⁴ − 2(x·y)² ≤ 2, and the upper-triangle vector has
    at most the Frobenius norm.

    Parameters
    ----------
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return math.sqrt(2.0) / n_samples


def second_moment_l1_sensitivity(n_features, n_samples):
    """The ℓ1 sensitivity of the upper triangle (diagonal included) of Σ.

    docs/algorithms.rst §0.2 gives the valid bound √(d(d+1))/n (Cauchy–Schwarz over the
    d(d+1)/2 coordinates; the paper's √2·d/n is looser). We use the smaller of it
    and d/√2 + 1 (over n), which is also provably valid [derived here]: with
    D = xxᵀ − yyᵀ, ::

        Σ_{j≤k} |D_jk| = ½ Σ_{j,k} |D_jk| + ½ Σ_j |D_jj|
                       ≤ ½ d ‖D‖_F + ½ (‖x‖² + ‖y‖²)   (Cauchy–Schwarz over d²)
                       ≤ d/√2 + 1.

    It is about 29% smaller than √(d(d+1)) for large d.

    Parameters
    ----------
    n_features : int
        The number of features d.
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    d = n_features
    return min(math.sqrt(d * (d + 1.0)), d / math.sqrt(2.0) + 1.0) / n_samples


def per_class_sums_l1_sensitivity(n_features, n_samples):
    """Joint ℓ1 sensitivity of the per-class sums of augmented rows (§15).

    S_c = Σ_{i∈c} a_i a_iᵀ / n over the rows of class c, a = (x/√2, 1/√2) with
    ‖x‖ ≤ 1 in R^d; the upper triangles (diagonal included) of all classes
    stacked [derived here]. Replacing one row (a, c) by (b, c') subtracts
    aaᵀ/n from S_c and adds bbᵀ/n to S_c', so the change has ℓ1 norm at most
    (U(aaᵀ) + U(bbᵀ))/n, with U(aaᵀ) = Σ_{j≤k} abs(a_j a_k) = ½(‖a‖₁² + ‖a‖₂²)
    (the same bound holds when c = c', by the triangle inequality). For the
    augmented rows ‖a‖₂² = (‖x‖² + 1)/2 ≤ 1 and ‖a‖₁ = (‖x‖₁ + 1)/√2 ≤
    (√d + 1)/√2, both at x = (1, …, 1)/√d, so ::

        Δ₁ = ((√d + 1)²/2 + 1) / n,

    attained by moving that row to another class.

    Parameters
    ----------
    n_features : int
        The number of features d.
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return ((math.sqrt(n_features) + 1.0) ** 2 / 2.0 + 1.0) / n_samples


def class_counts_sensitivity(n_samples, notion):
    """Sensitivity of the stacked class shares (n_1, …, n_C)/n (§21).

    A row that changes class moves two counts by one each; within its class
    none: ℓ1 2/n (pure), ℓ2 √2/n (zCDP), attained by any change of class.

    Parameters
    ----------
    n_samples : int
        The number of rows n.
    notion : {"pure", "zcdp"}
        The ℓ1 (pure) or ℓ2 (zCDP) sensitivity.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return (2.0 if notion == "pure" else math.sqrt(2.0)) / n_samples


def class_sums_sensitivity(n_features, n_samples, notion):
    """Sensitivity of the stacked class sums (Σ_{i∈c} z_i / n)_c (§21).

    Rows in the unit ball of R^d. A row x of class c replaced by y of class
    c' ≠ c moves two blocks, by −x and +y: ℓ2 √(‖x‖² + ‖y‖²) ≤ √2, ℓ1
    ‖x‖₁ + ‖y‖₁ ≤ 2√d (‖x‖₁ ≤ √d‖x‖₂). Within one class the block moves by
    y − x: ℓ2 ‖y − x‖ ≤ 2 (attained at y = −x), ℓ1 ≤ 2√d (attained at
    x = −y = (1, …, 1)/√d). So Δ₁ = 2√d/n, Δ₂ = 2/n.

    Parameters
    ----------
    n_features : int
        The number of features d.
    n_samples : int
        The number of rows n.
    notion : {"pure", "zcdp"}
        The ℓ1 (pure) or ℓ2 (zCDP) sensitivity.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    if notion == "pure":
        return 2.0 * math.sqrt(n_features) / n_samples
    return 2.0 / n_samples


def class_squares_sensitivity(n_samples, notion):
    """Sensitivity of the stacked sums of squares (Σ_{i∈c} z_i⊙z_i / n)_c.

    Or of the pooled Σ_i z_i⊙z_i / n (§21).
    x⊙x ≥ 0 and ‖x⊙x‖₁ = ‖x‖² ≤ 1, ‖x⊙x‖₂² = ‖x‖₄⁴ ≤ ‖x‖⁴ ≤ 1. A change of
    class moves two blocks by −x⊙x and +y⊙y: ℓ1 ≤ 2, ℓ2 ≤ √2. Within a block
    (and for the pooled sum, always) the change is y⊙y − x⊙x, whose entries
    satisfy abs(y_j² − x_j²) ≤ max(x_j², y_j²) ≤ x_j² + y_j²: ℓ1 ≤ 2, ℓ2² ≤
    ‖x‖₄⁴ + ‖y‖₄⁴ ≤ 2. Both attained by x = e_1, y = e_2: Δ₁ = 2/n,
    Δ₂ = √2/n, whatever d.

    Parameters
    ----------
    n_samples : int
        The number of rows n.
    notion : {"pure", "zcdp"}
        The ℓ1 (pure) or ℓ2 (zCDP) sensitivity.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return (2.0 if notion == "pure" else math.sqrt(2.0)) / n_samples


def second_moment_nuclear_sensitivity(n_samples):
    """Nuclear-norm sensitivity of Σ: 2/n (§0.2).

    Attained by orthogonal rows:
    ‖xxᵀ − yyᵀ‖_* = √((‖x‖² + ‖y‖²)² − 4(x·y)²) ≤ ‖x‖² + ‖y‖² ≤ 2.

    Parameters
    ----------
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return 2.0 / n_samples


def eigenvalues_l2_sensitivity(n_samples):
    """The ℓ2 sensitivity of the sorted eigenvalues of Σ: √2/n (DLY22 Lemma 10).

    Parameters
    ----------
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return math.sqrt(2.0) / n_samples


def eigenvalues_l1_sensitivity(n_samples):
    """The ℓ1 sensitivity of the sorted eigenvalues of Σ: 2/n (ADK19 Thm 1).

    Parameters
    ----------
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return 2.0 / n_samples


def trace_sensitivity(n_samples):
    """Sensitivity of tr Σ: 1/n, since ‖x‖² ∈ [0, 1] (§0.2).

    Parameters
    ----------
    n_samples : int
        The number of rows n.

    Returns
    -------
    sensitivity : float
        The sensitivity.
    """
    return 1.0 / n_samples


def gaussian_scale(l2_sensitivity, rho):
    """Standard deviation of the ρ-zCDP Gaussian mechanism: Δ₂/√(2ρ).

    Bun & Steinke (2016), Prop. 1.6.

    Parameters
    ----------
    l2_sensitivity : float
        The ℓ2 sensitivity Δ₂.
    rho : float
        The ρ of ρ-zCDP.

    Returns
    -------
    scale : float
        The standard deviation of the noise.
    """
    return l2_sensitivity / math.sqrt(2.0 * rho)


def laplace_scale(l1_sensitivity, epsilon):
    """Scale b of the ε-DP Laplace mechanism: Δ₁/ε (Dwork & Roth Thm 3.6).

    Parameters
    ----------
    l1_sensitivity : float
        The ℓ1 sensitivity Δ₁.
    epsilon : float
        The ε of pure ε-DP.

    Returns
    -------
    scale : float
        The scale b of the Laplace noise.
    """
    return l1_sensitivity / epsilon

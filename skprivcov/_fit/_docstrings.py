"""Parameter documentation shared by every covariance estimator, written once."""

__all__ = ["fill_shared_docs"]

_SHARED = {
    "budget_parameters": """rho : float in [1e-30, 1e30], default=None
        Budget as ρ-zCDP. Give either ``rho`` or ``epsilon``, not both.

    epsilon : float in [1e-30, 1e30], default=None
        Budget as ε. With ``delta`` None or 0 it asks for pure ε-DP (only
        mechanisms with a pure version accept that). With ``delta > 0`` a
        zCDP mechanism spends the largest ρ whose Canonne–Kamath–Steinke
        conversion gives (ε, δ)-DP; a pure-only mechanism spends pure ε.

    delta : float in [0, 1), default=None
        The δ of an (ε, δ) budget; only with ``epsilon``.""",
    "bound_parameters": """norm_bound : "auto", float in [1e-30, 1e30] or \
tuple (low, high), default="auto"
        The bound B on the ℓ2 norm of a row. Rows beyond it are clipped to
        it, x ↦ min(1, B/‖x‖)·x; the number of clipped rows is not reported
        (it is private). "auto" (the default): B is a private high quantile
        of the row norms, chosen on the public grid 0, 2^−32·2^{k/4}, …, 2^32
        by the exponential mechanism at 1/16 of the budget (the part
        ``"norm bound"`` of ``privacy_parts_``), and the release spends the
        rest (docs/algorithms.rst §18.2); it is published as ``norm_bound_``.
        A pair (low, high) chooses it the same way on the grid from low to
        high (a public range narrows the grid: the same share buys a more
        accurate bound). A number is a public bound: nothing is spent on it;
        give one when you know it without looking at the data (a sensor's
        range, a questionnaire's scale: docs/choosing_bounds.rst). The range
        keeps every computation of the fit inside float64, so that nothing
        fails after the budget is charged.

    feature_scaling : {"auto", "private"}, tuple (centre, scale) or None, \
default="auto"
        Where the rows are brought before clipping (docs/algorithms.rst §23).
        "private": every feature gets a private centre c and scale s (the
        steps ``"feature cells"``, ``"feature means …"`` and ``"feature
        spreads …"`` of ``privacy_parts_``, 1/4 of the budget), the release
        (its norm bound included) reads z = (x − c)/s at the rest, and is
        mapped back to the rows' units, so that the noise follows each
        feature's spread, not the data's offset from the origin. A pair
        (centre, scale) of numbers or arrays of n_features is public and
        costs nothing (for a public box [lower, upper]: centre (lower +
        upper)/2, scale (upper − lower)/2). None: the rows as given. "auto"
        (the default): "private" when ``norm_bound`` is private ("auto" or a
        range), None with a public ``norm_bound`` (it bounds the rows as
        given). Published as ``feature_location_`` and ``feature_scale_``.

    assume_centered : bool, default=False
        If False (the default, as scikit-learn's ``EmpiricalCovariance``),
        release the second moment of the rows augmented with a constant
        (docs/algorithms.rst §8.2) and derive from that one release both a
        private ``location_`` and the centred covariance; the raw mean is
        never used. If True, estimate the second moment XᵀX/n (the papers'
        target) and set ``location_`` to zero.""",
    "run_parameters": """nonfinite : {"raise", "zero"}, default="raise"
        What a row with a NaN or infinite entry, or an entry that is not a
        number (in an object array or DataFrame), does. The values of X are read
        only after the budget is charged, so either way the fit has spent it.
        "raise" refuses the data with a ValueError: that refusal reveals one
        bit about the data (whether some row holds such a value), which is not
        differentially private, but it is paid for and cannot be repeated for
        free. "zero" treats such a row as a row of zeros, a public rule applied
        to each row on its own, so the guarantee holds in full and nothing is
        revealed.

    noise : {"hardened", "float"}, default="hardened"
        How additive noise is drawn (docs/algorithms.rst §17, docs/threat_model.rst).
        "hardened": the statistic is rounded to a grid 2^-k and exact discrete
        Gaussian or Laplace noise on that grid is added, at a sensitivity that
        also covers the rounding and the floating-point error of the Gram
        matrix, so the low bits of the release reveal nothing; with
        ``random_state=None`` its random words come from the operating
        system's CSPRNG. "float": numpy's continuous samplers, which are not
        safe in floating point (Mironov 2012); releases are identical to those
        of skprivcov before hardened noise. Draws that are not additive noise
        (the Bingham sampler, the nuclear mechanism's chain) are not hardened
        either way.

    random_state : int in [0, 2**63) or None, default=None
        The only source of the noise. None (the default) draws fresh OS
        entropy for every fit: use it for real releases. An int makes releases
        reproducible, for experiments only: two releases made with the same
        seed share their noise, so their difference is noise-free, and the
        composition of their costs no longer holds. A numpy Generator or
        RandomState is refused: ``clone`` would copy it, and every fold of a
        search would draw the same noise.

    accountant : PrivacyAccountant, default=None
        If given, every fit first spends its cost from this accountant's
        budget and raises BudgetExceededError, computing nothing, if that
        would exceed it. Survives ``clone`` (the clones share it) and, for an
        accountant with a ledger file, pickling into worker processes.""",
    "classes_parameter": """classes : array-like of shape (n_classes,), default=None
        The class labels, public. Labels of y outside them are refused after
        the budget is charged. None: the categories of a categorical y (a
        pandas Categorical, or a Series of category dtype) are public, as
        the data's schema; otherwise the labels present in y are data, and
        the label set is released privately (docs/algorithms.rst §25): each
        label's count gets Gaussian noise at 1/10 of the zCDP budget (the
        part ``"label set"`` of ``privacy_parts_``), and a label is released
        when its noisy count reaches a public threshold (61 rows at ρ = 0.1,
        20 at ρ = 1), so that a label held by a single row is published with
        probability at most δ₀ = 1e-9 (δ/100 of an (ε, δ) budget). The cost
        then carries δ₀ (``approximate_delta``): a ρ or pure ε accountant
        cannot pay it, a pure ε budget is refused, and so is a table of
        fewer rows than the threshold (before the charge). Rows whose label
        is not released count in no class.""",
    "projection_parameter": """projection : {"psd-trace", None}, default="psd-trace"
        Post-processing of the release (free). "psd-trace": the covariance
        is projected onto {PSD, trace ≤ B²} (the centred one likewise, and
        the private mean onto the ball of radius B), a convex set that
        contains the covariance of any rows within the bound, so the release
        is a valid covariance and its Frobenius error never exceeds the
        mechanism's (docs/algorithms.rst §4.2). None: the mechanism's output
        exactly as its paper defines it (e.g. an indefinite GaussCov), to
        reproduce the papers.""",
    "release_attributes": """covariance_ : ndarray of shape (n_features, n_features)
        The released (private) covariance, exactly symmetric.

    location_ : ndarray of shape (n_features,)
        Zero if ``assume_centered``, else the private mean.

    precision_ : ndarray of shape (n_features, n_features)
        Inverse of ``covariance_`` with its eigenvalues floored at
        ``eigenvalue_floor_``, computed on first access (post-processing,
        free); finite, so ``score`` and ``mahalanobis`` are too.

    eigenvalue_floor_ : float
        The public floor of the eigenvalues behind ``precision_``:
        B²·min(noise level, 1/d), the noise level being the spectral scale of
        the Gaussian (zCDP) or Laplace (pure) mechanism's noise at the budget
        spent (docs/algorithms.rst §15), and B the scale of the release: the
        clipping bound, or the private threshold τ̃ of AdaptiveCov (and of
        AutoCovariance when it chooses it), itself published by the release.
        A function of n, d, the budget and B only.

    signal_to_noise_ : float
        How much of the release is signal: its largest eigenvalue over B²
        times the noise level of its budget, B as in ``eigenvalue_floor_``
        (docs/algorithms.rst §23); post-processing of the release and of
        public and released values. About 1 for noise alone (about 2 when
        centred: the covariance read from the augmented rows doubles the
        noise), 0 for the zero matrix; below 4 the fit warns
        :class:`~skprivcov.privacy.NoiseDominatedWarning`, naming the n or
        budget that would change that.""",
    "input_attributes": """n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.""",
    "parts_attribute": """privacy_parts_ : tuple of BudgetPart
        How the mechanism divided ``privacy_spent_``: one ``(step, cost)``
        per step, from the split table ``skprivcov.mechanisms.SPLITS``. Public
        (a function of the parameters only; for ``AutoCovariance`` also of the
        mechanism it chose, a private output); the costs compose to
        ``privacy_spent_``.""",
    "consumer_attributes": """estimator_ : skprivcov covariance estimator
        Only when ``fit`` made the release: the fitted estimator.

    privacy_spent_ : PrivacyCost
        Zero with ``covariance``; else the cost of the release made.

    privacy_parts_ : tuple of BudgetPart
        The release's split (empty with ``covariance``).

    n_features_in_ : int
        Number of features.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when known.""",
    "neighbours": """Neighbouring datasets differ in one row (replace-one; n is
    public). The release is computed from the rows brought into the unit ball
    by ``norm_bound`` (docs/algorithms.rst §0), so the guarantee holds for any data.""",
}


# The parameters every covariance estimator shares, in the order of
# BasePrivateCovariance.__init__ (an estimator's own parameters come between the
# budget and these): "release_parameters" with the shared ``projection``,
# "common_parameters" for an estimator that documents its own ``projection``
# among its parameters (NuclearLaplaceCovariance).
_SHARED["release_parameters"] = f"""{_SHARED["bound_parameters"]}

    {_SHARED["projection_parameter"]}

    {_SHARED["run_parameters"]}"""
_SHARED["common_parameters"] = f"""{_SHARED["bound_parameters"]}

    {_SHARED["run_parameters"]}"""

_SHARED["fitted_attributes"] = f"""{_SHARED["release_attributes"]}

    privacy_spent_ : PrivacyCost
        What the fit spent: the budget charged, which the parts of the
        mechanism add up to (checked at every fit).

    norm_bound_ : float
        The bound the rows were clipped at: ``norm_bound``, or with "auto" its
        private choice (an output of the step ``"norm bound"``); in the space
        of z = (x − c)/s when the rows were normalised.

    feature_location_ : ndarray of shape (n_features,) or None
        The centre c of ``feature_scaling`` (released or given); None when
        the rows were left as given or are taken as centred
        (``assume_centered``: c = 0).

    feature_scale_ : ndarray of shape (n_features,) or None
        The scale s of ``feature_scaling``; None when the rows were left as
        given.

    {_SHARED["parts_attribute"]}

    {_SHARED["input_attributes"]}"""


def fill_shared_docs(obj):
    """Replace ``{name}`` placeholders of the shared texts in ``obj.__doc__``.

    As in ``str.format``, a literal brace is written doubled (``{{``, ``}}``)
    in the docstring, and comes out single. The shared parameters are placed
    where the signature has them: ``{budget_parameters}`` first, then the
    estimator's own, then ``{release_parameters}`` (or ``{common_parameters}``
    when the estimator documents its own ``projection`` earlier), so that the
    Parameters section follows ``__init__`` (tests/test_docstrings.py checks it
    for every registered estimator).

    Parameters
    ----------
    obj : class
        The class whose docstring holds the placeholders.

    Returns
    -------
    obj : class
        The same class, its ``__doc__`` filled in.
    """
    doc = obj.__doc__
    if doc is None:  # python -OO strips docstrings
        return obj
    for name, text in _SHARED.items():
        doc = doc.replace("{" + name + "}", text)
    obj.__doc__ = doc.replace("{{", "{").replace("}}", "}")
    return obj

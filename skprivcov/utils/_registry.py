"""The one registry of skprivcov's estimators, their variants and their roles.

Everything that enumerates estimators reads this table: the command line's
``--mechanism`` choices, the demo, the privacy audit, the common tests (the
scikit-learn checks and the privacy checks run on every variant), the
threat-model tests, the release-regression digests and the API reference.
Adding an estimator means adding its entry here (docs/developers.rst, "Adding
a mechanism"). What the tests expect of an entry (the checks it is expected
to fail, the attributes it may publish) lives in ``utils._test_common``.

A *variant* is a set of parameters that takes a different code path of the
estimator (a notion, an option of the mechanism, centring); the first variant
of every entry, ``"default"``, is the estimator as constructed without
arguments.
"""

from dataclasses import dataclass

from sklearn.base import clone

from skprivcov.covariance import (
    AdaptiveCovariance,
    AutoCovariance,
    CoinPressCovariance,
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    PrivateEllipticEnvelope,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.decomposition import PrivatePCA
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.model_selection import FoldReleases
from skprivcov.naive_bayes import PrivateGaussianNB
from skprivcov.preprocessing import (
    FeatureBoundsScaler,
    PrivateFeatureScaler,
    RowNormClipper,
)

__all__ = ["RegistryEntry", "instances", "registry"]


@dataclass(frozen=True)
class RegistryEntry:
    """One estimator and what the rest of the library needs to know of it.

    The registry (:func:`registry`) holds one entry per public estimator; the
    common tests, the threat-model tests, the noise calibration, the release
    digests, the command line, the demo and the audits read their lists of
    estimators and variants from it (docs/developers.rst, "The registry").

    Parameters
    ----------
    estimator : type
        The class.
    variants : dict
        Name → parameters; ``"default"`` (no parameters) comes first.
    cli_name : str or None
        Its name for ``skprivcov release --mechanism``, if it has one.
    demo_budgets : tuple of str
        How the demo runs it: ``"zcdp"`` (at ρ), ``"pure"`` (at ε = √(2ρ)),
        ``"free"`` (no budget); empty to leave it out.

    See Also
    --------
    registry : Every entry, by estimator name.
    instances : Fresh instances of every registered variant.

    Examples
    --------
    >>> from skprivcov.utils import registry
    >>> entry = registry()["GaussianCovariance"]
    >>> entry.name, next(iter(entry.variants))
    ('GaussianCovariance', 'default')
    >>> entry.make(rho=0.5).rho
    0.5
    """

    estimator: type
    variants: dict
    cli_name: str | None = None
    demo_budgets: tuple = ()

    @property
    def name(self):
        return self.estimator.__name__

    def make(self, variant="default", **params):
        """A new instance of ``variant``, with ``params`` on top.

        Cloned, so that an estimator given as a parameter (a ridge model's
        covariance estimator) is never shared between two instances.

        Parameters
        ----------
        variant : str, default="default"
            The name of a variant (a key of ``variants``).
        **params : dict
            Parameters set on top of the variant's.

        Returns
        -------
        estimator : estimator instance
            The new, unfitted estimator.
        """
        return clone(self.estimator(**{**self.variants[variant], **params}))


# The default releases the centred covariance (assume_centered=False, as
# scikit-learn's EmpiricalCovariance); the papers' second moment is a variant.
_SECOND_MOMENT = {"second moment": {"assume_centered": True}}
# §25: a budget whose private label set releases a class of 2 rows (its
# threshold is 1.19 rows), so that scikit-learn's small-class checks run the
# private route.
_PRIVATE_LABELS = {"rho": 1e4}


_ENTRIES = (
    RegistryEntry(
        GaussianCovariance,
        # (ε, δ) is calibrated through ρ-zCDP (docs/privacy.rst): a budget path
        # of its own, shared by every zCDP mechanism.
        {
            "default": {},
            "(epsilon, delta)": {"epsilon": 1.0, "delta": 1e-6},
            # The paper's GaussCov as it is, not projected (indefinite).
            "raw": {"projection": None},
            # numpy's continuous noise instead of the hardened default (§17).
            "float noise": {"noise": "float"},
            # The papers' setting: a public bound (the default is a private
            # one inside the budget, §18.2) and the second moment.
            "papers' setting": {"norm_bound": 1.0, "assume_centered": True},
            # The per-feature normalisation of §23 (private by default): a
            # public centre and scale instead, and the rows as given.
            "public scaling": {"feature_scaling": (0.0, 0.5)},
            "rows as given": {"feature_scaling": None},
            **_SECOND_MOMENT,
        },
        cli_name="gaussian",
        demo_budgets=("zcdp",),
    ),
    RegistryEntry(
        LaplaceCovariance,
        {
            "default": {},
            "float noise": {"noise": "float"},
            "papers' setting": {"norm_bound": 1.0, "assume_centered": True},
            **_SECOND_MOMENT,
        },
        cli_name="laplace",
        demo_budgets=("pure",),
    ),
    RegistryEntry(
        SeparateCovariance,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "eigenvalue share": {"eigenvalue_share": 0.25},
            **_SECOND_MOMENT,
        },
        cli_name="separate",
        demo_budgets=("zcdp", "pure"),
    ),
    RegistryEntry(
        AdaptiveCovariance,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "public radius": {"radius": "norm_bound"},
            "private radius": {"radius": "private"},
            "pure, public radius": {"epsilon": 1.0, "radius": "norm_bound"},
            **_SECOND_MOMENT,
        },
        cli_name="adaptive",
        demo_budgets=("zcdp",),
    ),
    RegistryEntry(
        AutoCovariance,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "no zero": {"allow_zero": False},
            "public bound": {"norm_bound": 1.0},
            **_SECOND_MOMENT,
        },
        cli_name="auto",
        demo_budgets=("zcdp", "pure"),
    ),
    RegistryEntry(
        ProjectionCovariance,
        {"default": {}, "private trace": {"trace_fraction": 0.2}, **_SECOND_MOMENT},
        cli_name="projection",
        demo_budgets=("zcdp",),
    ),
    RegistryEntry(
        IterativeEigenCovariance,
        {
            "default": {},
            "zcdp": {"rho": 0.5},
            "rank 2": {"n_components": 2},
            "KT, adaptive split": {"update": "deflate", "budget_split": "adaptive"},
            "clipped eigenvalues": {"eigenvalue_projection": "clip"},
            **_SECOND_MOMENT,
        },
        cli_name="iterative",
        demo_budgets=("pure",),
    ),
    RegistryEntry(
        NuclearLaplaceCovariance,
        {
            "default": {},
            "general": {"variant": "general", "n_sweeps": 20},
            "private radius, nuclear ball": {
                "trace_bound": "private",
                "projection": "nuclear",
                "n_sweeps": 20,
            },
            "nuclear ball": {"projection": "nuclear", "n_sweeps": 20},
            "unprojected": {"projection": None},
            **_SECOND_MOMENT,
        },
        cli_name="nuclear",
        demo_budgets=("pure",),
    ),
    RegistryEntry(
        ZeroCovariance,
        {"default": {}, **_SECOND_MOMENT},
        cli_name="zero",
        demo_budgets=("free",),
    ),
    RegistryEntry(
        PrivateRidge,
        {
            "default": {},
            "separate, no intercept": {
                "estimator": SeparateCovariance(),
                "fit_intercept": False,
            },
            # Private bounds inside the budget (§18.5): the defaults, given.
            "auto bounds": {"X_norm_bound": "auto", "y_bound": "auto"},
            "public bounds": {"X_norm_bound": 1.0, "y_bound": 1.0},
            # A pure budget too small for a box per feature: the fallback of
            # §18.5 (a private mean of the target, predicted).
            "pure, predicts a private mean": {
                "estimator": LaplaceCovariance(epsilon=1.0)
            },
            # Boosting rounds on clipped residuals (§16, Tang et al. 2023):
            # a feature release, then ten rounds of a noisy mean.
            "boosted": {"boosting_rounds": "auto"},
            # AdaSSP's private smallest eigenvalue lowers the penalty (§16).
            "adassp": {"alpha": "adassp"},
        },
    ),
    RegistryEntry(
        PrivateEllipticEnvelope,
        {
            "default": {},
            # A public bound: the checks' 300 rows are too few for the
            # private bound's 1/16 at ρ = 1 (it falls back to the smallest
            # candidate, and every row is an inlier).
            "gaussian": {"estimator": GaussianCovariance(rho=1.0, norm_bound=1.0)},
        },
    ),
    RegistryEntry(
        PrivateLinearDiscriminantAnalysis,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "public bound": {"norm_bound": 1.0},
            "(epsilon, delta), 1 component": {
                "epsilon": 2.0,
                "delta": 1e-6,
                "n_components": 1,
            },
            # §21: the structures, each a code path of its own.
            "full": {"covariance": "full"},
            "diagonal": {"covariance": "diagonal"},
            "shrunk, pure": {"covariance": "shrunk", "epsilon": 1.0},
            "diagonal, pure, public box": {
                "covariance": "diagonal",
                "epsilon": 1.0,
                "feature_bounds": (-3.0, 3.0),
            },
            # §25: a budget whose private label set releases a class of 2
            # rows, so that scikit-learn's small-class checks run the
            # private route.
            "private labels": _PRIVATE_LABELS,
        },
    ),
    RegistryEntry(
        PrivateGaussianNB,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "public bound": {"norm_bound": 1.0},
            "pure, public box": {"epsilon": 1.0, "feature_bounds": (-3.0, 3.0)},
            "private labels": _PRIVATE_LABELS,
        },
    ),
    RegistryEntry(
        PrivatePCA,
        {
            "default": {},
            "whiten, fraction": {"whiten": True, "n_components": 0.8},
            # ADK19's rank-k EMCov: the budget spent on the top directions only.
            "rank-k EMCov": {
                "n_components": 1,
                "estimator": IterativeEigenCovariance(epsilon=1.0),
            },
        },
    ),
    RegistryEntry(
        PrivateRidgeCV,
        {
            "default": {},
            "two folds": {"cv": 2},
            "separate": {"estimator": SeparateCovariance()},
            "public bounds": {"X_norm_bound": 1.0, "y_bound": 1.0},
        },
    ),
    RegistryEntry(
        FoldReleases,
        {
            "default": {},
            "with a target": {"y_bound": 2.0},
            "public bounds": {"X_norm_bound": 1.0, "y_bound": 1.0},
        },
    ),
    RegistryEntry(
        RowNormClipper,
        {"default": {}, "scaled": {"scale": True}},
    ),
    RegistryEntry(
        FeatureBoundsScaler,
        {"default": {}},
    ),
    RegistryEntry(
        PrivateFeatureScaler,
        {"default": {}, "pure": {"epsilon": 1.0}},
    ),
    RegistryEntry(
        CoinPressCovariance,
        {
            "default": {},
            # numpy's continuous noise instead of the hardened default (§17).
            "float noise": {"noise": "float"},
            # The mean steps and the pair differences (§18.4).
            **_SECOND_MOMENT,
        },
    ),
)


def registry():
    """Every registered estimator, by class name.

    Returns
    -------
    entries : dict of str to RegistryEntry
        In the order of the table.
    """
    return {entry.name: entry for entry in _ENTRIES}


def instances(*, variants=True, kind=None):
    """New instances of the registered estimators, with their ids.

    Parameters
    ----------
    variants : bool, default=True
        Every variant, or only the defaults.
    kind : type, default=None
        Only estimators that are subclasses of ``kind``.

    Returns
    -------
    instances : list of (str, estimator)
        ``("Name", est)`` for defaults, ``("Name[variant]", est)`` otherwise.
    """
    found = []
    for entry in _ENTRIES:
        if kind is not None and not issubclass(entry.estimator, kind):
            continue
        for variant in entry.variants if variants else ("default",):
            name = entry.name if variant == "default" else f"{entry.name}[{variant}]"
            found.append((name, clone(entry.make(variant))))
    return found

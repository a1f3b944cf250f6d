"""PrivatePCA's held-out scores from a release (docs/algorithms.rst §14):
what :func:`skprivcov.model_selection.release_scorer` computes for a PCA fit on
fold releases. Post-processing of releases only."""

import numpy as np

from skprivcov.mechanisms import project_psd

__all__ = ["captured_variance", "log_likelihood", "scatter_about_mean"]


def scatter_about_mean(model, release):
    """E[(x − m)(x − m)ᵀ] over the rows behind ``release``, m the model's
    mean, projected onto the PSD cone (post-processing)."""
    mean = np.asarray(model.mean_, float)
    if release.mean is None:
        if np.any(mean):
            raise ValueError(
                "This release has no mean: it cannot score a model centred by one."
            )
        scatter = release.second_moment
    else:
        cross = np.outer(release.mean, mean)
        scatter = release.second_moment - cross - cross.T + np.outer(mean, mean)
    return project_psd((scatter + scatter.T) / 2)


def captured_variance(model, release):
    """tr(V Σ Vᵀ): the held-out variance along the kept components."""
    scatter = scatter_about_mean(model, release)
    components = np.asarray(model.components_, float)
    return float(np.einsum("ki,ij,kj->", components, scatter, components))


def log_likelihood(model, release):
    """Average log-likelihood of the held-out rows under probabilistic PCA
    (Tipping & Bishop 1999; scikit-learn's ``PCA.score``): the model
    covariance has the kept eigenvalues along the components and the mean of
    the other released eigenvalues σ² elsewhere. It depends on the rows only
    through their second moment about the model's mean, so it is computed
    from the release. Eigenvalues and σ² are floored at the training
    release's public noise level (its ``noise_level``), below which the
    release resolves nothing."""
    training = model.release_
    moment = training.second_moment if training.mean is None else training.covariance
    eigenvalues = np.maximum(np.linalg.eigvalsh((moment + moment.T) / 2), 0.0)
    n_features, kept = eigenvalues.size, model.n_components_
    total = eigenvalues.sum()
    floor = max(
        training.noise_level or 0.0,
        1e-12 * total / n_features,
        np.finfo(float).tiny,
    )
    variances = np.maximum(np.asarray(model.explained_variance_, float), floor)
    rest = n_features - kept
    sigma2 = max((total - variances.sum()) / rest if rest else 0.0, floor)
    scatter = scatter_about_mean(model, release)
    components = np.asarray(model.components_, float)
    along = np.einsum("ki,ij,kj->k", components, scatter, components)
    outside = max(np.trace(scatter) - along.sum(), 0.0)
    return float(
        -0.5
        * (
            n_features * np.log(2 * np.pi)
            + np.log(variances).sum()
            + rest * np.log(sigma2)
            + (along / variances).sum()
            + outside / sigma2
        )
    )

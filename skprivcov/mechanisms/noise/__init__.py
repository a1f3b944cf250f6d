"""The noise source (docs/algorithms.rst §0.1, §17): every additive draw.

A mechanism states the statistic, its sensitivity, the budget and what the
draw is (``site``); these functions pick the path: hardened noise when the
release generator asks for it (exact discrete noise, on the statistic's
integers when it is an exact statistic of §19, on a grid otherwise), numpy's
float noise else, each draw recorded for the calibration tests
(:func:`recorded_noise`). No module outside this one draws additive noise
(``tests/test_layering.py``). The generators that feed every fit are here
too: a release's seed is a source of noise.
"""

from skprivcov.mechanisms.noise._discrete import discrete_gaussian, discrete_laplace
from skprivcov.mechanisms.noise._float import additive_noise, symmetric_noise
from skprivcov.mechanisms.noise._generators import (
    SEED_LIMIT,
    bounds_generator,
    release_generator,
    seed_description,
)
from skprivcov.mechanisms.noise._hardened import (
    gram_error_bound,
    hardened_noise,
    is_hardened,
    noise_plan,
)
from skprivcov.mechanisms.noise._record import recorded_noise
from skprivcov.mechanisms.noise._source import (
    exact_noise_law,
    noisy_scalar,
    noisy_second_moment,
    noisy_vector,
    plain_scale,
)

__all__ = [
    "SEED_LIMIT",
    "additive_noise",
    "bounds_generator",
    "discrete_gaussian",
    "discrete_laplace",
    "exact_noise_law",
    "gram_error_bound",
    "hardened_noise",
    "is_hardened",
    "noise_plan",
    "noisy_scalar",
    "noisy_second_moment",
    "noisy_vector",
    "plain_scale",
    "recorded_noise",
    "release_generator",
    "seed_description",
    "symmetric_noise",
]

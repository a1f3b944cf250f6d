"""The single source of randomness of a fit, and of everything else.

A release draws its noise from :func:`release_generator`, which accepts only
``None`` (fresh OS entropy) or a non-negative int (a reproducible experiment).
A numpy ``Generator`` or ``RandomState`` object is refused as the
``random_state`` of anything that releases: ``sklearn.clone`` deep-copies it,
so every clone (each fold and the refit of a search, each pickled copy in a
worker) would replay the same stream and draw the same noise, and the
difference of two such releases is noise-free (docs/threat_model.rst,
docs/algorithms.rst §13.4). ``skprivcov.datasets`` keeps accepting them for
what releases nothing (the synthetic data generators).

The generator also says how additive noise is drawn (docs/algorithms.rst §17):
``noise="hardened"`` (exact discrete noise on a grid, its 64-bit words from
the operating system's CSPRNG when the seed is None, from the seeded PCG64
otherwise) or ``noise="float"`` (numpy's continuous samplers).
"""

import copy
import numbers

import numpy as np

__all__ = [
    "SEED_LIMIT",
    "ReleaseGenerator",
    "bounds_generator",
    "derived_generator",
    "release_generator",
    "seed_description",
]


# Release seeds lie in [0, 2⁶³): their seed sequences hold at most two 32-bit
# words of entropy, so none equals a derived (diagnostic) sequence, which holds
# four words of entropy and one of spawn key (numpy pads the entropy to four
# words when a spawn key follows). Without the limit, default_rng(s + p·2¹²⁸)
# would replay derived_generator(s)'s stream.
SEED_LIMIT = 2**63


class ReleaseGenerator(np.random.Generator):
    """A numpy Generator that also carries how a release draws additive noise.

    Attributes
    ----------
    noise : {"hardened", "float"}
        Hardened: exact discrete noise on a grid (docs/algorithms.rst §17).
    secure : bool
        Whether the hardened samplers take their words from the OS CSPRNG
        (``os.urandom``) rather than from this generator's PCG64 stream.
    """

    def __init__(self, bit_generator, *, noise, secure):
        super().__init__(bit_generator)
        self.noise = noise
        self.secure = secure

    def __reduce__(self):
        # A copy or a pickle stays a ReleaseGenerator: numpy's own reduction
        # would give a plain Generator, which draws float noise.
        return _rebuild, (self.bit_generator, self.noise, self.secure)

    def __copy__(self):
        return _rebuild(copy.deepcopy(self.bit_generator), self.noise, self.secure)

    def __deepcopy__(self, memo):
        return self.__copy__()


def _rebuild(bit_generator, noise, secure):
    return ReleaseGenerator(bit_generator, noise=noise, secure=secure)


def release_generator(random_state, noise="float"):
    """The generator of one release's noise.

    Parameters
    ----------
    random_state : None or int in [0, 2⁶³)
        None seeds a new generator from OS entropy (never from numpy's global
        state), so no two fits share noise, and hardened noise is drawn from the
        OS CSPRNG; an int seeds ``default_rng`` for reproducible experiments
        (two fits with the same int draw the same noise).
    noise : {"hardened", "float"}, default="float"
        How additive noise is drawn (docs/algorithms.rst §17).

    Returns
    -------
    rng : ReleaseGenerator
        A numpy Generator that also says which noise path the release takes
        (``is_hardened``) and whether its words come from the OS CSPRNG.
    """
    if random_state is None:
        return ReleaseGenerator(np.random.PCG64(), noise=noise, secure=True)
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    ):
        if not 0 <= random_state < SEED_LIMIT:
            raise ValueError(
                f"A seed must be an int in [0, 2**63), got {random_state}."
            )
        return ReleaseGenerator(
            np.random.PCG64(int(random_state)), noise=noise, secure=False
        )
    raise TypeError(
        "random_state must be None (fresh OS entropy, for real releases) or an "
        "int >= 0 (reproducible experiments); a numpy Generator or RandomState "
        f"is refused, got {type(random_state).__name__}: clone() copies it, and "
        "every copy would draw the same noise."
    )


def seed_description(random_state):
    """What the ledger and the records may say of a seed: how it was set.

    Never its value: with the seed, anyone could regenerate the noise.

    Parameters
    ----------
    random_state : None or int
        An estimator's ``random_state``.

    Returns
    -------
    description : {"fresh OS entropy", "fixed seed"}
        How it was set.
    """
    return "fresh OS entropy" if random_state is None else "fixed seed"


# Tags the streams that must never become noise (docs/algorithms.rst §13.1): a
# diagnostic run seeded with the same int as a release draws other numbers.
_DIAGNOSTIC_STREAM = 0x5EED_D1A6


def derived_generator(random_state, purpose=_DIAGNOSTIC_STREAM):
    """A generator independent of ``release_generator(random_state)``.

    None gives fresh OS entropy; an int s gives the stream of the seed sequence
    (s, spawn key ``purpose``), which is the stream of no release seed (see
    :data:`SEED_LIMIT`).
    """
    if random_state is None:
        return np.random.default_rng()
    sequence = np.random.SeedSequence(int(random_state), spawn_key=(purpose,))
    return np.random.default_rng(sequence)


def bounds_generator(random_state, noise):
    """The generator of a fit's private bounds, and its release's own seed.

    With an int seed, the release gets a seed drawn from the bounds'
    generator, so the two never share a stream (docs/algorithms.rst §13.4);
    None stays None (fresh OS entropy for each).

    Parameters
    ----------
    random_state : None or int in [0, 2⁶³)
        The estimator's ``random_state``.
    noise : {"hardened", "float"}
        How additive noise is drawn (docs/algorithms.rst §17).

    Returns
    -------
    rng : ReleaseGenerator
        The bounds' generator (:func:`release_generator` of ``random_state``).
    seed : int or None
        The release's seed.
    """
    rng = release_generator(random_state, noise=noise)
    if random_state is None:
        return rng, None
    return rng, int(rng.integers(SEED_LIMIT))

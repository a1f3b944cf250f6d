"""The audits' planted bug (skprivcov.mechanisms.testing.planted_scale) never
outlives its contexts: overlapping contexts on several threads, exits in any
order, an exception inside, a second plant refused (review of issue 36: with
swap-and-restore, two overlapping contexts put the halved scale back for good)."""

import threading

import pytest

from skprivcov.mechanisms import _covariance
from skprivcov.mechanisms.noise import _hardened as _hardened
from skprivcov.mechanisms.noise import _source as _noise_source
from skprivcov.mechanisms.testing import planted_scale


def _honest():
    return (
        _covariance.gaussian_scale(1.0, 0.5),
        _noise_source.gaussian_scale(1.0, 0.5),
        _covariance.laplace_scale(1.0, 1.0),
        _hardened.noise_plan,
        _hardened.exact_noise_plan,
    )


HONEST = _honest()


def test_the_plant_halves_every_scale_inside_and_nothing_after():
    with planted_scale("gaussian_scale", 0.5):
        assert _covariance.gaussian_scale(1.0, 0.5) == 0.5 * HONEST[0]
        assert _noise_source.gaussian_scale(1.0, 0.5) == 0.5 * HONEST[1]
        assert _hardened.noise_plan is not HONEST[3]
    assert _honest() == HONEST


def test_overlapping_contexts_on_threads_restore_in_any_exit_order():
    entered, release_first, first_out = (threading.Event() for _ in range(3))

    def first():
        with planted_scale("gaussian_scale", 0.5):
            entered.set()
            release_first.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    entered.wait(5)
    # The second context enters after the first and exits after it: the
    # order that left the scale halved when each context restored what it saw.
    with planted_scale("gaussian_scale", 0.5):
        release_first.set()
        first_out.wait(5)
        assert _covariance.gaussian_scale(1.0, 0.5) == 0.5 * HONEST[0]
    thread.join(5)
    assert _honest() == HONEST


def test_an_exception_inside_restores_the_honest_scales():
    with pytest.raises(KeyError), planted_scale("laplace_scale", 0.5):
        raise KeyError("inside")
    assert _honest() == HONEST


def test_a_second_plant_is_refused_while_one_is_active():
    with planted_scale("gaussian_scale", 0.5):
        with pytest.raises(RuntimeError, match="one at a time"):
            with planted_scale("laplace_scale", 0.5):
                pass
        assert _covariance.gaussian_scale(1.0, 0.5) == 0.5 * HONEST[0]
    assert _honest() == HONEST

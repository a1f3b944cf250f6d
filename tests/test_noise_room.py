"""Noise in one room (issue 50, part 3): every additive draw of the library
goes through the noise source, ``skprivcov.mechanisms.noise``, where it is
drawn on the path the generator asks for and recorded for the calibration
tests (docs/developers.rst, "How noise is drawn").

Checked over the code, by its syntax: a module that drew its own additive
noise (a ``rng.normal(...)`` beside the noise source, or a call of the noise
room's samplers from an estimator choosing hardened or float itself, as the
private selection's score and the ridge models' target mean did before)
fails here."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "skprivcov"
NOISE_ROOM = PACKAGE / "mechanisms" / "noise"

# numpy's samplers of continuous noise.
CONTINUOUS = {
    "normal",
    "standard_normal",
    "laplace",
    "exponential",
    "standard_exponential",
    "gamma",
    "standard_gamma",
}
# The draws that are not additive noise, with why (each law is tested on its
# own: tests/test_iterative_eigen.py, tests/test_nuclear.py).
NOT_ADDITIVE = {
    "mechanisms/_bingham.py": "the Bingham rejection sampler's proposals (§5.3)",
    "mechanisms/_nuclear.py": "the nuclear-norm chain's moves, its radial law and a "
    "Haar rotation (§6.3)",
    "datasets/_synthetic.py": "synthetic data: releases nothing",
}
# The noise room's samplers: only the mechanisms call them; an estimator asks
# for noisy_scalar, noisy_vector or noisy_second_moment.
SAMPLERS = {
    "additive_noise",
    "symmetric_noise",
    "hardened_noise",
    "hardened_second_moment",
    "discrete_gaussian",
    "discrete_laplace",
    "grid_laplace",
}


def _calls(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                yield func.attr, node.lineno
            elif isinstance(func, ast.Name):
                yield func.id, node.lineno


def _outside(room):
    for path in sorted(PACKAGE.rglob("*.py")):
        if room not in path.parents:
            yield path


def test_no_module_outside_the_noise_room_draws_continuous_noise():
    drawn = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in _outside(NOISE_ROOM)
        if str(path.relative_to(PACKAGE)) not in NOT_ADDITIVE
        for name, line in _calls(path)
        if name in CONTINUOUS
    ]
    assert drawn == []


def test_only_the_mechanisms_call_the_noise_rooms_samplers():
    mechanisms = PACKAGE / "mechanisms"
    called = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in _outside(mechanisms)
        for name, line in _calls(path)
        if name in SAMPLERS
    ]
    assert called == []


def test_the_exceptions_are_still_there():
    # A stale exception would let a new draw in that module pass unseen.
    for name in NOT_ADDITIVE:
        assert {call for call, _ in _calls(PACKAGE / name)} & CONTINUOUS, name

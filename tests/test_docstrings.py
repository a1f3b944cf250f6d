"""numpydoc validation of the public API's docstrings, as scikit-learn does it.

The checks and the ignored codes are scikit-learn's, from
``sklearn/tests/test_docstrings.py`` (scikit-learn 1.9.1, ``filter_errors``):
every check of ``numpydoc.validate.validate``
(https://numpydoc.readthedocs.io/en/latest/validation.html) runs, and

- RT02 (the first line of Returns holds only the type: we name the returned
  object), GL01 (the summary starts on the line after the quotes) and GL02
  (a blank line only before the Returns section) are ignored everywhere;
- PR02 (unknown parameters) and GL08 (no docstring / signature not parsed)
  are ignored for properties;
- ES01 (extended summary), SA01 (See Also) and EX01 (Examples) are required of
  class docstrings only, not of methods, properties or functions.

The public API is every name in ``__all__`` of ``skprivcov`` and of each
public module below it (found with :mod:`pkgutil`; a module is public when no
part of its dotted name starts with ``_``); constants (non-callables) are
skipped. A class is checked with each of its public methods and properties
(names not starting with ``_``) that skprivcov defines, inherited ones
included; those it inherits from scikit-learn or Python (``get_params``,
``set_output``, ``with_traceback``, ...) are documented there.
:func:`test_parameter_order` checks in addition that every registered
estimator documents its parameters in the order of its signature.
"""

import importlib
import inspect
import pkgutil

import pytest

import skprivcov
from skprivcov.utils import all_estimators

numpydoc_validate = pytest.importorskip("numpydoc.validate")
docscrape = pytest.importorskip("numpydoc.docscrape")

# scikit-learn's filter_errors (sklearn/tests/test_docstrings.py).
IGNORED = frozenset({"RT02", "GL01", "GL02"})
IGNORED_FOR_PROPERTIES = frozenset({"PR02", "GL08"})
CLASS_ONLY = frozenset({"ES01", "SA01", "EX01"})


def _public_modules():
    """``skprivcov`` and every module below it with no part starting with ``_``."""
    names = ["skprivcov"]
    for info in pkgutil.walk_packages(skprivcov.__path__, "skprivcov."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return [importlib.import_module(name) for name in sorted(names)]


def _defined_in_skprivcov(cls, name):
    """Whether the class of ``cls``'s MRO that defines ``name`` is skprivcov's."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass.__module__.split(".")[0] == "skprivcov"
    return False


def _public_objects():
    """(dotted name, kind) of every object to check; kind is "class",
    "method", "property" or "function"."""
    seen = {}  # id(obj) -> dotted name
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not callable(obj):
                continue  # constants (__version__, SPLITS, ...)
            path = f"{module.__name__}.{name}"
            # An object exported twice (skprivcov.GaussianCovariance and
            # skprivcov.covariance.GaussianCovariance) is checked once, under the
            # public module nearest to its definition.
            previous = seen.get(id(obj))
            if previous is None or len(path) > len(previous):
                seen[id(obj)] = path
    objects = {}
    for path in seen.values():
        obj = _resolve(path)
        if not inspect.isclass(obj):
            objects[path] = "function"
            continue
        objects[path] = "class"
        for name in dir(obj):
            if name.startswith("_") or not _defined_in_skprivcov(obj, name):
                continue
            member = inspect.getattr_static(obj, name)
            if isinstance(member, property):
                objects[f"{path}.{name}"] = "property"
            elif callable(getattr(obj, name)):
                objects[f"{path}.{name}"] = "method"
    return sorted(objects.items())


def _resolve(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


PUBLIC_OBJECTS = _public_objects()


def _filter_errors(errors, kind):
    """scikit-learn's filter_errors, with the member's kind known."""
    for code, message in errors:
        if code in IGNORED:
            continue
        if kind == "property" and code in IGNORED_FOR_PROPERTIES:
            continue
        if kind != "class" and code in CLASS_ONLY:
            continue
        yield code, message


def test_public_api_found():
    """The walk finds the public modules and their classes, methods and functions."""
    modules = {module.__name__ for module in _public_modules()}
    assert {
        "skprivcov",
        "skprivcov.base",
        "skprivcov.covariance",
        "skprivcov.decomposition",
        "skprivcov.discriminant_analysis",
        "skprivcov.naive_bayes",
        "skprivcov.linear_model",
        "skprivcov.model_selection",
        "skprivcov.preprocessing",
        "skprivcov.privacy",
        "skprivcov.mechanisms",
        "skprivcov.metrics",
        "skprivcov.datasets",
        "skprivcov.utils",
    } <= modules
    checked = dict(PUBLIC_OBJECTS)
    assert checked["skprivcov.covariance.GaussianCovariance"] == "class"
    # Inherited from skprivcov's base class: checked; from scikit-learn: not.
    assert checked["skprivcov.covariance.GaussianCovariance.fit"] == "method"
    assert "skprivcov.covariance.GaussianCovariance.get_params" not in checked
    assert "skprivcov.GaussianCovariance" not in checked  # checked once


@pytest.mark.parametrize(
    "path, kind",
    [pytest.param(path, kind, id=path) for path, kind in PUBLIC_OBJECTS],
)
def test_docstring(path, kind):
    """numpydoc finds no error outside scikit-learn's ignored codes."""
    result = numpydoc_validate.validate(path)
    errors = list(_filter_errors(result["errors"], kind))
    if errors:
        report = "\n".join(f"{path}: {code}: {message}" for code, message in errors)
        pytest.fail(f"{result['file']}\n{report}", pytrace=False)


ESTIMATORS = all_estimators()


@pytest.mark.parametrize(
    "estimator", [cls for _, cls in ESTIMATORS], ids=[name for name, _ in ESTIMATORS]
)
def test_parameter_order(estimator):
    """The Parameters section (after :func:`skprivcov._fit._docstrings.fill_shared_docs`
    filled it) lists the parameters of ``__init__`` in the signature's order."""
    documented = [
        parameter.name
        for parameter in docscrape.ClassDoc(estimator, config={})["Parameters"]
    ]
    signature = list(inspect.signature(estimator).parameters)
    assert documented == signature

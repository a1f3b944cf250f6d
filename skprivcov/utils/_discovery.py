"""Discovery of the estimators shipped by skprivcov."""

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator

from skprivcov._compat import BaseSearchCV

__all__ = ["all_estimators"]


def all_estimators():
    """All public, concrete skprivcov estimators.

    Not the searches of ``skprivcov.model_selection``, which wrap one.

    Returns
    -------
    estimators : list of (str, type)
        Sorted by name.
    """
    import skprivcov

    found = {}
    for module_info in pkgutil.walk_packages(skprivcov.__path__, "skprivcov."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseEstimator)
                and cls.__module__.startswith("skprivcov.")
                and not name.startswith(("_", "Base"))
                and not inspect.isabstract(cls)
                # scikit-learn's searches with an up-front budget check: they
                # release nothing themselves and need an estimator to wrap
                # (tested in tests/test_model_selection.py).
                and not issubclass(cls, BaseSearchCV)
                # Fit on fold releases, not on rows (ReleaseModel), or a
                # search around another estimator (PrivateRandomSearch): each
                # is tested in its own file (tests/test_fold_releases.py,
                # tests/test_private_selection.py).
                and name not in ("ReleaseModel", "PrivateRandomSearch")
            ):
                found[name] = cls
    return sorted(found.items())

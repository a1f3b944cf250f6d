"""Discovery of the estimators shipped by skprivcov."""

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator

__all__ = ["all_estimators"]


def all_estimators():
    """All public, concrete skprivcov estimators.

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
            ):
                found[name] = cls
    return sorted(found.items())

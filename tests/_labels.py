"""Declaring a classifier's labels public in tests about something else.

With ``classes=None`` a classifier releases its label set privately
(docs/algorithms.rst §25): a pure budget cannot pay for it, and a small class
cannot reach the threshold of a small budget. Tests of other properties
(published attributes, messages, noise scales, accounting) fit the registry's
variants on small tables; for the variants whose label step cannot serve such
a table they declare the labels public, as a user with a known label set
would (``classes=``). The private route itself is exercised by the variants
whose budget can release the table's classes, and by tests/test_labels.py.
"""

import numpy as np
from sklearn.base import is_classifier

from skprivcov._models._class_labels import label_threshold
from skprivcov.privacy import UnsupportedPrivacyNotionError


def private_labels_serve(estimator, y):
    """Whether ``estimator``'s private label step can release every class of
    ``y`` (each above its threshold by a margin of four noise deviations is
    not asked: the threshold below the smallest class is)."""
    try:
        cost = estimator.fit_cost()
    except UnsupportedPrivacyNotionError:
        return False
    _, counts = np.unique(np.asarray(y), return_counts=True)
    return label_threshold(cost, estimator.noise == "hardened") < counts.min()


def declare_labels(estimator, y):
    """``estimator`` with ``classes`` set to y's labels if it is a classifier
    with ``classes=None`` whose private label step cannot serve ``y``."""
    if (
        not is_classifier(estimator)
        or estimator.get_params().get("classes") is not None
    ):
        return estimator
    if private_labels_serve(estimator, y):
        return estimator
    return estimator.set_params(classes=np.unique(np.asarray(y)))

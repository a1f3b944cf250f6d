"""The fit machinery of the models built on class blocks (the classifiers,
§21, §25) and on fold releases (§14).
"""

from skprivcov._models._class_blocks import (
    class_estimates,
    release_blocks,
)
from skprivcov._models._class_labels import (
    label_threshold,
)
from skprivcov._models._classifier import (
    BasePrivateClassifier,
)
from skprivcov._models._fold_releases import (
    BaseFoldReleases,
    UnsupervisedFolds,
    leave_one_fold_out,
    pool_releases,
)

__all__ = [
    "BaseFoldReleases",
    "BasePrivateClassifier",
    "UnsupervisedFolds",
    "class_estimates",
    "label_threshold",
    "leave_one_fold_out",
    "pool_releases",
    "release_blocks",
]

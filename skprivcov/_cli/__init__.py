"""The command line: the release and PCA commands, the demo."""

from skprivcov._cli._commands import (
    ReleaseError,
    add_pca_arguments,
    add_release_arguments,
    run_pca,
    run_release,
)
from skprivcov._cli._demo import (
    plot_demo,
    run_demo,
)

__all__ = [
    "ReleaseError",
    "add_pca_arguments",
    "add_release_arguments",
    "plot_demo",
    "run_demo",
    "run_pca",
    "run_release",
]

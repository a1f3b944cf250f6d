"""Data-independent transformers that bound rows with public parameters.

They cost no privacy: each output row is a fixed function of its input row and
of parameters chosen without looking at the data; nothing is learned in ``fit``.
"""

from skprivcov.preprocessing._feature_bounds import FeatureBoundsScaler
from skprivcov.preprocessing._row_norm import RowNormClipper

__all__ = ["FeatureBoundsScaler", "RowNormClipper"]

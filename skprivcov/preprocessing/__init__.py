"""Transformers that bound rows: with public parameters, or privately.

The public-bounds transformers cost no privacy: each output row is a fixed
function of its input row and of parameters chosen without looking at the
data; nothing is learned in ``fit``. :class:`PrivateFeatureScaler` learns a
box per feature inside a budget of its own (docs/algorithms.rst §18.3).
"""

from skprivcov.preprocessing._feature_bounds import FeatureBoundsScaler
from skprivcov.preprocessing._private_scaler import PrivateFeatureScaler
from skprivcov.preprocessing._row_norm import RowNormClipper

__all__ = ["FeatureBoundsScaler", "PrivateFeatureScaler", "RowNormClipper"]

"""Kernels of SelectedRows arguments (Paddle's phi/kernels/selected_rows/): names as Paddle's
(``scale_sr``, ``adam_dense_param_sparse_grad``, ``merge_selected_rows`` ...).

One module per base: the name less a grad suffix and its SelectedRows suffix (``_sr``,
``_dense_param_sparse``, ``_sparse`` ...): ``sgd_sparse_param_sparse_grad`` -> ``sgd.py``;
phi.kernels' rule sends these names here.  Importing this package imports none of them.
"""

from __future__ import annotations

from phi.core.layout import Layout

__all__ = ["LAYOUT"]

LAYOUT = Layout(__name__, {}, variants=("_raw_sr", "_sr", "_dense_param_sparse",
                                        "_sparse_param_sparse", "_sparse"))

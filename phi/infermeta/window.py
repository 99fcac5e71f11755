"""InferMeta of the window ops added for issue 10 (conv3d, pool3d, max_pool*_with_index,
unpool*, unfold, fold, spp, lrn, maxout; Paddle's paddle/phi/infermeta/{unary,binary}.cc).

Sizes use C++ ``int`` division (truncation toward zero), through the shared helpers of
phi/infermeta/nn.py, so that kernels and InferMeta agree on every window.
"""

from __future__ import annotations

from phi.infermeta._utils import MetaConfig
from phi.infermeta.nn import conv_infer_meta

__all__ = ["conv3d_infer_meta"]


def conv3d_infer_meta(input, filter, strides, paddings, padding_algorithm: str, groups: int,
                      dilations, data_format: str, out, *,
                      config: MetaConfig | None = None) -> None:
    """Conv3dInferMeta: ConvInferMeta with conv3d's attribute order (groups first)."""
    conv_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups,
                    data_format, out, config=config)

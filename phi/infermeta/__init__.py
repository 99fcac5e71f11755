"""InferMeta: pure functions from input metas and attributes to output metas.

Grouped by arity as Paddle does; each is named as the snake_case of the CamelCase name that
``phi/api/ops.yaml`` uses (``ElementwiseInferMeta`` -> ``elementwise_infer_meta``).  Parameters
follow the YAML ``infer_meta: param`` list (input metas, attribute values), then the output
MetaTensor(s).  The same functions serve fluid InferShape: dims of -1 are unknown sizes, and an
optional keyword ``config=MetaConfig(is_runtime=False)`` marks compile time.
"""

from __future__ import annotations

from phi.infermeta._utils import MetaConfig, decided_by_kernel
from phi.infermeta.broadcast import (
    expand_as_infer_meta,
    expand_infer_meta,
    numel_infer_meta,
    one_hot_raw_infer_meta,
    shape_infer_meta,
    tile_infer_meta,
)
from phi.infermeta.binary import (
    compare_infer_meta,
    compare_raw_infer_meta,
    embedding_infer_meta,
    gather_infer_meta,
    gather_nd_infer_meta,
    index_select_infer_meta,
    logical_binary_infer_meta,
    elementwise_infer_meta,
    elementwise_raw_infer_meta,
    matmul_infer_meta,
    matmul_with_flatten_infer_meta,
)
from phi.infermeta.multiary import (
    addn_infer_meta,
    concat_infer_meta,
    stack_infer_meta,
    where_infer_meta,
)
from phi.infermeta.nn import (
    batch_norm_infer_infer_meta,
    batch_norm_infer_meta,
    conv_infer_meta,
    conv_transpose_infer_meta,
    depthwise_conv_infer_meta,
    dropout_infer_meta,
    flatten_infer_meta,
    flatten_with_xshape_infer_meta,
    group_norm_infer_meta,
    instance_norm_infer_meta,
    layer_norm_infer_meta,
    pool2d_infer_meta,
    prelu_infer_meta,
    unchanged_infer_meta_check_axis,
)
from phi.infermeta.fused import (
    dequantize_linear_infer_meta,
    fc_infer_meta,
    fused_adam_infer_meta,
    fused_softmax_mask_infer_meta,
    fusion_repeated_fc_relu_infer_meta,
    fusion_squared_mat_sub_infer_meta,
    self_dp_attention_infer_meta,
    viterbi_decode_infer_meta,
    weight_quantize_infer_meta,
)
from phi.infermeta.interpolate import interpolate_infer_meta
from phi.infermeta.vision import pad3d_infer_meta, pixel_shuffle_infer_meta
from phi.infermeta.nullary import (
    arange_tensor_infer_meta,
    assign_value_infer_meta,
    create_infer_meta,
    linspace_infer_meta,
)
from phi.infermeta.unary import (
    arg_min_max_infer_meta,
    argsort_infer_meta,
    cast_infer_meta,
    create_like_infer_meta,
    cum_scalar_axis_infer_meta,
    increment_infer_meta,
    isfinite_infer_meta,
    logical_not_infer_meta,
    pnorm_infer_meta,
    reduce_bool_infer_meta,
    reduce_bool_infer_meta_base,
    reduce_infer_meta_base,
    reduce_int_array_axis_infer_meta,
    reshape_infer_meta,
    reshape_with_xshape_infer_meta,
    slice_raw_infer_meta,
    softmax_infer_meta,
    split_infer_meta,
    split_with_num_infer_meta,
    squeeze_infer_meta,
    squeeze_with_xshape_infer_meta,
    strided_slice_infer_meta,
    strided_slice_raw_infer_meta,
    sum_infer_meta,
    topk_infer_meta,
    sum_raw_infer_meta,
    transpose_infer_meta,
    tril_triu_infer_meta,
    unchanged_infer_meta,
    unchanged_int_to_float_infer_meta,
    unique_infer_meta,
    unique_raw_infer_meta,
    unsqueeze_infer_meta,
    unsqueeze_with_xshape_infer_meta,
    unstack_infer_meta,
)

__all__ = [
    "MetaConfig",
    "decided_by_kernel",
    "addn_infer_meta",
    "arange_tensor_infer_meta",
    "arg_min_max_infer_meta",
    "argsort_infer_meta",
    "assign_value_infer_meta",
    "cast_infer_meta",
    "compare_infer_meta",
    "compare_raw_infer_meta",
    "concat_infer_meta",
    "create_infer_meta",
    "create_like_infer_meta",
    "cum_scalar_axis_infer_meta",
    "dequantize_linear_infer_meta",
    "elementwise_infer_meta",
    "elementwise_raw_infer_meta",
    "embedding_infer_meta",
    "expand_as_infer_meta",
    "expand_infer_meta",
    "fc_infer_meta",
    "fused_adam_infer_meta",
    "fused_softmax_mask_infer_meta",
    "fusion_repeated_fc_relu_infer_meta",
    "fusion_squared_mat_sub_infer_meta",
    "gather_infer_meta",
    "gather_nd_infer_meta",
    "increment_infer_meta",
    "index_select_infer_meta",
    "interpolate_infer_meta",
    "isfinite_infer_meta",
    "linspace_infer_meta",
    "logical_binary_infer_meta",
    "logical_not_infer_meta",
    "matmul_infer_meta",
    "matmul_with_flatten_infer_meta",
    "numel_infer_meta",
    "one_hot_raw_infer_meta",
    "pad3d_infer_meta",
    "pixel_shuffle_infer_meta",
    "pnorm_infer_meta",
    "reduce_bool_infer_meta",
    "reduce_bool_infer_meta_base",
    "reduce_infer_meta_base",
    "reduce_int_array_axis_infer_meta",
    "reshape_infer_meta",
    "reshape_with_xshape_infer_meta",
    "self_dp_attention_infer_meta",
    "shape_infer_meta",
    "slice_raw_infer_meta",
    "softmax_infer_meta",
    "split_infer_meta",
    "split_with_num_infer_meta",
    "squeeze_infer_meta",
    "squeeze_with_xshape_infer_meta",
    "stack_infer_meta",
    "strided_slice_infer_meta",
    "strided_slice_raw_infer_meta",
    "sum_infer_meta",
    "sum_raw_infer_meta",
    "tile_infer_meta",
    "topk_infer_meta",
    "transpose_infer_meta",
    "tril_triu_infer_meta",
    "unchanged_infer_meta",
    "unchanged_int_to_float_infer_meta",
    "unique_infer_meta",
    "unique_raw_infer_meta",
    "unsqueeze_infer_meta",
    "unsqueeze_with_xshape_infer_meta",
    "unstack_infer_meta",
    "viterbi_decode_infer_meta",
    "weight_quantize_infer_meta",
    "where_infer_meta",
]

__all__ += [  # phi/infermeta/nn.py
    "batch_norm_infer_infer_meta",
    "batch_norm_infer_meta",
    "conv_infer_meta",
    "conv_transpose_infer_meta",
    "depthwise_conv_infer_meta",
    "dropout_infer_meta",
    "flatten_infer_meta",
    "flatten_with_xshape_infer_meta",
    "group_norm_infer_meta",
    "instance_norm_infer_meta",
    "layer_norm_infer_meta",
    "pool2d_infer_meta",
    "prelu_infer_meta",
    "unchanged_infer_meta_check_axis",
]

from phi.infermeta.multiary import rnn_infer_meta  # noqa: E402

__all__ += ["rnn_infer_meta"]

from phi.infermeta.window import (  # noqa: E402
    conv3d_infer_meta,
    fold_infer_meta,
    max_pool_with_index_infer_meta,
    max_out_infer_meta,
    pool_infer_meta,
    unfold_infer_meta,
    unpool_infer_meta,
)

__all__ += [  # phi/infermeta/window.py
    "conv3d_infer_meta",
    "fold_infer_meta",
    "max_pool_with_index_infer_meta",
    "max_out_infer_meta",
    "pool_infer_meta",
    "unfold_infer_meta",
    "unpool_infer_meta",
]
from phi.infermeta import manip as _manip  # noqa: E402
from phi.infermeta.manip import *  # noqa: E402,F403 - the manip family's InferMeta

__all__ += list(_manip.__all__)
from phi.infermeta import unary2 as _unary2  # noqa: E402
from phi.infermeta.unary2 import *  # noqa: E402,F403 - the unary2 family's InferMeta

__all__ += list(_unary2.__all__)

from phi.infermeta import binary2 as _binary2  # noqa: E402
from phi.infermeta.binary2 import *  # noqa: E402,F403 - helper binary2's InferMeta

__all__ += list(_binary2.__all__)
from phi.infermeta import index as _index  # noqa: E402
from phi.infermeta.index import *  # noqa: E402,F403 - the index family's InferMeta

__all__ += _index.__all__
from phi.infermeta import reduce_ext as _reduce_ext  # noqa: E402
from phi.infermeta.reduce_ext import *  # noqa: E402,F403 - helper `reduce`'s InferMeta

__all__ += _reduce_ext.__all__
from phi.infermeta import linalg2 as _linalg2  # noqa: E402
from phi.infermeta.linalg2 import *  # noqa: E402,F403 - the linalg2 family's InferMeta

__all__ += list(_linalg2.__all__)
from phi.infermeta import spectral as _spectral  # noqa: E402
from phi.infermeta.spectral import *  # noqa: E402,F403 - linalg2's fft / signal InferMeta

__all__ += list(_spectral.__all__)
from phi.infermeta import linalg2_vision as _linalg2_vision  # noqa: E402
from phi.infermeta.linalg2_vision import *  # noqa: E402,F403 - linalg2's affine / sampling

__all__ += list(_linalg2_vision.__all__)
from phi.infermeta import misc1 as _misc1  # noqa: E402
from phi.infermeta.misc1 import *  # noqa: E402,F403 - helper misc1's InferMeta

__all__ += list(_misc1.__all__)

from phi.infermeta import misc2 as _misc2  # noqa: E402
from phi.infermeta.misc2 import *  # noqa: E402,F403 - helper misc2's InferMeta

__all__ += list(_misc2.__all__)

from phi.infermeta import comm as _comm  # noqa: E402
from phi.infermeta.comm import *  # noqa: E402,F403 - local ops of the communication family

__all__ += list(_comm.__all__)

from phi.infermeta import random_ops as _random_ops  # noqa: E402
from phi.infermeta.random_ops import *  # noqa: E402,F403 - the random ops of issue 12

__all__ += list(_random_ops.__all__)

from phi.infermeta import io_ops as _io_ops  # noqa: E402
from phi.infermeta.io_ops import *  # noqa: E402,F403 - nop, share_buffer (issue 12)

__all__ += list(_io_ops.__all__)

from phi.infermeta import optimizers as _optimizers  # noqa: E402
from phi.infermeta.optimizers import *  # noqa: E402,F403 - optimizer ops (issue 13)

__all__ += list(_optimizers.__all__)

from phi.infermeta import sequence_mask as _sequence_mask  # noqa: E402
from phi.infermeta.sequence_mask import *  # noqa: E402,F403 - sequence_mask

__all__ += list(_sequence_mask.__all__)

from phi.infermeta import detection_basic as _detection_basic  # noqa: E402
from phi.infermeta.detection_basic import *  # noqa: E402,F403 - prior_box, box_coder, yolo_box

__all__ += list(_detection_basic.__all__)

from phi.infermeta import nms as _nms  # noqa: E402
from phi.infermeta.nms import *  # noqa: E402,F403 - the NMS family

__all__ += list(_nms.__all__)

from phi.infermeta import sequence_pool as _sequence_pool  # noqa: E402
from phi.infermeta.sequence_pool import *  # noqa: E402,F403 - sequence_pool

__all__ += list(_sequence_pool.__all__)
from phi.infermeta import rnnt as _rnnt  # noqa: E402
from phi.infermeta.rnnt import *  # noqa: E402,F403 - warprnnt

__all__ += list(_rnnt.__all__)

from phi.infermeta import roi as _roi  # noqa: E402
from phi.infermeta.roi import *  # noqa: E402,F403 - roi_align, roi_pool, psroi_pool

__all__ += list(_roi.__all__)

from phi.infermeta import fpn as _fpn  # noqa: E402
from phi.infermeta.fpn import *  # noqa: E402,F403 - generate_proposals, distribute_fpn_proposals

__all__ += list(_fpn.__all__)
from phi.infermeta import sequence2 as _sequence2  # noqa: E402
from phi.infermeta.sequence2 import *  # noqa: E402,F403 - sequence / LoD ops (issue 12)

__all__ += list(_sequence2.__all__)

from phi.infermeta import deformable_conv as _deformable_conv  # noqa: E402
from phi.infermeta.deformable_conv import *  # noqa: E402,F403 - deformable_conv

__all__ += list(_deformable_conv.__all__)
from phi.infermeta import detection2 as _detection2  # noqa: E402
from phi.infermeta.detection2 import *  # noqa: E402,F403 - yolo_loss

__all__ += list(_detection2.__all__)

from phi.infermeta import optimizers2 as _optimizers2  # noqa: E402
from phi.infermeta.optimizers2 import *  # noqa: E402,F403 - dgc_momentum, merged_adam

__all__ += list(_optimizers2.__all__)

"""Fluid (old-style) kernels: registration and the kernels themselves."""

from fluid_compat.operators.fluid_kernels import (  # noqa: F401 - registration
    binary2,
    deprecated,
    fused,
    index,
    linalg2,
    losses,
    manip,
    manipulation,
    math,
    misc2,
    nn,
    quant,
    rnn_fused,
    unary2,
    window,
)
from fluid_compat.operators.fluid_kernels import lod  # noqa: F401 - the LoD core: lod_reset
from fluid_compat.operators.fluid_kernels import comm  # noqa: F401 - partial_concat / sum
from fluid_compat.operators.fluid_kernels import random  # noqa: F401 - random ops' hooks
from fluid_compat.operators.fluid_kernels import io_ops  # noqa: F401 - save / load, assert
from fluid_compat.operators.fluid_kernels import optimizers  # noqa: F401 - ftrl, proximal_gd
from fluid_compat.operators.fluid_kernels import sequence_lod  # noqa: F401 - sequence ops on LoD
from fluid_compat.operators.fluid_kernels import detection_tail  # noqa: F401 - iou_similarity ...
from fluid_compat.operators.fluid_kernels import lod_rules  # noqa: F401 - fluid ShareLoD
from fluid_compat.operators.fluid_kernels import mask_labels  # noqa: F401 - generate_mask_labels
from fluid_compat.operators.fluid_kernels import sequence2  # noqa: F401 - ctc_align, row_conv, ...
from fluid_compat.operators.fluid_kernels import detection2  # noqa: F401 - deformable_psroi_pooling
from fluid_compat.operators.fluid_kernels import det1  # noqa: F401 - locality_aware_nms
from fluid_compat.operators.fluid_kernels import proposal_labels  # noqa: F401 - generate_proposal_labels
from fluid_compat.operators.fluid_kernels import beam_decode  # noqa: F401 - beam_search_decode
from fluid_compat.operators.fluid_kernels import pyramid_hash  # noqa: F401 - pyramid_hash
from fluid_compat.operators.fluid_kernels import optimizers2  # noqa: F401 - dpsgd, dgc_*
from fluid_compat.operators.fluid_kernels import selected_rows  # noqa: F401 - lookup_table_grad
from fluid_compat.operators.fluid_kernels import grad_elem  # noqa: F401 - elementwise/matmul/reduce grads
from fluid_compat.operators.fluid_kernels import grad_nn  # noqa: F401 - nn grad hooks (gradnn)
from fluid_compat.operators.fluid_kernels import grad_loss  # noqa: F401 - loss grads (issue 13)
from fluid_compat.operators.fluid_kernels import grad_seq  # noqa: F401 - sequence grads (issue 13)
from fluid_compat.operators.fluid_kernels import grad_activation  # noqa: F401 - activation grads
from fluid_compat.operators.fluid_kernels import grad_manip  # noqa: F401 - shape / index grad ops

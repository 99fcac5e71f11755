"""phi kernels, one module per op family; importing this package registers them all.

Each kernel is a plain function of (device context, tensor inputs, attributes) returning its
output arrays, written against ``ctx.xp`` and registered on CPU (and GPU) for the dtypes Paddle
2.6.2 registers on CPU.  Importing does nothing but register.
"""

from __future__ import annotations

from phi.kernels import (  # noqa: F401 - imported to register their kernels
    activation,
    assign,
    binary2,
    binary2_linalg,
    broadcast,
    cast,
    compare,
    conv,
    conv_transpose,
    creation,
    elementwise,
    flatten,
    fused,
    graph,
    indexing,
    interpolate,
    linalg2,
    linalg2_vision,
    logical,
    losses,
    manip,
    manipulation,
    math_unary,
    matmul,
    nn_activation,
    norm,
    normalization,
    pooling,
    quant,
    reduce,
    rnn,
    scale,
    scan,
    scan2,
    scatter,
    search,
    sequence,
    slicing,
    softmax,
    spectral,
    statistics,
    vision,
    viterbi,
)
from phi.kernels import window_ops  # noqa: F401 - window ops of issue 10
from phi.kernels import unary2  # noqa: F401 - element-wise unary ops of helper unary2
from phi.kernels import misc1  # noqa: F401 - helper misc1's numerics / random ops
from phi.kernels import misc2  # noqa: F401 - npu_identity, shadow_output of helper misc2
from phi.kernels import comm  # noqa: F401 - c_embedding (communication family, local)
from phi.kernels import random_ops  # noqa: F401 - the random ops of issue 12
from phi.kernels import io_ops  # noqa: F401 - memcpy*, nop, share_buffer (issue 12)
from phi.kernels import optimizers  # noqa: F401 - optimizer update rules (issue 13)
from phi.kernels import sequence_mask  # noqa: F401 - sequence_mask (issue 12)
from phi.kernels import detection_basic  # noqa: F401 - prior_box, box_coder, yolo_box
from phi.kernels import nms  # noqa: F401 - multiclass_nms3, matrix_nms, nms (issue 12)
from phi.kernels import sequence_pool  # noqa: F401 - sequence_pool (issue 12)
from phi.kernels import warprnnt  # noqa: F401 - the RNN-T loss (warprnnt)
from phi.kernels import roi  # noqa: F401 - roi_align, roi_pool, psroi_pool (issue 12)
from phi.kernels import fpn  # noqa: F401 - generate_proposals, distribute_fpn_proposals
from phi.kernels import sequence2  # noqa: F401 - edit_distance (sequence / LoD, issue 12)
from phi.kernels import deformable_conv  # noqa: F401 - deformable_conv (issue 12)
from phi.kernels import detection2  # noqa: F401 - yolo_loss (issue 12)
from phi.kernels import optimizers2  # noqa: F401 - dgc_momentum, merged_adam (issue 13)
from phi.kernels import grad_complex  # noqa: F401 - complex / fft / eig grads (issue 13)
from phi.kernels import selected_rows  # noqa: F401 - SelectedRows kernels (issue 13)
from phi.kernels import grad_elementwise  # noqa: F401 - element-wise binary grads (issue 13)
from phi.kernels import grad_matmul  # noqa: F401 - matmul family grads (issue 13)
from phi.kernels import grad_reduce  # noqa: F401 - reduction / norm / scan grads (issue 13)
from phi.kernels import grad_linalg  # noqa: F401 - linear-algebra grads (issue 13)
from phi.kernels import grad_conv  # noqa: F401 - conv grads (issue 13, helper gradnn)
from phi.kernels import grad_pool  # noqa: F401 - pooling grads (issue 13, helper gradnn)
from phi.kernels import grad_norm  # noqa: F401 - normalization grads (issue 13, helper gradnn)
from phi.kernels import grad_vision  # noqa: F401 - vision / layout grads (issue 13, helper gradnn)
from phi.kernels import grad_roi  # noqa: F401 - RoI grads (issue 13, helper gradnn)
from phi.kernels import grad_deformable  # noqa: F401 - deformable_conv grad (gradnn)
from phi.kernels import grad_loss  # noqa: F401 - softmax / loss / dropout grads (issue 13)
from phi.kernels import grad_sequence  # noqa: F401 - sequence_pool_grad (issue 13)
from phi.kernels import grad_activation  # noqa: F401 - activation / unary-math grads (issue 13)
from phi.kernels import grad_manip  # noqa: F401 - grad kernels of the shape / data-movement ops
from phi.kernels import grad_index  # noqa: F401 - grad kernels of the indexing / sorting ops

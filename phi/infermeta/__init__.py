"""InferMeta: pure functions from input metas and attributes to output metas.

Grouped by arity as Paddle does; each is named as the snake_case of the CamelCase name that
``phi/api/ops.yaml`` uses (``ElementwiseInferMeta`` -> ``elementwise_infer_meta``).  Parameters
follow the YAML ``infer_meta: param`` list (input metas, attribute values), then the output
MetaTensor(s).  The same functions serve fluid InferShape: dims of -1 are unknown sizes, and an
optional keyword ``config=MetaConfig(is_runtime=False)`` marks compile time.

Importing this package imports none of its modules: each name below loads its module on first
use (``phi.infermeta.conv_infer_meta`` imports ``phi.infermeta.nn``).  A new InferMeta function
goes into its module's ``__all__`` and into ``_EXPORTS`` here (tests/test_cold_start.py checks
that every name resolves, that every ``*_infer_meta`` of a module's ``__all__`` is here, and all
of ``__all__`` for the modules the package used to star-import).
"""

from __future__ import annotations

import importlib

_EXPORTS: dict[str, tuple[str, ...]] = {
    "_utils": (
        "MetaConfig", "decided_by_kernel",
    ),
    "broadcast": (
        "expand_as_infer_meta", "expand_infer_meta", "numel_infer_meta", "one_hot_raw_infer_meta",
        "shape_infer_meta", "tile_infer_meta",
    ),
    "binary": (
        "compare_infer_meta", "compare_raw_infer_meta", "elementwise_infer_meta",
        "elementwise_raw_infer_meta", "embedding_infer_meta", "gather_infer_meta",
        "gather_nd_infer_meta", "index_select_infer_meta", "logical_binary_infer_meta",
        "matmul_infer_meta", "matmul_with_flatten_infer_meta",
    ),
    "multiary": (
        "addn_infer_meta", "concat_infer_meta", "stack_infer_meta", "where_infer_meta",
        "rnn_infer_meta",
    ),
    "nn": (
        "batch_norm_infer_infer_meta", "batch_norm_infer_meta", "conv_infer_meta",
        "conv_transpose_infer_meta", "depthwise_conv_infer_meta", "dropout_infer_meta",
        "flatten_infer_meta", "flatten_with_xshape_infer_meta", "group_norm_infer_meta",
        "instance_norm_infer_meta", "layer_norm_infer_meta", "pool2d_infer_meta",
        "prelu_infer_meta", "unchanged_infer_meta_check_axis",
    ),
    "fused": (
        "dequantize_linear_infer_meta", "fc_infer_meta", "fused_adam_infer_meta",
        "fused_softmax_mask_infer_meta", "fusion_repeated_fc_relu_infer_meta",
        "fusion_squared_mat_sub_infer_meta", "self_dp_attention_infer_meta",
        "viterbi_decode_infer_meta", "weight_quantize_infer_meta",
    ),
    "interpolate": (
        "interpolate_infer_meta",
    ),
    "vision": (
        "pad3d_infer_meta", "pixel_shuffle_infer_meta",
    ),
    "nullary": (
        "arange_tensor_infer_meta", "assign_value_infer_meta", "create_infer_meta",
        "linspace_infer_meta",
    ),
    "unary": (
        "arg_min_max_infer_meta", "argsort_infer_meta", "cast_infer_meta",
        "create_like_infer_meta", "cum_scalar_axis_infer_meta", "increment_infer_meta",
        "isfinite_infer_meta", "logical_not_infer_meta", "pnorm_infer_meta",
        "reduce_bool_infer_meta", "reduce_bool_infer_meta_base", "reduce_infer_meta_base",
        "reduce_int_array_axis_infer_meta", "reshape_infer_meta", "reshape_with_xshape_infer_meta",
        "slice_raw_infer_meta", "softmax_infer_meta", "split_infer_meta",
        "split_with_num_infer_meta", "squeeze_infer_meta", "squeeze_with_xshape_infer_meta",
        "strided_slice_infer_meta", "strided_slice_raw_infer_meta", "sum_infer_meta",
        "sum_raw_infer_meta", "topk_infer_meta", "transpose_infer_meta", "tril_triu_infer_meta",
        "unchanged_infer_meta", "unchanged_int_to_float_infer_meta", "unique_infer_meta",
        "unique_raw_infer_meta", "unsqueeze_infer_meta", "unsqueeze_with_xshape_infer_meta",
        "unstack_infer_meta",
    ),
    "window": (
        "conv3d_infer_meta", "fold_infer_meta", "max_pool_with_index_infer_meta",
        "max_out_infer_meta", "pool_infer_meta", "unfold_infer_meta", "unpool_infer_meta",
    ),
    "manip": (
        "broadcast_tensors_infer_meta", "broadcast_tensors_out_dims", "channel_shuffle_infer_meta",
        "crop_infer_meta", "crop_out_dims", "diag_embed_infer_meta", "diag_infer_meta",
        "diagonal_infer_meta", "eye_infer_meta", "fill_diagonal_tensor_infer_meta", "flip_axes",
        "flip_infer_meta", "full_batch_size_like_infer_meta", "full_int_array_infer_meta",
        "is_empty_infer_meta", "logspace_infer_meta", "meshgrid_infer_meta", "norm_axis",
        "pad_infer_meta", "pixel_unshuffle_infer_meta", "reverse_infer_meta", "roll_infer_meta",
        "as_strided_infer_meta", "strided_unchanged_infer_meta", "temporal_shift_infer_meta",
        "tensor_unfold_infer_meta", "transfer_layout_axes", "transfer_layout_infer_meta",
        "tril_indices_infer_meta", "tril_indices_count", "triu_indices_infer_meta",
        "unbind_infer_meta", "view_dtype_infer_meta", "view_shape_infer_meta",
    ),
    "unary2": (
        "as_complex_infer_meta", "as_real_infer_meta", "complex_infer_meta",
        "real_and_imag_infer_meta",
    ),
    "binary2": (
        "atan2_infer_meta", "addmm_infer_meta", "bmm_infer_meta", "cross_axis", "cross_infer_meta",
        "dist_infer_meta", "dot_infer_meta", "kron_infer_meta", "lerp_infer_meta",
        "multiplex_infer_meta", "mv_infer_meta", "trace_infer_meta",
        "all_value_compare_infer_meta", "bincount_infer_meta", "compare_all_infer_meta",
        "cum_infer_meta", "cum_with_indices_infer_meta", "cumprod_infer_meta",
        "histogram_infer_meta", "searchsorted_infer_meta", "value_compare_infer_meta",
    ),
    "index": (
        "gather_tree_meta", "graph_sample_neighbors_infer_meta", "index_add_infer_meta",
        "index_put_infer_meta", "index_sample_infer_meta", "masked_select_infer_meta",
        "non_zero_infer_meta", "put_along_axis_infer_meta", "repeat_interleave_infer_meta",
        "repeat_interleave_with_tensor_index_infer_meta", "scatter_infer_meta",
        "scatter_nd_add_infer_meta", "segment_pool_infer_meta", "send_urecv_infer_meta",
        "send_uerecv_infer_meta", "send_uvinfer_meta", "set_value_infer_meta",
        "shard_index_infer_meta", "take_along_axis_infer_meta", "unique_consecutive_infer_meta",
        "weighted_sample_neighbors_infer_meta",
    ),
    "reduce_ext": (
        "accuracy_infer_meta", "auc_infer_meta", "bce_loss_infer_meta", "check_kth",
        "cross_entropy_with_softmax_infer_meta", "huber_loss_infer_meta",
        "identity_loss_infer_meta", "kldiv_infer_meta", "kthvalue_infer_meta",
        "log_loss_infer_meta", "margin_cross_entropy_infer_meta", "mean_all_infer_meta",
        "median_out_dims", "mode_infer_meta", "nanmedian_infer_meta", "nll_loss_raw_infer_meta",
        "norm_infer_meta", "sigmoid_cross_entropy_with_logits_infer_meta",
        "spectral_norm_infer_meta", "squared_l2_norm_infer_meta",
    ),
    "linalg2": (
        "batch_broadcast", "cholesky_infer_meta", "cholesky_solve_infer_meta", "eig_infer_meta",
        "eigh_infer_meta", "eigvals_infer_meta", "eigvalsh_infer_meta", "einsum_infer_meta",
        "inverse_dims", "inverse_infer_meta", "lstsq_infer_meta", "lu_infer_meta",
        "lu_unpack_infer_meta", "matrix_power_infer_meta", "matrix_rank_infer_meta",
        "matrix_rank_tol_infer_meta", "multi_dot_infer_meta", "multi_dot_out_dims",
        "qr_infer_meta", "qr_out_dims", "real_dtype", "complex_dtype", "slogdet_infer_meta",
        "solve_infer_meta", "solve_out_dims", "square_dims", "svd_infer_meta",
        "triangular_solve_infer_meta",
    ),
    "spectral": (
        "fft_axes", "fft_c2c_infer_meta", "fft_c2r_infer_meta", "fft_r2c_infer_meta",
        "frame_infer_meta", "frame_out_dims", "overlap_add_infer_meta", "overlap_add_out_dims",
        "stft_infer_meta",
    ),
    "linalg2_vision": (
        "add_position_encoding_infer_meta", "affine_channel_infer_meta", "affine_grid_infer_meta",
        "affine_grid_out_dims", "bilinear_infer_meta", "grid_sample_infer_meta",
    ),
    "misc1": (
        "check_numerics_infer_meta", "dirichlet_infer_meta", "float_status_infer_meta",
        "gumbel_softmax_infer_meta", "pow2_decay_with_linear_warmup_infer_meta",
        "rrelu_infer_meta",
    ),
    "misc2": (
        "check_memory_continue_infer_meta", "coalesce_tensor_infer_meta",
    ),
    "comm": (
        "cembedding_infer_meta",
    ),
    "random_ops": (
        "class_center_sample_infer_meta", "dropout_nd_infer_meta", "gaussian_infer_meta",
        "multinomial_infer_meta", "randint_infer_meta", "randint_with_seed_infer_meta",
        "randperm_infer_meta", "truncated_gaussian_random_infer_meta", "uniform_random_infer_meta",
    ),
    "io_ops": (
        "nop_infer_meta", "share_buffer_infer_meta",
    ),
    "optimizers": (
        "adadelta_infer_meta", "adagrad_infer_meta", "adam_infer_meta", "adamax_infer_meta",
        "adamw_infer_meta", "average_accumulates_infer_meta",
        "check_finite_and_unscale_infer_meta", "clip_by_norm_infer_meta",
        "decayed_adagrad_infer_meta", "lamb_infer_meta", "lars_momentum_infer_meta",
        "merged_momentum_infer_meta", "momentum_infer_meta", "rmsprop_infer_meta",
        "sgd_infer_meta", "update_loss_scaling_infer_meta",
    ),
    "sequence_mask": (
        "sequence_mask_infer_meta",
    ),
    "detection_basic": (
        "box_coder_infer_meta", "prior_box_infer_meta", "yolo_box_infer_meta",
    ),
    "nms": (
        "matrix_nms_infer_meta", "multiclass_nms3_infer_meta", "nms_infer_meta",
    ),
    "sequence_pool": (
        "sequence_pool_infer_meta",
    ),
    "rnnt": (
        "warprnnt_infer_meta",
    ),
    "roi": (
        "psroi_pool_infer_meta", "roi_align_infer_meta", "roi_pool_infer_meta",
    ),
    "fpn": (
        "distribute_fpn_proposals_infer_meta", "generate_proposals_infer_meta",
    ),
    "sequence2": (
        "edit_distance_infer_meta", "fusion_gru_infer_meta",
        "fusion_seqconv_eltadd_relu_infer_meta", "fusion_seqexpand_concat_fc_infer_meta",
        "hsigmoid_loss_infer_meta", "shuffle_batch_infer_meta", "warpctc_infer_meta",
    ),
    "deformable_conv": (
        "deformable_conv_infer_meta",
    ),
    "detection2": (
        "yolo_loss_infer_meta",
    ),
    "optimizers2": (
        "dgc_momentum_infer_meta", "merged_adam_infer_meta",
    ),
}
_WHERE: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [name for names in _EXPORTS.values() for name in names]


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # the next lookup is a plain attribute
        return value
    if not name.startswith("__"):
        try:  # a submodule as an attribute (``phi.infermeta.nn``), as an eager import bound it
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))

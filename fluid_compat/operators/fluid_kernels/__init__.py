"""Fluid (old-style) kernels and the fluid-only hooks of legacy ops, one module per op type.

Where an op type's pieces are (its fluid kernels, its GetExpectedKernelType / ShareLoD /
InferShape hooks that are code, its operator class) follows the layout rule
(phi.core.layout): a type listed in `FAMILIES` is in that family's module, else in the module
named by its base (the type less one grad suffix, then less ``_grad`` / ``_infer``:
``lookup_table_grad`` -> ``lookup_table.py``, ``relu_grad_grad`` -> ``relu``,
``merge_lod_tensor_infer`` -> ``merge_lod_tensor``).  ``funcs.py`` holds the helpers modules
share; ``registry.py`` is the registry.  The regular hooks are data: fluid_compat/operators/
op_hooks.yaml.

Importing this package imports none of the kernel modules: the registry imports the module the
rule names for an op type on that type's first lookup (`RuleIndex`); `all_fluid_kernels`
imports every module.  ``FLAGS_lazy_kernel_import=0`` imports them all here.
"""

from __future__ import annotations

import importlib
import importlib.util

from phi.core.layout import Layout

__all__ = ["FAMILIES", "LAYOUT"]

#: family module -> the op types it holds (with their grads and ``_infer`` variants); a family
#: only where the members share code or Paddle keeps them in one file
FAMILIES: dict[str, tuple[str, ...]] = {
    "activation": ("relu", "soft_relu"),
    "crf": ("crf_decoding", "linear_chain_crf"),
    "cross_entropy": ("cross_entropy", "cross_entropy2", "cross_entropy_grad2"),
    "detection": ("anchor_generator", "bipartite_match", "box_clip", "box_decoder_and_assign",
                  "collect_fpn_proposals", "density_prior_box", "distribute_fpn_proposals",
                  "generate_proposals", "iou_similarity", "locality_aware_nms",
                  "mine_hard_examples", "multiclass_nms", "multiclass_nms2",
                  "polygon_box_transform", "retinanet_detection_output", "retinanet_target_assign",
                  "rpn_target_assign"),
    "fill_zeros_like": ("fill_zeros_like", "fill_zeros_like2"),
    "fused_elemwise_activation": ("fused_elemwise_activation", "fused_elemwise_add_activation"),
    "interpolate": ("bicubic_interp", "bilinear_interp", "linear_interp", "nearest_interp",
                    "trilinear_interp"),
    "io": ("load", "load_combine", "read_file", "save", "save_combine"),
    "isfinite": ("isinf", "isnan"),
    "lod_rank_table": ("lod_rank_table", "max_sequence_len", "reorder_lod_tensor_by_rank",
                       "shrink_rnn_memory"),
    "matmul": ("matmul", "matmul_v2"),
    "optimizers": ("dgc_clip_by_norm", "dpsgd", "ftrl", "proximal_gd", "sparse_momentum"),
    "partial": ("partial_concat", "partial_sum"),
    "quant": ("dequantize_abs_max", "dequantize_log", "fake_channel_wise_dequantize_max_abs",
              "fake_channel_wise_quantize_abs_max", "fake_channel_wise_quantize_dequantize_abs_max",
              "fake_dequantize_max_abs", "fake_quantize_abs_max",
              "fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
              "fake_quantize_moving_average_abs_max", "fake_quantize_range_abs_max",
              "lookup_table_dequant", "moving_average_abs_max_scale", "quantize", "quantize_linear",
              "requantize", "stright_throuth_estimator_grad"),
    "reduce": ("frobenius_norm", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
               "reduce_sum"),
    "rnn": ("attention_lstm", "fused_embedding_fc_lstm", "fusion_lstm", "gru", "lstm", "multi_gru",
            "rnn"),
    "seqpool": ("fused_embedding_seq_pool", "fused_seqpool_cvm", "fusion_seqpool_concat",
                "fusion_seqpool_cvm_concat"),
    "sequence": ("sequence_concat", "sequence_conv", "sequence_enumerate", "sequence_erase",
                 "sequence_expand", "sequence_expand_as", "sequence_pad", "sequence_reshape",
                 "sequence_reverse", "sequence_scatter", "sequence_slice", "sequence_softmax",
                 "sequence_unpad"),
    "split_merge_lod_tensor": ("merge_lod_tensor", "split_lod_tensor"),
}

LAYOUT = Layout(__name__, FAMILIES, variants=("_grad", "_infer"), helpers=("funcs", "registry"))
"""The rule for this package (``_grad`` as a variant: the legacy double-grad spelling
``<op>_grad_grad``)."""


def __getattr__(name: str):
    # ``fluid_kernels.pool2d`` after a bare package import still finds the module
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _install() -> None:
    from phi import flags

    from fluid_compat.operators.fluid_kernels.registry import load_all_fluid_kernels, set_layout

    set_layout(LAYOUT)
    if not flags.FLAGS["FLAGS_lazy_kernel_import"]:
        load_all_fluid_kernels()

    def on_flag(name: str, value: object) -> None:
        if name == "FLAGS_lazy_kernel_import" and not value:
            load_all_fluid_kernels()

    flags.on_change(on_flag)


_install()

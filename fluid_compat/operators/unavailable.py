"""Legacy ops that cannot run in one process of this bridge, and why.

Paddle 2.6.2's CPU wheel registers kernels for them, but running them needs something outside a
single process: a communication group (collectives and point-to-point ops look up the
communicator of their ``ring_id`` and fail without one, as Paddle does when
``init_parallel_env`` was not called), a parameter server (pull / push of sparse tables), or a
GPU-only library.  A program holding one of them is refused at plan time with
`phi.core.errors.Unavailable` naming the op and the reason, before anything runs (``run_op``
refuses it the same way); ``fluid-compat ops --all`` shows them as ``unavailable: <reason>``.
"""

from __future__ import annotations

__all__ = ["UNAVAILABLE", "unavailable_message", "unavailable_reason"]

PROCESS_GROUP = "needs a process group"
PARAMETER_SERVER = "needs a parameter server"
GPU_LIBRARY = "needs a GPU-only library"
NO_CPU_KERNEL = "has no CPU implementation in Paddle"
DYGRAPH = "runs a dygraph-to-static program"
GPU_ONLY = "runs only on GPUs in Paddle"
STRING_TENSORS = "needs string tensors"
PRIMITIVE = "is a primitive op of Paddle's autodiff prim system"
XPU_ONLY = "runs only on Kunlun XPUs"
GPU_FUSED = "is a GPU-only fused op"
NO_KERNEL = "has no kernel in Paddle 2.6.2"
READER = "needs Paddle's reader threads and queues"
PY_FUNC = "calls a Python function of the process that built the program"
KERNEL_DROPPED = "lost its kernels in Paddle 2.6.2"
PIPELINE_TRAINER = "runs only inside Paddle's pipeline trainer"
SPARSE_GPU = "has sparse kernels on GPUs only in Paddle 2.6.2"
SPARSE_NO_CPU = "has a CPU sparse kernel that only raises in Paddle 2.6.2"

_WHY = {
    KERNEL_DROPPED: "Paddle 2.6.2 still declares it (an OperatorWithKernel) but its wheel "
                    "registers no kernel for it: a program holding it fails with \"There are "
                    "no kernels which are registered in the fill operator\" "
                    "(tools/fixtures/gen_operator_base_cases.py)",
    PIPELINE_TRAINER: "copy_cross_scope copies X between the micro-batch kid scopes that "
                      "Paddle's pipeline trainer (SectionWorker) makes under the scope it runs "
                      "in; under an Executor that scope has no such kids and Paddle fails with "
                      "\"number of micro scopes (0) should be equal to number of micro batches\"",
    SPARSE_GPU: "Paddle 2.6.2 registers its kernels (acos_coo / acosh_coo, fused_attention_csr, "
                "sync_batch_norm_coo ...) for GPUs only; its CPU build has none",
    SPARSE_NO_CPU: "Paddle 2.6.2's CPU kernels of the sparse products (matmul_csr_dense, "
                   "masked_matmul_csr, mv_coo / mv_csr, addmm_coo_dense ...) only raise "
                   "Unimplemented (\"Not support CPU kernel\"); they run on GPUs",
    PROCESS_GROUP: "it exchanges tensors with other ranks through the communicator of its "
                   "ring_id, which one process does not have (Paddle fails the same way "
                   "without init_parallel_env)",
    PARAMETER_SERVER: "it pulls or pushes rows of a distributed table held by parameter-server "
                      "processes",
    GPU_LIBRARY: "Paddle runs it only with a GPU library (nvJPEG for decode_jpeg); its CPU "
                 "registration has no implementation behind it",
    DYGRAPH: "run_program executes a paddle.jit.to_static program inside Paddle's dygraph "
             "engine (its Params, OutScope and forward / backward blocks come from a dygraph "
             "Layer); static programs saved for inference never hold it",
    NO_CPU_KERNEL: "Paddle 2.6.2 registers a CPU kernel that only raises (\"Do not support ... "
                   "for cpu kernel now\"): it runs on GPUs, within a process group",
    GPU_ONLY: "Paddle 2.6.2's CPU kernel only raises Unimplemented (\"only supports GPU now\", "
              "\"CPU is not support for cudnn_lstm now\"); it needs cuDNN / CUDA",
    PRIMITIVE: "the *_p ops exist only between the orig2prim and prim2orig program transforms of "
               "paddle.incubate.autograd; no device has a kernel for them and Paddle's executor "
               "refuses them too",
    XPU_ONLY: "Paddle Inference's XPU passes write it and Paddle 2.6.2 registers its kernels for "
              "XPU only; a CPU program never holds it",
    GPU_FUSED: "Paddle 2.6.2 registers its kernels for GPUs only (CUDA / cuDNN / cutlass fusions "
               "written by GPU inference passes or incubate APIs); its CPU wheel fails with "
               "\"There are no kernels which are registered\"",
    NO_KERNEL: "Paddle 2.6.2 keeps its description but registers no kernel for it on any device "
               "(its executor fails with \"There are no kernels which are registered in the "
               "pad2d operator\"; pad3d replaced it)",
    READER: "it pops batches from a reader or blocking queue that a Python DataLoader thread of "
            "the Paddle process fills; saved inference programs feed their inputs instead",
    PY_FUNC: "its forward_callable_id indexes Python callables registered in the Paddle process "
             "that built the program; a saved program carries only the number",
    STRING_TENSORS: "its inputs are a string-to-id vocabulary and strings (Paddle's Strings / "
                    "Vocab variables), which this bridge cannot feed or hold",
}

#: op type -> why it cannot run here (one of the reasons above)
UNAVAILABLE: dict[str, str] = {
    **dict.fromkeys(("all_gather", "all_reduce", "all_to_all", "broadcast", "reduce",
                     "reduce_scatter", "p_send", "p_recv", "p_send_array", "p_recv_array"),
                    PROCESS_GROUP),
    **dict.fromkeys(("pull_sparse", "pull_sparse_v2", "pull_gpups_sparse", "push_dense"),
                    PARAMETER_SERVER),
    "decode_jpeg": GPU_LIBRARY,
    # the communication family: Paddle-made cases in
    # tools/fixtures/cases/comm.py show what one Paddle process does with each: the collectives
    # need a gloo / NCCL communicator ("You must initialize the gloo environment first"), the
    # split / concat ops refuse nranks < 2, the MoE routing ops have no CPU kernel
    **dict.fromkeys(("c_allreduce_max", "c_allreduce_min", "c_allreduce_prod", "c_allreduce_sum",
                     "c_reduce_max", "c_reduce_min", "c_reduce_prod", "c_reduce_sum",
                     "c_broadcast", "c_allgather", "c_concat", "c_split", "c_scatter",
                     "mp_allreduce_sum", "partial_allgather", "barrier", "send_v2", "recv_v2",
                     "partial_send", "partial_recv"), PROCESS_GROUP),
    **dict.fromkeys(("send_and_recv", "distributed_lookup_table", "distributed_push_sparse",
                     "pull_box_sparse", "pull_box_extended_sparse"), PARAMETER_SERVER),
    **dict.fromkeys(("alltoall", "c_identity", "c_reducescatter", "c_softmax_with_cross_entropy",
                     "global_gather", "global_scatter", "number_count", "assign_pos",
                     "limit_by_capacity", "prune_gate_by_capacity", "random_routing",
                     "distributed_fused_lamb", "distributed_fused_lamb_init"), NO_CPU_KERNEL),
    "run_program": DYGRAPH,
    # GPU-only ops: Paddle-made cases in tools/fixtures/cases/ (bilateral_slice, cudnn_lstm:
    # selected_rows_warprnnt_mask_labels.py; correlation: detection.py)
    **dict.fromkeys(("bilateral_slice", "cudnn_lstm", "correlation"), GPU_ONLY),
    "faster_tokenizer": STRING_TENSORS,
    # the op types of Paddle 2.6.2 that no CPU program can run (its CPU wheel has
    # neither a kernel nor an operator class for them: checked with
    # core._get_all_register_op_kernels and a one-op program each)
    **dict.fromkeys(("abs_p", "add_p", "bernoulli_p", "broadcast_p", "cast_p", "concat_p",
                     "cos_p", "div_p", "eq_p", "erf_p", "exp_p", "fill_constant_p", "gather_p",
                     "ge_p", "gt_p", "log_p", "matmul_p", "max_p", "mul_p", "ne_p", "pow_p",
                     "reduce_sum_p", "reshape_p", "rsqrt_p", "scatter_add_p", "select_p",
                     "sin_p", "slice_assign_p", "slice_select_p", "split_p", "sqrt_p", "sub_p",
                     "tanh_p", "transpose_p", "uniform_random_p"), PRIMITIVE),
    **dict.fromkeys(("add_act_xpu", "add_layernorm_xpu", "addcmul_xpu", "bn_act_xpu",
                     "conv1d_xpu", "conv2d_transpose_xpu", "conv2d_xpu", "dequantize_xpu",
                     "embedding_with_eltwise_add_xpu", "fast_layernorm_xpu", "fast_where_xpu",
                     "fc_xpu", "fused_multi_transformer_int8_xpu", "fused_multi_transformer_xpu",
                     "generate_sequence_xpu", "layer_norm_act_xpu", "multi_encoder_xpu",
                     "quantize_xpu", "squeeze_excitation_block", "yolo_box_xpu"), XPU_ONLY),
    **dict.fromkeys(("block_multihead_attention", "flash_attn", "flash_attn_unpadded",
                     "fused_bias_act", "fused_bias_dropout_residual_layer_norm",
                     "fused_bias_residual_layernorm", "fused_conv2d_add_act",
                     "fused_dconv_drelu_dbn", "fused_dropout_add",
                     "fused_embedding_eltwise_layernorm", "fused_fc_elementwise_layernorm",
                     "fused_linear_param_grad_add", "fused_rotary_position_embedding",
                     "fused_scale_bias_add_relu", "fused_scale_bias_relu_conv_bn",
                     "fused_token_prune", "fusion_transpose_flatten_concat", "llm_int8_linear",
                     "masked_multihead_attention", "memory_efficient_attention", "moe",
                     "multihead_matmul", "quant_linear", "rms_norm", "skip_layernorm",
                     "top_p_sampling", "variable_length_memory_efficient_attention",
                     "weight_dequantize", "weight_only_linear"), GPU_FUSED),
    "pad2d": NO_KERNEL,
    **dict.fromkeys(("c_comm_init", "c_comm_init_all", "c_comm_init_multitrainer",
                     "c_gen_xccl_id", "c_sync_calc_stream", "c_sync_comm_stream",
                     "c_wait_comm", "c_wait_compute", "dist_concat"), PROCESS_GROUP),
    **dict.fromkeys(("fetch_barrier", "send", "send_barrier", "listen_and_serv",
                     "heter_listen_and_serv"), PARAMETER_SERVER),
    **dict.fromkeys(("create_double_buffer_reader", "create_py_reader", "read", "dequeue",
                     "enqueue", "queue_generator"), READER),
    "py_func": PY_FUNC,
    # the small OperatorBase family: Paddle-made cases in tools/fixtures/gen_operator_base_cases.py
    "fill": KERNEL_DROPPED,
    # the sparse family: kernels Paddle 2.6.2 registers for GPUs only, and CPU kernels that
    # only raise ("Not support CPU kernel of 'sparse.matmul' now")
    **dict.fromkeys(("sparse_acos", "sparse_acosh", "sparse_fused_attention",
                     "sparse_sync_batch_norm"), SPARSE_GPU),
    **dict.fromkeys(("sparse_matmul", "sparse_masked_matmul", "sparse_mv", "sparse_addmm"),
                    SPARSE_NO_CPU),
    "copy_cross_scope": PIPELINE_TRAINER,
}


def unavailable_reason(op_type: str) -> str | None:
    """Why ``op_type`` cannot run in one process (short form), or None."""
    return UNAVAILABLE.get(op_type)


def unavailable_message(label: str, reason: str) -> str:
    """The Unavailable error's text: which op, the reason and its explanation."""
    return f"{label} cannot run in one process of this bridge: it {reason} ({_WHY[reason]})."

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

_WHY = {
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
    # the communication family (issue 12, item 4): Paddle-made cases in
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
    # issue 11's last ops: Paddle-made cases in tools/fixtures/cases/selrows_misc.py
    **dict.fromkeys(("bilateral_slice", "cudnn_lstm", "correlation"), GPU_ONLY),
    "faster_tokenizer": STRING_TENSORS,
}


def unavailable_reason(op_type: str) -> str | None:
    """Why ``op_type`` cannot run in one process (short form), or None."""
    return UNAVAILABLE.get(op_type)


def unavailable_message(label: str, reason: str) -> str:
    """The Unavailable error's text: which op, the reason and its explanation."""
    return f"{label} cannot run in one process of this bridge: it {reason} ({_WHY[reason]})."

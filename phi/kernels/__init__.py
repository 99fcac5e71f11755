"""phi kernels: one module per kernel (its variants and grads with it), or per family of
kernels that share code; each module registers its kernels when imported.

Each kernel is a plain function of (device context, tensor inputs, attributes) returning its
output arrays, written against ``ctx.xp`` and registered on CPU (and GPU) for the dtypes Paddle
2.6.2 registers on CPU.  Importing does nothing but register.

Where a kernel is defined follows the layout rule (phi.core.layout): a name listed in
``FAMILIES`` is in that family's module, else in the module named by its base (the name less a
grad suffix and a variant suffix: ``unfold_grad`` -> ``unfold.py``).  Sparse kernels
(``*_coo``, ``*_csr``) are in the sub-package ``sparse/``, SelectedRows kernels (``*_sr``,
``*_dense_param_sparse_grad`` ...) in ``selected_rows/``, each with its own table; helpers
shared by several modules are in ``funcs/``.

Importing this package imports none of the kernel modules: the process-wide KernelFactory
imports the module the rule names on the first lookup of a kernel name; listing the registry
(``names()``) imports every module.  ``FLAGS_lazy_kernel_import=0`` in the environment imports
them all here.
"""

from __future__ import annotations

import importlib
import importlib.util

from phi.core import bound as _bound  # noqa: F401 (the kernels' binders; defines its flag)
from phi.core.layout import Layout
from phi.kernels.selected_rows import LAYOUT as _SELECTED_ROWS
from phi.kernels.sparse import LAYOUT as _SPARSE

__all__ = ["FAMILIES", "LAYOUT", "load_all"]


def family_table(text: str) -> dict[str, tuple[str, ...]]:
    """``family: member member ...`` lines (an indented line continues the one above) as a
    family table."""
    table: dict[str, list[str]] = {}
    family = ""
    for line in text.strip("\n").splitlines():
        if line.startswith(" "):
            table[family] += line.split()
        else:
            family, _, members = line.partition(":")
            table[family] = members.split()
    return {f: tuple(m) for f, m in table.items()}


FAMILIES = family_table("""
activation: abs acos acosh angle asin asinh atan atanh ceil celu cos cosh digamma elu erf
    erfinv exp expm1 floor gelu hard_shrink hardsigmoid hardswish hardtanh i0 i0e i1 i1e
    leaky_relu lgamma log log10 log1p log2 logit logsigmoid mish polygamma pow reciprocal relu
    relu6 round rsqrt selu sigmoid sign silu sin sinh softplus softshrink softsign sqrt square
    stanh swish tan tanh tanh_shrink thresholded_relu trunc
arg_min_max: argmax argmin
assign: assign assign_value
bitwise: bitwise_and bitwise_not bitwise_or bitwise_xor
compare: equal equal_all greater_equal greater_than less_equal less_than not_equal
complex: as_complex as_real complex conj imag real
conv: conv2d conv3d depthwise_conv2d fused_conv2d fused_conv3d
conv_transpose: conv2d_transpose conv3d_transpose depthwise_conv2d_transpose
cum: cummax cummin cumprod cumsum logcumsumexp
dropout: dropout dropout_nd
elementwise: add add_n atan2 divide elementwise_pow floor_divide fmax fmin grad_add heaviside
    maximum minimum multiply nextafter remainder subtract
fft: fft_c2c fft_c2r fft_r2c
full: full full_batch_size_like full_int_array full_like
fused_elementwise: fused_elementwise_add fused_elementwise_div fused_elementwise_mul
    fused_elementwise_sub
fused_softmax_mask: fused_softmax_mask fused_softmax_mask_upper_triangle
index_select: index_select index_select_strided
interpolate: bicubic_interp bilinear_interp linear_interp nearest_interp trilinear_interp
isfinite: isfinite isinf isnan
logical: logical_and logical_not logical_or logical_xor
matmul: matmul matmul_with_flatten
matrix_rank: matrix_rank matrix_rank_tol
memcpy: memcpy memcpy_d2h memcpy_h2d
pixel_shuffle: pixel_shuffle pixel_unshuffle
pool: max_pool2d_with_index max_pool3d_with_index pool2d pool3d
randint: randint randint_with_seed
reduce: all amax amin any max mean min prod sum
repeat_interleave: repeat_interleave repeat_interleave_with_tensor_index
set_value: set_value set_value_with_tensor
softmax: gumbel_softmax softmax
split: split split_with_num
unpool: unpool unpool3d
view: view_dtype view_shape
""")
"""Family module -> the kernels (or bases) it holds; any other kernel is in the module named
by its base.  A family groups kernels that Paddle declares together or that share their code
(activation_kernel.h, compare_kernel.h, the element-wise binary ops, the reductions ...)."""

LAYOUT = Layout("phi.kernels", FAMILIES, variants=("_raw", "_infer"), helpers=("funcs",),
                parts=((r"(^|_)(coo|csr)(_|$)", _SPARSE),
                       (r"_sr$|_sparse_grad$|selected_rows|^sparse_weight_embedding",
                        _SELECTED_ROWS)))
"""The rule for phi.kernels: sparse names (a ``coo`` / ``csr`` word) and SelectedRows names go
by their sub-package's table."""


def load_all() -> None:
    """Import every kernel module (register every kernel) now."""
    from phi.core.registry import kernel_factory

    kernel_factory().load_all()


def __getattr__(name: str):
    # ``phi.kernels.conv`` after a bare ``import phi.kernels`` still finds the module
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'phi.kernels' has no attribute {name!r}")


def _install() -> None:
    from phi import flags
    from phi.core.registry import kernel_factory

    factory = kernel_factory()
    factory.set_layout(LAYOUT)
    if not flags.FLAGS["FLAGS_lazy_kernel_import"]:
        factory.load_all()

    def on_flag(name: str, value: object) -> None:
        if name == "FLAGS_lazy_kernel_import" and not value:
            factory.load_all()

    flags.on_change(on_flag)


_install()

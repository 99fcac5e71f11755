"""Op hooks of the sparse legacy ops (no fluid kernels: their phi kernels are in
phi/kernels/sparse/, chosen by argmap/irregular/sparse.py).

The generated sparse op makers' GetExpectedKernelType follows the YAML's ``data_type``; only
``full_like`` names an attribute (``dtype``), so its kernel dtype is the attribute's: with the
default -1 Paddle 2.6.2 asks for a RAW kernel and finds none ("There are no kernels which are
registered in the sparse_full_like operator", the fixture ``full_like_coo``).  The others use
the default (the inputs' dtype, as the YAML's ``data_type: x`` / ``values`` gives).
"""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_attr

op_hooks("sparse_full_like", get_expected_kernel_type=expected_from_attr("dtype"))

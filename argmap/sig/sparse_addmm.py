"""Mapping of ``sparse_addmm``: the kernel by its inputs' tensor kinds.

Paddle generates it from phi's sparse_ops.yaml; the rule is `argmap.sig.funcs.sparse_mapping`'s.
"""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import sparse_mapping

MAPPINGS = MappingFamily("sparse_addmm")

MAPPINGS.add(
    "sparse_addmm",
    sparse_mapping(
        "addmm",
        inputs=("input", "x", "y"),
        attrs=("beta", "alpha"),
        outputs=("out",),
        candidates=(
            ("addmm_csr_dense", ("dense", "csr", "dense")),
            ("addmm_csr_csr", ("csr", "csr", "csr")),
            ("addmm_coo_dense", ("dense", "coo", "dense")),
            ("addmm_coo_coo", ("coo", "coo", "coo")),
        ),
    ),
)

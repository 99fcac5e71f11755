"""Mapping of ``sum``: add_n_sr when every X is a SelectedRows, else add_n."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("sum")


@MAPPINGS.arg_mapping("sum")
def sum_(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: add_n_sr when every X is a SelectedRows; add_n (dense and mixed inputs) else.
    if ctx.is_selected_rows_inputs("X"):
        return KernelSignature("add_n_sr", ("X",), (), ("Out",))
    return KernelSignature("add_n", ("X",), (), ("Out",))

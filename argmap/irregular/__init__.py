"""Hand-written mappings of irregular ops, one module per op family.

An op is irregular when its signature depends on more than which tensor gives an attribute: the
kernel name changes with an attribute value (``split``: ``num``), with the kind of a variable
(``scale``: SelectedRows), with an optional output (``flatten_contiguous_range``: XShape), or
sources are checked in a non-generated order (``reshape2``).  Each function carries a one-line
comment saying why.  Regular ops are declared in ``argmap/op_compat.yaml``.

The process-wide registry reads exactly the families listed here.
"""

from __future__ import annotations

from argmap.irregular import (
    binary2,
    creation,
    elementwise,
    index,
    linalg2,
    manip,
    manipulation,
    nn,
    random,
    reduction,
    selected_rows,
    sparse,
)
from argmap.irregular import grad_manip
from argmap.registry import MappingFamily

FAMILIES: tuple[MappingFamily, ...] = (
    binary2.FAMILY,
    creation.FAMILY,
    elementwise.FAMILY,
    index.FAMILY,
    linalg2.FAMILY,
    manip.FAMILY,
    manipulation.FAMILY,
    nn.FAMILY,
    random.FAMILY,
    reduction.FAMILY,
    selected_rows.FAMILY,
    sparse.FAMILY,
    grad_manip.FAMILY,
)

"""ArgumentMappingContext: the only questions a mapping function may ask about an op.

Concrete contexts live where the data lives (fluid_compat): one at run time, whose answers
come from the scope's variables, and one at compile time, whose answers come from the
program description (no data).  A mapping function receives one of them, asks, and returns a
`KernelSignature` of names; it never reads values of tensors, so that `argmap.check` can drive
it with a context that answers every question every possible way.
"""

from __future__ import annotations

import abc
from typing import Any

__all__ = ["ArgumentMappingContext"]


class ArgumentMappingContext(abc.ABC):
    """Paddle's ``phi::ArgumentMappingContext`` (2.6.2), in Python names.

    Slot names are the legacy OpProto names (``"X"``, ``"ShapeTensor"``); attribute names are
    the OpDesc's (runtime attributes included, when the OpDesc carries them).
    """

    @abc.abstractmethod
    def has_input(self, name: str) -> bool:
        """The input slot holds a variable (a dispensable slot may be absent or empty)."""

    @abc.abstractmethod
    def has_output(self, name: str) -> bool:
        """The output slot holds a variable (saved models drop some, e.g. flatten's XShape)."""

    @abc.abstractmethod
    def has_attr(self, name: str) -> bool:
        """The OpDesc carries the attribute (saved programs drop runtime attributes)."""

    @abc.abstractmethod
    def attr(self, name: str) -> Any:
        """The attribute's value as the OpDesc holds it (int, float, bool, str, list)."""

    @abc.abstractmethod
    def input_size(self, name: str) -> int:
        """How many variables the input slot holds (0 when absent)."""

    @abc.abstractmethod
    def output_size(self, name: str) -> int:
        """How many variables the output slot holds (0 when absent)."""

    @abc.abstractmethod
    def is_dense_tensor_input(self, name: str) -> bool:
        """The input is a DenseTensor (LoDTensor)."""

    @abc.abstractmethod
    def is_selected_rows_input(self, name: str) -> bool:
        """The input is a SelectedRows."""

    def is_selected_rows_inputs(self, name: str) -> bool:
        """Every variable of the (duplicable) input is a SelectedRows (Paddle's
        IsSelectedRowsInputs, asked by sum's mapping)."""
        return self.is_selected_rows_input(name)

    def is_sparse_coo_tensor_input(self, name: str) -> bool:
        """The input is a SparseCooTensor (Paddle's IsSparseCooTensorInput, asked by the
        sparse ops' generated mappings).  Not abstract: False for contexts without sparse
        variables."""
        return False

    def is_sparse_csr_tensor_input(self, name: str) -> bool:
        """The input is a SparseCsrTensor (Paddle's IsSparseCsrTensorInput)."""
        return False

    @abc.abstractmethod
    def is_dense_tensor_vector_input(self, name: str) -> bool:
        """The input is a TensorArray (LoDTensorArray)."""

    @abc.abstractmethod
    def is_dense_tensor_output(self, name: str) -> bool:
        """The output is (declared as) a DenseTensor."""

    def is_selected_rows_output(self, name: str) -> bool:
        """The output is (declared as) a SelectedRows.

        Not abstract: a context for programs without SelectedRows variables may keep this
        default.  Paddle asks it in fill_constant's mapping (``full_sr``).
        """
        return False

    @abc.abstractmethod
    def is_for_infer_shape(self) -> bool:
        """True when the signature is asked for InferShape (InferMeta arguments), not to run a
        kernel; reduce ops then answer with their ``*_raw`` signature."""

    def is_runtime(self) -> bool:
        """False at compile time (program description only); Paddle's default is true."""
        return True

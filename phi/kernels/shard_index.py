"""The ``shard_index`` kernel."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.indexing import to_host

__all__ = ["shard_index"]


INTS = ["int32", "int64"]


# -- small index kernels ------------------------------------------------------------------------

@register_kernel("shard_index", ("CPU", "GPU"), dtypes=INTS)
def shard_index(ctx, x: Tensor, index_num: int, nshards: int, shard_id: int,
                ignore_value: int) -> Tensor:
    """x - shard_id * shard_size where x falls in shard ``shard_id`` (shard_size =
    ceil(index_num / nshards)), else ``ignore_value``."""
    xp = ctx.xp
    if not 0 <= shard_id < nshards:
        raise InvalidArgument(f"The value 'shard_id' for Op(shard_index) must be greater than or "
                              f"equal to 0 and less than nshards ({nshards}), but the value "
                              f"given is {shard_id}.")
    h = to_host(ctx, x)
    bad = h[(h < 0) | (h >= index_num)]
    if bad.size:
        v = int(bad.reshape(-1)[0])
        side = "greater than or equal to 0" if v < 0 else f"less than index_num ({index_num})"
        raise InvalidArgument(f"The input_index for Op(shard_index) must be {side}, but the "
                              f"value given is {v}.")
    size = (index_num + nshards - 1) // nshards
    own = (x // size) == shard_id
    return xp.where(own, x - shard_id * size, x.dtype.type(ignore_value))

"""The one error type raised for unreadable or inconsistent program and parameter files."""

from __future__ import annotations

from phi.core.errors import InvalidArgument

__all__ = ["ProgramFileError"]


class ProgramFileError(InvalidArgument):
    """A ``.pdmodel`` / ``.pdiparams`` / per-variable file (or bytes) that cannot be used.

    Raised for truncated or corrupt bytes, and for parameters that disagree with the program's
    VarDescs (count, dtype, shape).  The message names the file when it is known, the variable
    when there is one, and says what was expected and what was found.  ``path`` and ``var_name``
    carry the same facts for programs that want to react to them.
    """

    def __init__(self, what: str, *, path: str | None = None, var_name: str | None = None) -> None:
        where = []
        if path is not None:
            where.append(f"file '{path}'")
        if var_name is not None:
            where.append(f"variable '{var_name}'")
        super().__init__(f"{', '.join(where)}: {what}" if where else what)
        self.path = path
        self.var_name = var_name

"""A model's files as users name them: ``locate_model`` finds the program and the parameters of
a model given by prefix, program file or directory (Paddle's layouts), as ``ModelFiles``."""

from __future__ import annotations

from pathlib import Path

from phi.core.errors import InvalidArgument, NotFound

__all__ = ["ModelFiles", "locate_model", "params_beside"]


class ModelFiles:
    """Where a model's program and parameters are: ``params`` is a combined file (``combined``),
    a directory of one file per parameter, or None (a program without parameters or with no
    parameter file found beside it)."""

    __slots__ = ("combined", "model", "params")

    def __init__(self, model: Path, params: Path | None, combined: bool) -> None:
        self.model = Path(model)
        self.params = None if params is None else Path(params)
        self.combined = combined

    def __repr__(self) -> str:
        params = None if self.params is None else str(self.params)
        return f"ModelFiles({str(self.model)!r}, {params!r}, combined={self.combined})"

    def __str__(self) -> str:
        if self.params is None:
            return str(self.model)
        if not self.combined:
            return f"{self.model} + one file per parameter in {self.params}/"
        # a parameter file beside the program: its name is enough
        params = self.params.name if self.params.parent == self.model.parent else self.params
        return f"{self.model} + {params}"


def params_beside(model: Path) -> tuple[Path | None, bool]:
    """The parameter file(s) Paddle writes beside ``model``."""
    if model.name == "__model__":
        combined = model.with_name("__params__")
        return (combined, True) if combined.is_file() else (model.parent, False)
    params = model.with_suffix(".pdiparams")
    return (params, True) if params.is_file() else (None, True)


def locate_model(path: str | Path, params: str | Path | None = None) -> ModelFiles:
    """The files of a model named as users name one:

    * a prefix: ``X`` for ``X.pdmodel`` + ``X.pdiparams``;
    * the program file itself: ``X.pdmodel`` (or ``__model__``), parameters beside it;
    * a directory holding ``__model__`` (with ``__params__``, or one file per parameter),
      ``inference.pdmodel``, or a single ``*.pdmodel``.

    ``params`` names the parameter file (or directory of per-parameter files) instead."""
    p = Path(path)
    if p.is_dir():
        model = _model_in_directory(p)
    elif p.is_file():
        model = p
    elif p.with_name(p.name + ".pdmodel").is_file():
        model = p.with_name(p.name + ".pdmodel")
    else:
        hint = ""
        if p.suffix == ".pdiparams":
            hint = " (that is a parameter file: name the .pdmodel beside it)"
        raise NotFound(f"model not found at '{p}': expected '{p}.pdmodel' (a prefix), a .pdmodel "
                       f"file, or a directory holding __model__ or a *.pdmodel{hint}.")
    if model.suffix == ".pdiparams":
        raise InvalidArgument(f"'{model}' is a parameter file: name the program (.pdmodel) "
                              "and give the parameters with params_file / --params.")
    if params is not None:
        q = Path(params)
        if q.is_dir():
            return ModelFiles(model, q, False)
        if not q.is_file():
            raise NotFound(f"parameter file '{q}' not found.")
        return ModelFiles(model, q, True)
    found, combined = params_beside(model)
    return ModelFiles(model, found, combined)


def _model_in_directory(d: Path) -> Path:
    if (d / "__model__").is_file():
        return d / "__model__"
    if (d / "inference.pdmodel").is_file():
        return d / "inference.pdmodel"
    programs = sorted(d.glob("*.pdmodel"))
    if len(programs) == 1:
        return programs[0]
    if programs:
        names = ", ".join(q.name for q in programs)
        raise InvalidArgument(f"model directory '{d}' holds several programs ({names}): name "
                              "one of them.")
    raise NotFound(f"model directory '{d}' holds no program: expected __model__, "
                   "inference.pdmodel or one *.pdmodel file.")

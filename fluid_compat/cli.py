"""The ``fluid-compat`` command.

    fluid-compat --version
    fluid-compat run (MODEL_PREFIX | --example) [--feed NAME=FILE.npy ...] [--place P] [--out DIR]
                     [--pin OP=SIDE ...] [--shadow]
    fluid-compat train (MAIN.pdmodel | --example) [--startup S.pdmodel] [--feeds F.npz]
                       [--steps N] [--save STATE.npz]   a training program, loss per step
    fluid-compat ops [OP ...] [--all] [--format table|json|markdown] [--wide]
                                                        migration status per op
    fluid-compat compare (MODEL_PREFIX | --op TYPE --case FILE) [--format table|json]
                                                        fluid vs phi, op by op, on real inputs
    fluid-compat explain (OP_TYPE | MODEL_PREFIX) [--place P] [--dtype T] [--format text|json|dot]
                                                        why each kernel, which transforms
    fluid-compat kernels [NAME] [--format text|json] [--wide]
                                                        the phi kernel registry
    fluid-compat inspect MODEL [--params FILE] [--format text|json]
                                                        feeds, fetches, parameters, op types
                                                        and where they run, without running
    fluid-compat demo                                   eager-API demo with its dispatch trace
    fluid-compat argmap-check [OP ...] [-v]             every possible KernelSignature checked
                                                        against the phi kernel registry

Errors go to stderr as ``fluid-compat <command>: <message>`` with a non-zero exit (2: the
command line or its inputs, 1: the run).  A ``FLAGS_*`` environment variable whose value does
not parse is such an error; ``GLOG_v`` has no effect (a one-line note says so).  Output cut
short by its reader (``| head``) ends the command quietly (exit 141).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _cmd_kernels(args: argparse.Namespace) -> int:
    import phi
    from phi.core.errors import NotFound

    factory = phi.kernel_factory()
    names = factory.names()
    if args.name:
        try:
            kernels = factory.kernels_of(args.name)
        except NotFound as exc:
            print(f"fluid-compat kernels: {exc}", file=sys.stderr)
            return 2
        ordered = sorted(kernels.items(),
                         key=lambda kv: (int(kv[0].backend), int(kv[0].layout), int(kv[0].dtype)))
        if args.format == "json":
            print(json.dumps({args.name: [{"key": str(k), "args_def": str(v.args_def),
                                           "function": f"{v.fn.__module__}.{v.fn.__qualname__}"}
                                          for k, v in ordered]}, indent=1))
            return 0
        print(f"{args.name}: {len(ordered)} keys")
        for key, _kernel in ordered:
            print(f"  {key}")
        first = ordered[0][1]
        print(f"function: {first.fn.__module__}.{first.fn.__qualname__}")
        print(f"args_def ({ordered[0][0]}): {first.args_def}")
        return 0
    table = {}
    for name in names:
        groups: dict[str, list[str]] = {}
        # backend, layout, dtype order (not registration order, which tests and plug-ins
        # change): CPU first, as the eager key lookups prefer
        for key in sorted(factory.kernels_of(name),
                          key=lambda k: (int(k.backend), int(k.layout), int(k.dtype))):
            groups.setdefault(f"{key.backend}, {key.layout}", []).append(str(key.dtype))
        table[name] = groups
    if args.format == "json":
        print(json.dumps(table, indent=1))
        return 0
    from fluid_compat.tools.tables import render_table, table_width

    rows = [(name, "; ".join(f"({g}) [{', '.join(d)}]" for g, d in groups.items()))
            for name, groups in table.items()]
    print(render_table(("kernel", "(backend, layout) [dtypes]"), rows,
                       width=table_width(args.wide)))
    print(f"-- {len(names)} kernels, {sum(len(phi.kernel_factory().kernels_of(n)) for n in names)}"
          " keys")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    import logging

    import numpy as np

    import phi
    from phi.core.errors import PhiError

    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("[trace] %(message)s"))
    trace_logger = logging.getLogger("phi.dispatch")
    trace_logger.addHandler(handler)
    trace_logger.propagate = False
    phi.set_flags({"FLAGS_dispatch_trace": 2})
    try:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((2, 3)).astype(np.float32)
        w = rng.standard_normal((3, 4)).astype(np.float32)
        print("# phi eager API demo: each call logs the kernel key, each lookup step, the kernel")
        h = phi.api.matmul(x, w)
        h = phi.api.add(h, np.ones((4,), np.float32))
        h = phi.api.relu(h)
        y = phi.api.softmax(phi.api.scale(h, scale=0.5, bias=0.0), axis=-1)
        print("softmax rows sum to", np.round(phi.api.sum(y, axis=[1]).numpy(), 5).tolist())
        print("result", y)
        print("# an unregistered dtype gives Paddle's message:")
        try:
            phi.api.relu(np.arange(3, dtype=np.int32))
        except PhiError as exc:
            print(exc)
    finally:
        phi.set_flags({"FLAGS_dispatch_trace": 0})
        trace_logger.removeHandler(handler)
        trace_logger.propagate = True
    return 0


def _cmd_argmap_check(args: argparse.Namespace) -> int:
    import phi  # noqa: F401 - registers the kernels the check looks up
    from argmap.check import main_argmap_check

    return main_argmap_check(args.rest)


def _kernel_notices() -> None:
    """numba's first compile of the compiled loops says so on stderr (phi.kernels.funcs.jit)."""
    from phi.kernels.funcs import jit

    jit.enable_notices()


def _cmd_run(args: argparse.Namespace) -> int:
    from fluid_compat.tools.run import main_run

    _kernel_notices()
    if getattr(args, "dataset", None) is not None:  # every row of a dataset
        from fluid_compat import scaleout

        return scaleout.main_dataset(args)
    return main_run(args)


def _cmd_train(args: argparse.Namespace) -> int:
    from fluid_compat.tools.train import main_train

    _kernel_notices()
    return main_train(args)


def _cmd_ops(args: argparse.Namespace) -> int:
    from fluid_compat.tools.ops_status import main_ops

    return main_ops(args)


def _cmd_where(args: argparse.Namespace) -> int:
    from fluid_compat.tools.where import main_where

    return main_where(args)


def _cmd_compare(args: argparse.Namespace) -> int:
    from fluid_compat.tools.compare import main_compare

    _kernel_notices()
    if args.case is None and args.op is None:  # several models, a directory, a glob ...
        from fluid_compat import scaleout

        if scaleout.is_sweep(args):
            return scaleout.main_sweep(args)
    return main_compare(args)


def _cmd_build_kernels(args: argparse.Namespace) -> int:
    import time

    from phi.kernels.funcs import aot

    if not args.force and aot.load(lambda: None) is not None:  # this machine's, and it loads
        print(f"up to date: {aot.module_path()}")
        return 0
    try:
        import numba.pycc  # noqa: F401  (the compiler the build needs)
    except ImportError as exc:
        print(f"build-kernels: numba's compiler does not import ({exc}): install the extra "
              "'fluid-phi-bridge[numba]'; without it the kernels run their numpy path",
              file=sys.stderr)
        return 2
    start = time.perf_counter()
    directory = aot.cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"build-kernels: cannot write the build's directory {directory} ({exc.strerror}; "
              f"it is ${aot.CACHE_ENV} when set, else the user's cache); the compiled loops "
              "stay on numba's JIT", file=sys.stderr)
        return 1
    try:
        path = aot.build_showing_progress()
    except Exception as exc:  # the compiler or the linker: say which, keep the JIT path
        print(f"build-kernels: the build into {directory} failed ({type(exc).__name__}: "
              f"{exc}); the compiled loops stay on numba's JIT", file=sys.stderr)
        return 1
    print(f"built {path} in {time.perf_counter() - start:.1f} s")
    return 0


def _cmd_inspect(args: argparse.Namespace) -> int:
    from fluid_compat.tools.inspect_model import main_inspect

    return main_inspect(args)


def _cmd_explain(args: argparse.Namespace) -> int:
    from fluid_compat.tools.explain import main_explain

    return main_explain(args)


class _VersionAction(argparse.Action):
    """``--version``: the package version is read (importlib.metadata) only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0,
                         help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from phi import __version__

        parser._print_message(f"fluid-compat {__version__}\n", sys.stdout)
        parser.exit()


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil (and bz2, lzma ...)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized as argparse sizes it: argparse builds one per argument it
    adds and imports shutil for the terminal width (~5 ms of a cold start)."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser (and its subcommands' parsers) with :class:`_HelpFormatter`; its
    errors read ``fluid-compat <command>: <message>`` under that command's usage, the form
    of every other error of the command line."""

    def __init__(self, *args, formatter_class=_HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: {message}\n")


def _spare_the_collector() -> None:
    """Keep the garbage collector off what the imports made, and off everything at exit.

    The modules, classes and tables imported so far live as long as the process: frozen
    (``gc.freeze``), the collections that the first run's allocations trigger no longer walk
    them (they took ~50 ms of a ~150 ms first run of the BERT fixture).  At exit the last full
    collection over every object the run made took ~150 ms more; the process is ending, so the
    collector is frozen again first (an atexit hook; what is lost is the finalizers of objects
    in reference cycles, which Python does not promise at exit anyway).  Only when ``main`` is
    the program: a caller's process keeps its collector as it was."""
    import atexit
    import gc

    gc.freeze()
    if not _FREEZE_AT_EXIT:
        _FREEZE_AT_EXIT.append(True)
        atexit.register(gc.freeze)


_FREEZE_AT_EXIT: list[bool] = []

_COMMANDS = ("run", "train", "kernels", "demo", "argmap-check", "ops", "where", "compare",
             "explain", "inspect", "build-kernels")


class _Skipped:
    """What `build_parser` hands a subcommand it does not build: takes options, keeps none."""

    def add_argument(self, *args, **kwargs) -> None:
        pass

    def set_defaults(self, **kwargs) -> None:
        pass


_SKIPPED = _Skipped()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``fluid-compat`` parser.  With `command`, only that subcommand is built (its tool
    module imported), what `main` does for a command line that names one: a run builds no
    parser of ``compare``, ``train`` ... and imports nothing of them; without, every one."""
    parser = _Parser(
        prog="fluid-compat",
        description="Run legacy PaddlePaddle programs on phi kernels; inspect the bridge.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # name -> parser: `main` reports an option a subcommand does not know with its usage
    parser.subcommands = sub.choices

    def wanted(name: str) -> bool:
        return command is None or command == name

    def add(name: str, **kwargs):
        # with `command` (a parse, not a listing) the other subcommands are not built: their
        # parsers serve neither the parse nor its error messages, which are the subcommand's
        return sub.add_parser(name, **kwargs) if wanted(name) else _SKIPPED

    p = add("run", help="run a legacy model (.pdmodel/.pdiparams) and summarize")
    if wanted("run"):
        from fluid_compat.tools.run import add_arguments

        add_arguments(p)
    p.set_defaults(func=_cmd_run)
    p = add("train", help="run a legacy training program for N steps, printing "
                          "the loss of each step")
    if wanted("train"):
        from fluid_compat.tools.train import add_arguments as add_train_arguments

        add_train_arguments(p)
    p.set_defaults(func=_cmd_train)
    p = add("kernels", help="list the phi kernel registry (names and keys)")
    p.add_argument("name", nargs="?", help="one kernel: every key and its argument definition")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--wide", action="store_true",
                   help="draw the table as wide as its cells need (default: 100 columns)")
    p.set_defaults(func=_cmd_kernels)
    p = add("demo", help="run a few eager-API ops and print their dispatch trace")
    p.set_defaults(func=_cmd_demo)
    p = add("argmap-check", add_help=False,
            help="check every legacy op's possible KernelSignatures against the "
                 "phi kernels (argmap-check -h for its options)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_argmap_check)
    p = add("ops", help="migration status of every legacy op (fluid / phi / both)")
    if wanted("ops"):
        from fluid_compat.tools import ops_status

        ops_status.add_arguments(p)
    p.set_defaults(func=_cmd_ops)
    p = add("where", help="the file of each piece of a legacy op type and of its grad ops "
                          "(OpProto, mapping, phi kernels, InferMeta, fluid kernels, hooks)")
    if wanted("where"):
        from fluid_compat.tools import where

        where.add_arguments(p)
    p.set_defaults(func=_cmd_where)
    p = add("compare", help="run every op with both kernels both ways and compare "
                            "(non-zero exit on divergence)")
    if wanted("compare"):
        from fluid_compat.tools import compare

        compare.add_arguments(p)
    p.set_defaults(func=_cmd_compare)
    p = add("explain", help="why each op got its kernel: expected kernel type, "
                            "signature, lookups, fallback, transforms")
    if wanted("explain"):
        from fluid_compat.tools import explain

        explain.add_arguments(p)
    p.set_defaults(func=_cmd_explain)
    p = add("inspect", help="a model's feeds, fetches, parameters, op types and where each "
                            "op runs, read without running it")
    if wanted("inspect"):
        from fluid_compat.tools import inspect_model

        inspect_model.add_arguments(p)
    p.set_defaults(func=_cmd_inspect)
    p = add("build-kernels", help="compile the kernels' compiled loops ahead of time into "
                                  "$FLUID_PHI_KERNEL_CACHE or the user's cache (numba "
                                  "needed to build them, not to run them)")
    p.add_argument("--force", action="store_true", help="build even when one is up to date")
    p.set_defaults(func=_cmd_build_kernels)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand `argv` names (its first word that is one), else None (build them all)."""
    for word in argv:
        if word in _COMMANDS:
            return word
        if not word.startswith("-"):
            return None
    return None


def _environment_problems() -> list[str]:
    """Lines about the environment for stderr: a ``FLAGS_*`` value that does not parse (an
    error: the command refuses to run on a default the user did not choose), ``GLOG_v``
    (a note: Paddle's C++ logging has no counterpart here)."""
    from phi import flags

    lines = [f"fluid-compat: {e}" for e in flags.environment_errors()]
    glog = os.environ.get("GLOG_v", "").strip()  # noqa: SIM112 - glog's own spelling
    if glog not in ("", "0"):
        lines.append(f"fluid-compat: note: GLOG_v={glog} has no effect here (the bridge has no "
                     "glog); FLAGS_dispatch_trace=1 logs each op's kernel choice, 2 also every "
                     "lookup step and transform")
    return lines


def _stdout_closed() -> int:
    """The reader of stdout went away (``fluid-compat ... | head``): end quietly, as a
    command killed by SIGPIPE does, without Python's report of the failed final flush."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 141  # 128 + SIGPIPE, what a shell shows for such a command


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the program itself (console script, python -m), not a caller's call
        _spare_the_collector()
    argv = list(sys.argv[1:] if argv is None else argv)
    problems = _environment_problems()
    for line in problems:
        print(line, file=sys.stderr)
    if any(not line.startswith("fluid-compat: note:") for line in problems):
        return 2
    try:
        if argv[:1] == ["argmap-check"]:
            # its own parser takes every word after it, -h / --help included
            code = _cmd_argmap_check(argparse.Namespace(rest=argv[1:]))
        else:
            command = _command_of(argv)
            parser = build_parser(command)
            args, extra = parser.parse_known_args(argv)
            if extra:
                # an option the subcommand does not know: the subcommand's usage, not the
                # top-level one argparse would print
                sub = parser.subcommands.get(command) if command else None
                (sub or parser).error(f"unrecognized arguments: {' '.join(extra)}")
            if not getattr(args, "func", None):
                parser.print_help()
                return 2
            code = int(args.func(args) or 0)
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_closed()
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

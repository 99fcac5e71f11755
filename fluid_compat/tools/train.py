"""``fluid-compat train``: run a legacy training program (forward, backward, optimizer) for N
steps, printing the loss of each step.

    fluid-compat train MAIN.pdmodel [--startup STARTUP.pdmodel] [--state FILE.npz]
                       (--feeds FILE.npz | --feed NAME=FILE.npy ...) [--loss NAME] [--steps N]
                       [--save FILE.npz] [--expect-losses FILE.npy]
    fluid-compat train --example [--shadow]

The state training starts from: the startup program's run (Paddle's initializers, with their
seeds: the same numbers as Paddle), then ``--state`` (persistables by name, e.g. a checkpoint)
on top.  Feeds: ``--feeds`` holds ``step<i>.<name>`` arrays (step i takes step i mod the number
of steps given); ``--feed`` gives one array per feed, the same at every step.  The loss is
``--loss`` or, when the program has a backward pass, the variable whose gradient its
``fill_constant`` (op_role Backward|Loss) seeds.  ``--save`` writes every persistable at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
from phi.core.errors import InvalidArgument, NotFound, PhiError
from phi.core.tensor import DenseTensor

from fluid_compat.backward import OP_ROLE
from fluid_compat.executor import Executor, Program
from fluid_compat.framework.program_desc import ProgramDesc
from fluid_compat.framework.scope import Scope

__all__ = ["add_arguments", "find_loss", "main_train"]

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_mlp"
_LOSS_GRAD_ROLE = OP_ROLE["backward"] | OP_ROLE["loss"]  # the loss gradient's fill_constant
_STEP = re.compile(r"^step(\d+)\.(.+)$")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("main", nargs="?", type=Path, help="the training program (.pdmodel)")
    p.add_argument("--example", action="store_true",
                   help="train the bundled example (an MLP with SGD written by Paddle 2.6.2) "
                        "and compare its losses with Paddle's")
    p.add_argument("--startup", type=Path, help="the startup program (initializers)")
    p.add_argument("--state", type=Path, help="persistables to start from (.npz, by name)")
    p.add_argument("--feeds", type=Path, help=".npz with step<i>.<feed name> arrays")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy",
                   help="a feed, the same at every step")
    p.add_argument("--loss", help="the loss variable (default: found from the backward pass)")
    p.add_argument("--steps", type=int, help="number of steps (default: the steps in --feeds)")
    p.add_argument("--save", type=Path, help="write every persistable to this .npz at the end")
    p.add_argument("--shadow", action="store_true",
                   help="shadow mode: every op (forward, grad, optimizer) that has both a phi "
                        "and a fluid kernel also runs the other one; divergences are printed")
    p.add_argument("--expect-losses", type=Path, metavar="FILE.npy",
                   help="compare the losses with these (rtol 1e-5); non-zero exit on mismatch")


def find_loss(desc: ProgramDesc) -> str:
    """The loss of a program with a backward pass: what its loss-gradient fill_constant seeds."""
    for op in desc.global_block.ops:
        if op.type == "fill_constant" and int(op.attrs.get("op_role", 0)) == _LOSS_GRAD_ROLE:
            (out,) = op.output("Out")
            return out.removesuffix("@GRAD")
    raise NotFound("The program has no backward pass (no fill_constant with op_role "
                   "Backward|Loss): give --loss NAME.")


def _feeds(args, names: list[str]) -> list[dict[str, np.ndarray]]:
    if args.feeds is not None:
        with np.load(args.feeds) as z:
            steps: dict[int, dict[str, np.ndarray]] = {}
            for key in z.files:
                m = _STEP.match(key)
                if not m:
                    raise InvalidArgument(f"--feeds {args.feeds}: key `{key}` is not "
                                          "step<i>.<feed name>")
                steps.setdefault(int(m.group(1)), {})[m.group(2)] = z[key]
        return [steps[i] for i in sorted(steps)]
    feed = {}
    for item in args.feed:
        name, sep, path = item.partition("=")
        if not sep:
            raise InvalidArgument(f"--feed expects NAME=FILE.npy, got {item!r}")
        feed[name] = np.load(path)
    missing = [n for n in names if n not in feed]
    if missing:
        raise InvalidArgument(f"no feed given for {', '.join(missing)} (use --feeds or --feed)")
    return [feed]


def _data_names(desc: ProgramDesc) -> list[str]:
    """Variables the program reads but no op writes and that are not persistable: its feeds."""
    written = {n for op in desc.global_block.ops for n in op.output_arg_names()}
    read = {n for op in desc.global_block.ops for n in op.input_arg_names()}
    block = desc.global_block
    return sorted(n for n in read - written
                  if block.has_var(n) and not block.var(n).persistable)


def train(main: ProgramDesc, startup: ProgramDesc | None, state: dict[str, np.ndarray],
          feeds: list[dict[str, np.ndarray]], steps: int, loss: str,
          report=None, shadow: bool = False) -> tuple[list[float], Scope, Executor]:
    """Run ``steps`` steps; returns the losses, the scope holding the final state and the
    executor (its shadow report in shadow mode)."""
    scope = Scope()
    exe = Executor(shadow=shadow)
    if startup is not None:
        exe.run(Program(startup), scope=scope)
    for name, value in state.items():
        scope.var(name).value = DenseTensor.from_numpy(np.asarray(value))
    program = Program(main)
    losses = []
    for step in range(steps):
        (value,) = exe.run(program, feed=feeds[step % len(feeds)], fetch_list=[loss],
                           scope=scope)
        losses.append(float(np.asarray(value).reshape(-1)[0]))
        if report is not None:
            report(step, losses[-1])
    return losses, scope, exe


def main_train(args: argparse.Namespace) -> int:
    expect = None
    try:
        if args.example:
            meta = json.loads((EXAMPLE / "meta.json").read_text())
            args.main, args.startup = EXAMPLE / "main.pdmodel", EXAMPLE / "startup.pdmodel"
            args.feeds = EXAMPLE / "feeds.npz"
            expect = np.asarray(meta["losses"])
        if args.main is None:
            raise InvalidArgument("give a training program (MAIN.pdmodel) or --example")
        main = ProgramDesc.load(args.main)
        startup = ProgramDesc.load(args.startup) if args.startup else None
        state = {}
        if args.state is not None:
            with np.load(args.state) as z:
                state = {k: z[k] for k in z.files}
        loss = args.loss or find_loss(main)
        feeds = _feeds(args, _data_names(main))
        steps = args.steps or len(feeds)
        if args.expect_losses is not None:
            expect = np.load(args.expect_losses)
        print(f"training {args.main} for {steps} steps, loss `{loss}`")
        losses, scope, exe = train(main, startup, state, feeds, steps, loss,
                                   report=lambda i, v: print(f"step {i + 1:4d}  loss {v:.6f}"),
                                   shadow=args.shadow)
    except (PhiError, OSError, ValueError) as exc:
        print(f"fluid-compat train: {exc}", file=sys.stderr)
        return 2
    if exe.shadow_report is not None:
        from fluid_compat.tools.shadow_summary import shadow_report_lines

        print("\n".join(shadow_report_lines(exe.shadow_report)))
    if args.save is not None:
        saved = {n: scope.find_var(n).value.numpy() for n in scope.local_var_names()
                 if main.global_block.has_var(n) and main.global_block.var(n).persistable
                 and isinstance(scope.find_var(n).value, DenseTensor)
                 and scope.find_var(n).value.data is not None}
        np.savez(args.save, **saved)
        print(f"saved {len(saved)} persistables to {args.save}")
    if expect is not None:
        n = min(len(expect), len(losses))
        ok = np.allclose(losses[:n], expect[:n], rtol=1e-5, atol=1e-7)
        print(f"losses {'match' if ok else 'DIFFER from'} Paddle 2.6.2's "
              f"(max difference {np.max(np.abs(np.subtract(losses[:n], expect[:n]))):.3g})")
        return 0 if ok else 1
    return 0

"""Programs and the Executor: run a legacy program unchanged, planned once and replayed.

    program, feeds, fetches = load_inference_model("model/inference")
    exe = Executor(CPUPlace())
    outs = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)

The first run of a program with a given feed signature (dtypes, ranks, places) builds a plan:
every op checked (an op type nobody implements raises before anything runs), bound to the
scope's Variables, and each intermediate variable's last use computed so that it is released
right after (persistables stay).  Later runs replay the plan: each op's bound runner replays its
cached kernel decision (fluid_compat.operators.runner) — the decisions come from the same
``decide`` that ``run_impl`` uses.

Serving from many threads: one Executor and one program may be run from any number of threads
at once.  A plan is the per-run state (temporaries, bound runners, fused steps), so each run
takes a plan of its own from a pool (`_PlanPool`): a thread that finds every plan busy builds
another, which later runs reuse.  Parameters are shared (read-only in inference programs); the
process-wide caches (kernel selection, op descriptions, the eager API) are filled under locks.
Every plan computes the same bits for the same input (fused steps equal op-by-op runs, see
fluid_compat.operators.fusion), so which plan serves a run never shows in its result.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from collections.abc import Iterable, Mapping, Sequence

from phi.common.data_type import DataType
from phi.common.place import CPUPlace, Place, to_place
from phi.core.errors import InvalidArgument, NotFound
from phi.core.selected_rows import is_selected_rows
from phi.core.sparse_tensor import SparseCooTensor, SparseCsrTensor, is_sparse
from phi.core.tensor import DenseTensor
from phi.flags import FLAGS, define_flag
from phi.backends.host_memory import keep_freed_memory
from phi.kernels.funcs import quiet_run

from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import (
    LoDTensorArray,
    Scope,
    Variable,
    as_host_tensor,
    lod_tensor_array,
)
from fluid_compat.operators.build import make_operator
from fluid_compat.operators.control_flow import referenced_names
from fluid_compat.operators.fusion import enabled_passes, plan_steps
from fluid_compat.operators.runner import BoundRunner
from fluid_compat.operators.segments import CompiledSegment
from fluid_compat.profiler import current as current_profiler

__all__ = ["Program", "Executor", "global_scope", "FeedError", "RunStats"]


class FeedError(InvalidArgument):
    """A feed that does not fit the program: missing, extra, wrong dtype or rank."""


class Program:
    """A legacy program (Paddle's ``paddle.static.Program`` over a ProgramDesc)."""

    def __init__(self, desc: ProgramDesc | None = None) -> None:
        self.desc = desc if desc is not None else ProgramDesc()
        self._generation = 0  # bumped by `mark_changed`; plans of older generations are stale

    @classmethod
    def parse_from_string(cls, data: bytes) -> Program:
        return cls(ProgramDesc.parse_from_string(data))

    def serialize_to_string(self) -> bytes:
        return self.desc.serialize_to_string()

    def global_block(self):
        return self.desc.global_block

    def block(self, index: int):
        return self.desc.block(index)

    @property
    def num_blocks(self) -> int:
        return self.desc.num_blocks

    def mark_changed(self) -> None:
        """Call after editing ``desc`` of a program that already ran: its plans are rebuilt."""
        self._generation += 1

    def feed_target_names(self) -> list[str]:
        return list(self._find_targets()[0])

    def fetch_target_names(self) -> list[str]:
        return list(self._find_targets()[1])

    def _targets(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``_find_targets`` kept per generation and op list, for the executor's runs (which,
        like its plans, assume an edited program was marked changed): a scan of every op on
        every run is measurable on small programs."""
        block = self.desc.global_block
        n = block.num_ops  # (block.ops is a new tuple on every call: its id is no key)
        first = block.op(0) if n else None
        last = block.op(n - 1) if n else None
        cached = self.__dict__.get("_targets_cache")
        # the first and last ops themselves, held (an id of a removed op can be reused)
        if (cached is not None and cached[0] == (self._generation, n) and cached[1] is first
                and cached[2] is last):
            return cached[3]
        found = self._find_targets()
        self._targets_cache = ((self._generation, n), first, last, found)
        return found

    def _find_targets(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(feed targets, fetch targets) in column order."""
        ops = self.desc.global_block.ops
        feeds = sorted((op for op in ops if op.type == "feed"), key=lambda o: o.attr("col"))
        fetches = sorted((op for op in ops if op.type in _FETCH_OPS),
                         key=lambda o: o.attr("col"))
        return (tuple(op.output("Out")[0] for op in feeds),
                tuple(op.input("X")[0] for op in fetches))

    def __repr__(self) -> str:
        block = self.desc.global_block
        return (f"Program({self.desc.num_blocks} blocks, {len(block.ops)} ops in block 0, "
                f"{len(block.vars)} vars, feeds/fetches {[list(t) for t in self._find_targets()]})")


_GLOBAL_SCOPE = Scope()


def global_scope() -> Scope:
    """The process-wide scope (Paddle's ``paddle.static.global_scope()``)."""
    return _GLOBAL_SCOPE


#: fetch (old executor) and fetch_v2 (what the new executor writes): both copy X into the
#: fetch list at `col`, which the Executor does itself
_FETCH_OPS = ("fetch", "fetch_v2")

_NOT_TENSORS = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.RAW, VarType.STEP_SCOPES)


class RunStats:
    """Counts of the last run: ops on phi kernels, on fluid kernels, CPU fallbacks, the ops
    replayed inside fused steps (``fused_ops`` in ``fused_steps``: operators/fusion.py) and
    those replayed by compiled segments (``segment_ops``: operators/segments.py)."""

    __slots__ = ("phi", "fluid", "fallback", "ops", "fused_ops", "fused_steps", "segment_ops")

    def __init__(self) -> None:
        self.phi = self.fluid = self.fallback = self.ops = 0
        self.fused_ops = self.fused_steps = self.segment_ops = 0

    def __repr__(self) -> str:
        return (f"RunStats(ops={self.ops}, phi={self.phi}, fluid={self.fluid}, "
                f"fallback={self.fallback}, fused_ops={self.fused_ops}, "
                f"fused_steps={self.fused_steps}, segment_ops={self.segment_ops})")


define_flag("FLAGS_quiet_run", bool, True,
            "Enter numpy's errstate('ignore') once per planned run, not in every kernel.")
define_flag("FLAGS_host_keep_freed_memory", bool, True,
            "At the first plan built: glibc keeps freed memory for the next run's arrays "
            "(process-wide; phi/backends/host_memory.py).")


class _Plan:
    """One program x feed signature x scope: bound runners and release lists."""

    def __init__(self, program: Program, scope: Scope, place: Place,
                 feed_names: Sequence[str], fetch_names: Sequence[str], pins=None,
                 shadow=None) -> None:
        block = program.desc.global_block
        self.generation = program._generation
        self.feed_vars: dict[str, Variable] = {}
        self.fetch_names = list(fetch_names)
        ops = []
        # 1. every op known and implemented, before anything runs or touches the scope
        for index, op_desc in enumerate(block.ops):
            if op_desc.type == "feed" or op_desc.type in _FETCH_OPS:
                continue
            ops.append((index, make_operator(index, op_desc, pins=pins, shadow=shadow)))
        # SELECTED_ROWS variables: the argument mapping asks whether an output is one (fill_constant
        # -> full_sr), as Paddle's runtime context asks the variable the executor created
        sr_vars = frozenset(n for n, v in block.vars.items() if v.type is VarType.SELECTED_ROWS)
        if sr_vars:
            for _, op in ops:
                op.selected_rows_vars = sr_vars
        self.local = scope.new_scope()  # temporaries live here, parameters in `scope`
        # 2. variables: persistables in `scope` (loaded there), the rest local
        for name, var in block.vars.items():
            if var.type in _NOT_TENSORS:
                continue
            if var.persistable:
                if scope.find_var(name) is None:
                    scope.var(name)
            else:
                self.local.var(name)
        for name in feed_names:
            self.feed_vars[name] = self.local.find_var(name) or self.local.var(name)
        # tensor arrays start every run empty, as in the fresh local scope of Paddle's run
        self.array_vars = [self.local.find_local_var(name) for name, var in block.vars.items()
                           if var.type is VarType.LOD_TENSOR_ARRAY and not var.persistable
                           and name not in self.feed_vars]
        # 3. runners and the last use of each temporary
        self.runners = [BoundRunner(op, self.local, place) for _, op in ops]
        self.op_index = [index for index, _ in ops]
        keep = set(fetch_names)
        last_use: dict[str, int] = {}
        for i, (_, op) in enumerate(ops):
            for names in list(op.inputs.values()) + list(op.outputs.values()):
                for n in names:
                    last_use[n] = i
            sub_ops = getattr(op, "sub_ops", None)
            if sub_ops:  # what a control-flow op's blocks use lives until it has run
                for n in referenced_names(sub_ops):
                    last_use[n] = i
        release: list[list[Variable]] = [[] for _ in ops]
        for name, i in last_use.items():
            if name in keep:
                continue
            var = self.local.find_local_var(name)
            desc = block.find_var(name)
            if var is None or (desc is not None and desc.persistable):
                continue
            release[i].append(var)
        self.release = release
        self.ops = [op for _, op in ops]
        # what a run executes: (step, variables released after it, ops it stands for); after
        # the first run the fusion passes whose flags are on merge chains of ops into steps
        self.unfused_steps = [(r, rel, 1) for r, rel in zip(self.runners, release, strict=True)]
        self.steps = self.unfused_steps
        self._fused: dict[tuple, list] = {}  # enabled passes -> steps
        self.fusion_checked = False
        self.runs_done = 0  # completed runs (the profiler keeps the first apart)
        self.last_run_fused = False

    def steps_for(self, passes: tuple) -> list:
        """The steps with ``passes`` fused (fluid_compat.operators.fusion), for a plan whose
        runners have learned (it ran once op by op)."""
        if not passes or not self.fusion_checked:
            return self.unfused_steps
        steps = self._fused.get(passes)
        if steps is None:
            steps = plan_steps(self.runners, self.release, passes)
            if all(count == 1 for _, _, count in steps):
                steps = self.unfused_steps
            self._fused[passes] = steps
        return steps


class _PlanPool:
    """The plans of one program x scope x feed signature x fetch list: one per concurrent run.

    `acquire` hands out a free plan or builds a new one; `release` returns it.  A plan is used
    by one run at a time, so nothing inside it needs a lock.
    """

    def __init__(self, generation: int, build) -> None:
        self.generation = generation
        self._build = build
        self._free: list[_Plan] = []
        self._lock = threading.Lock()
        self.plans: list[_Plan] = []  # every plan built (as many as runs were ever in flight)

    def acquire(self) -> _Plan:
        with self._lock:
            if self._free:
                return self._free.pop()
            # built under the lock: plans create persistable Variables in the shared scope
            plan = self._build()
            self.plans.append(plan)
            return plan

    def release(self, plan: _Plan) -> None:
        with self._lock:
            self._free.append(plan)


class Executor:
    """Runs programs on one place (Paddle's ``paddle.static.Executor``).

    Safe to share between threads: concurrent runs of one program each use a plan of their own
    (module doc); ``last_stats`` describes the calling thread's last run.
    """

    def __init__(self, place: Place | str | None = None, *, pins=None,
                 shadow: bool = False) -> None:
        """``pins``: op type (or ``*``) -> "phi" / "fluid", or "relu=fluid,..." text; ``shadow``:
        also run the other side of every op with both kernels and record the comparisons in
        ``shadow_report`` (results are never changed)."""
        from fluid_compat.operators.pinning import parse_pins

        self.place = CPUPlace() if place is None else to_place(place)
        self.pins = parse_pins(pins)
        self.shadow_report = None
        if shadow:
            from fluid_compat.operators.shadow import ShadowRecorder

            self.shadow_report = ShadowRecorder()
        self._pools: dict[tuple, _PlanPool] = {}
        self._lock = threading.Lock()
        self._local = threading.local()  # the calling thread's last plan (`last_stats`)

    @property
    def last_plan(self) -> _Plan | None:
        """The plan of this thread's last run (None before one)."""
        return getattr(self._local, "plan", None)

    _last_plan = last_plan  # the name tests read

    @property
    def last_stats(self) -> RunStats:
        """How the ops of this thread's last run ran: phi kernels, fluid kernels, CPU
        fallbacks, fused steps."""
        plan = self.last_plan
        return RunStats() if plan is None else _stats(plan)

    def run(
        self,
        program: Program,
        feed: Mapping[str, object] | None = None,
        fetch_list: Iterable[object] | None = None,
        scope: Scope | None = None,
        return_numpy: bool = True,
        progress=None,
    ) -> list:
        """Run block 0 of ``program``; returns the fetched values in ``fetch_list`` order.

        ``progress(done, total)``, when given, is called after each op (a progress bar)."""
        if not isinstance(program, Program):
            raise InvalidArgument(f"Executor.run expects a Program, got {type(program).__name__}.")
        scope = global_scope() if scope is None else scope
        feed = dict(feed or {})
        block = program.desc.global_block
        targets = list(program._targets()[0])
        feed_names = self._check_feed_names(block, targets, feed)
        fetch_names = self._fetch_names(program, fetch_list)
        tensors = {name: self._feed_tensor(block, name, value) for name, value in feed.items()}
        signature = tuple((n, *_feed_signature(t)) for n, t in sorted(tensors.items()))
        key = (id(program), id(scope), signature, tuple(fetch_names))
        pool = self._pools.get(key)
        if pool is None or pool.generation != program._generation:
            with self._lock:
                pool = self._pools.get(key)
                if pool is None or pool.generation != program._generation:
                    if FLAGS["FLAGS_host_keep_freed_memory"]:
                        keep_freed_memory()  # once per process
                    pool = _PlanPool(program._generation, lambda: _Plan(
                        program, scope, self.place, feed_names, fetch_names, self.pins,
                        self.shadow_report))
                    self._pools[key] = pool
        try:
            plan = pool.acquire()
        except BaseException:
            with self._lock:  # a program that cannot be planned leaves no pool behind
                if not pool.plans and self._pools.get(key) is pool:
                    del self._pools[key]
            raise
        try:
            return self._run_plan(plan, tensors, fetch_names, return_numpy, progress)
        finally:
            pool.release(plan)
            self._local.plan = plan

    def plans(self) -> list[_Plan]:
        """Every plan built so far (one per program x feed signature x concurrent run)."""
        return [plan for pool in list(self._pools.values()) for plan in pool.plans]

    @staticmethod
    def _run_plan(plan: _Plan, tensors: dict, fetch_names: list[str], return_numpy: bool,
                  progress) -> list:
        for var in plan.array_vars:
            var.value = LoDTensorArray()
        for name, t in tensors.items():
            plan.feed_vars[name].value = t
        passes = enabled_passes()
        steps = plan.steps_for(passes)
        plan.steps = steps
        plan.last_run_fused = steps is not plan.unfused_steps
        profiler = current_profiler()
        with quiet_run() if FLAGS["FLAGS_quiet_run"] else nullcontext():
            if profiler is not None:  # fluid_compat.profiler: every step timed
                profiler.run_steps(steps, first=plan.runs_done == 0)
            elif progress is None:
                for step, release, _ in steps:
                    step()
                    for var in release:
                        var.value = None
            else:
                total, done = len(plan.runners), 0
                for step, release, count in steps:
                    step()
                    for var in release:
                        var.value = None
                    done += count
                    progress(done, total)
        plan.runs_done += 1
        if passes and not plan.fusion_checked:  # after a whole run op by op: runners learned
            plan.fusion_checked = True
        out = []
        for name in fetch_names:
            var = plan.local.find_var(name)
            value = None if var is None else var.value
            if isinstance(value, LoDTensorArray):  # Paddle fetches an array as a list
                if return_numpy:
                    empty = [k for k, t in enumerate(value) if t.data is None]
                    if empty:
                        raise NotFound(f"fetch target `{name}` is a tensor array whose steps "
                                       f"{empty} were never written.")
                    out.append([t.numpy() for t in value])
                else:
                    out.append(LoDTensorArray(value))
                continue
            if not isinstance(value, DenseTensor) or value.data is None:
                raise NotFound(f"fetch target `{name}` holds no tensor after the run.")
            # a sparse tensor has no one array: fetched as the tensor (Paddle's fetch returns
            # the SparseCooTensor object), whatever return_numpy says
            out.append(value.numpy() if return_numpy and not is_sparse(value) else value)
        return out

    # -- feeds and fetches ---------------------------------------------------------------------
    @staticmethod
    def _check_feed_names(block, targets: list[str], feed: dict) -> list[str]:
        if targets:
            missing = [t for t in targets if t not in feed]
            extra = [k for k in feed if k not in targets]
            if missing:
                raise FeedError(f"missing feed for {missing}; the program's feed targets are "
                                f"{targets}.")
            if extra:
                raise FeedError(f"feed names {extra} are not feed targets of the program "
                                f"(feed targets: {targets}).")
            return targets
        for name in feed:
            if block.find_var(name) is None:
                import difflib  # only for a hint (a cold-start import)

                close = difflib.get_close_matches(name, list(block.vars), n=3)
                hint = f" Did you mean {', '.join(close)}?" if close else ""
                raise FeedError(f"feed name `{name}` is not a variable of the program.{hint}")
        return list(feed)

    @staticmethod
    def _fetch_names(program: Program, fetch_list) -> list[str]:
        if fetch_list is None:
            return list(program._targets()[1])
        names = []
        for item in fetch_list:
            name = item if isinstance(item, str) else getattr(item, "name", None)
            if not isinstance(name, str):
                raise InvalidArgument(f"fetch_list items are names or variables, got {item!r}.")
            if program.desc.global_block.find_var(name) is None:
                raise NotFound(f"fetch target `{name}` is not a variable of the program.")
            names.append(name)
        return names

    @staticmethod
    def _feed_tensor(block, name: str, value) -> DenseTensor | LoDTensorArray:
        desc = block.find_var(name)
        if desc is not None and desc.type is VarType.LOD_TENSOR_ARRAY:
            # a tensor array variable: a list of (array, lod) pairs / tensors, one per step
            return lod_tensor_array(value, f"feed `{name}`", FeedError)
        t = as_host_tensor(value, f"feed `{name}`", FeedError)
        if desc is not None:
            _check_sparse_feed(name, desc.type, t)
            if is_sparse(t):  # no tensor desc to check dtype / shape against
                return t
        if desc is not None and desc.type is VarType.SELECTED_ROWS and not is_selected_rows(t):
            raise FeedError(f"feed `{name}` is a SELECTED_ROWS variable: feed a SelectedRows "
                            "(fluid_compat.selected_rows(rows, height, value)), got a dense "
                            "tensor.")
        if desc is None or desc.dtype is None:
            return t
        if desc.dtype is DataType.BFLOAT16 and t.dtype is DataType.UINT16:
            # Paddle's Python side holds bfloat16 as its uint16 storage: the same bits
            t = DenseTensor(t.data.view(DataType.BFLOAT16.to_numpy()), DataType.BFLOAT16, t.place,
                            t.layout, t.lod)
        if desc.dtype is not DataType.UNDEFINED and t.dtype != desc.dtype:
            raise FeedError(f"feed `{name}` has dtype {t.dtype}, the program expects "
                            f"{desc.dtype}.")
        shape = desc.shape
        if shape is not None and desc.need_check_feed:
            dims = tuple(t.dims)
            if len(dims) != len(shape) or any(
                    s != -1 and s != d for s, d in zip(shape, dims, strict=True)):
                raise FeedError(f"feed `{name}` has shape {list(dims)}, the program expects "
                                f"{list(shape)} (-1: any size).")
        return t


_SPARSE_VARS = {VarType.SPARSE_COO: SparseCooTensor, VarType.SPARSE_CSR: SparseCsrTensor}


def _check_sparse_feed(name: str, var_type, t: DenseTensor) -> None:
    """A SPARSE_COO / SPARSE_CSR variable takes that tensor kind, and only it takes one."""
    want = _SPARSE_VARS.get(var_type)
    if want is not None and type(t) is not want:
        maker = "sparse_coo_tensor" if want is SparseCooTensor else "sparse_csr_tensor"
        raise FeedError(f"feed `{name}` is a {var_type.name} variable: feed a {want.__name__} "
                        f"(fluid_compat.{maker}(...)), got a {type(t).__name__}.")
    if want is None and is_sparse(t):
        raise FeedError(f"feed `{name}` is a {var_type.name} variable, but a "
                        f"{type(t).__name__} was fed (feed it to a SPARSE_COO / SPARSE_CSR "
                        "variable).")


def _feed_signature(t: DenseTensor | LoDTensorArray) -> tuple:
    """What a plan depends on in a feed: dtype, rank and place (a tensor array: its length
    and its steps' ones)."""
    if isinstance(t, LoDTensorArray):
        return ("array", tuple(_feed_signature(s) for s in t))
    if is_sparse(t):  # the tensor kind chooses the kernels
        return type(t).__name__, t.dtype, len(t.dims), t.place
    return t.dtype, len(t.dims), t.place


def _stats(plan: _Plan) -> RunStats:
    stats = RunStats()
    for op in plan.ops:
        stats.ops += 1
        choice = getattr(op, "last_choice", None)
        if choice is None:
            continue
        if choice.is_phi:
            stats.phi += 1
        else:
            stats.fluid += 1
        if choice.fallback:
            stats.fallback += 1
    if plan.last_run_fused:
        for step, _, count in plan.steps:
            if count > 1 and step.last_fused:
                stats.fused_steps += 1
                stats.fused_ops += count
            elif type(step) is CompiledSegment and step.last_compiled:
                stats.segment_ops += count
    return stats

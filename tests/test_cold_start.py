"""Cold start: kernel modules load on demand, yet every listing sees everything.

The phi kernel modules register on a name's first lookup of the module the layout rule names
(phi.kernels.LAYOUT), the fluid kernel modules likewise (fluid_kernels.LAYOUT; phi.core.layout);
phi.infermeta names load their module on first use; the grad-op mappings, the argmap checker
and the backward pass load when asked for.  Each check runs in a fresh interpreter, since this
test process has long imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BERT = ROOT / "tests" / "fixtures" / "models" / "bert_tiny"


def _python(code: str, *, lazy: bool = True, timeout: int = 300, env: dict | None = None
            ) -> str:
    """The stdout of ``code`` in a fresh process on this checkout (``env``: more variables)."""
    full = dict(os.environ, PYTHONPATH=str(ROOT), FLAGS_lazy_kernel_import="1" if lazy else "0",
                **(env or {}))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _cache_tool():
    """tools/gen_yaml_caches.py as a module."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_yaml_caches
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return gen_yaml_caches


def test_generated_caches_are_up_to_date():
    stale = _cache_tool().stale()
    assert not stale, (f"stale: {[str(p.relative_to(ROOT)) for p in stale]}; run "
                       "python tools/gen_yaml_caches.py")


def test_every_kernel_module_is_listed():
    import fluid_compat.operators.fluid_kernels as fk
    import phi.kernels

    helpers = {"__init__", "funcs"}
    on_disk = {p.stem for p in (ROOT / "phi" / "kernels").glob("*.py")} - helpers
    # sub-packages (phi/kernels/sparse/): their modules, listed as "sparse.unary"
    on_disk |= {f"{p.parent.name}.{p.stem}" for p in (ROOT / "phi" / "kernels").glob("*/*.py")
                if (p.parent / "__init__.py").is_file() and p.stem not in helpers
                and p.parent.name not in helpers}
    # a full load imports every one of them (the rule lists the package's files)
    assert {f"phi.kernels.{m}" for m in on_disk} == set(phi.kernels.LAYOUT.modules())
    fluid_disk = {p.stem for p in (ROOT / "fluid_compat" / "operators" / "fluid_kernels")
                  .glob("*.py")} - {"__init__", "registry", "funcs"}
    assert {f"{fk.__name__}.{m}" for m in fluid_disk} == set(fk.LAYOUT.modules())


def test_each_kernel_is_found_where_the_rule_looks_for_it():
    """For every built-in kernel the rule names the module its function comes from (the one
    whose import registers it): a fresh process's first lookup of any name finds it."""
    out = _python("""
    from phi.core.registry import kernel_factory
    import phi.kernels
    factory = kernel_factory()
    factory.load_all()
    wrong = sorted({(name, k.fn.__module__) for name, keys in factory._kernels.items()
                    for k in keys.values()
                    if k.fn.__module__ != phi.kernels.LAYOUT.module_of(name)})
    print(wrong or "-")
    """)
    assert out.split() == ["-"]


def test_importing_the_packages_loads_no_kernel_family():
    out = _python("""
        import sys
        import fluid_compat.cli, fluid_compat, phi, argmap, phi.infermeta
        import phi.kernels, fluid_compat.operators.fluid_kernels as fk
        from phi.core.registry import kernel_factory
        modules = phi.kernels.LAYOUT.modules()
        loaded = [m for m in modules if m in sys.modules]
        fluid = [m for m in fk.LAYOUT.modules() if m in sys.modules]
        print(len(modules), len(loaded), len(fluid))
        print(" ".join(m for m in ("fluid_compat.backward", "argmap.check", "phi.infermeta.fusion",
                                   "phi.kernels.fft", "fluid_compat.tools.compare")
                       if m in sys.modules))
    """)
    total, loaded, fluid, *unwanted = out.split()
    # fusion.py imports three kernel modules for its planned steps; nothing else is imported
    assert int(loaded) <= 8 < int(total)
    assert int(fluid) == 0
    assert unwanted == []


def test_a_kernel_loads_on_first_lookup():
    out = _python("""
        import sys
        import phi
        from phi import DataType, KernelKey, Backend, DataLayout
        from phi.core.registry import kernel_factory
        f = kernel_factory()
        assert "phi.kernels.fft" not in sys.modules
        assert f.is_pending("fft_c2c")
        key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.COMPLEX64)
        k = f.select_kernel_or_raise("fft_c2c", key).kernel
        assert "phi.kernels.fft" in sys.modules  # the module the rule names, and only it
        assert "phi.kernels.stft" not in sys.modules
        assert k.fn.__module__ == "phi.kernels.fft"
        assert not f.is_pending("fft_c2c")
        assert not f.has_kernel("fft_c2c_triple_grad") and "phi.kernels.fft" in sys.modules
        # a fluid kernel and its op's hooks load with the op's first use
        from fluid_compat import run_op
        import numpy as np
        assert "fluid_compat.operators.fluid_kernels.crop" not in sys.modules
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        out = run_op("crop", {"X": x}, {"shape": [1, 2], "offsets": [0, 1]})
        assert "fluid_compat.operators.fluid_kernels.crop" in sys.modules
        print(out["Out"][0].tolist())
        # a flag that kernel modules read is defined with phi.flags: reading it imports none
        assert "phi.kernels.rrelu" not in sys.modules
        print(phi.get_flags("FLAGS_random_op_seed"))
        assert "phi.kernels.rrelu" not in sys.modules
    """)
    assert "[[1.0, 2.0]]" in out
    assert "{'FLAGS_random_op_seed': 0}" in out


_LISTING = """
    import json
    import phi
    from phi.core.registry import kernel_factory
    from fluid_compat.operators.fluid_kernels.registry import all_fluid_kernels
    from fluid_compat.framework import op_registry
    import fluid_compat.operators.fluid_kernels as fk
    f = kernel_factory()
    kernels = {n: sorted(str(k) for k in f.kernels_of(n)) for n in f.names()}
    fns = {n: sorted(f"{k.fn.__module__}.{k.fn.__qualname__}" for k in f.kernels_of(n).values())
           for n in f.names()}
    fluid = {op: sorted(str(t) for t in ks) for op, ks in all_fluid_kernels().items()}
    for m in fk.LAYOUT.modules():  # hooks of every module, as an eager import declared them
        __import__(m)
    hooks = sorted(op_registry._HOOKS)
    lazy_hooks = sorted(op_registry._LAZY)
    phi.get_flags("FLAGS_gelu_fast_erf")
    print(json.dumps([kernels, fns, fluid, hooks, lazy_hooks, sorted(phi.flags._DEFS)]))
"""


def test_listings_see_everything_an_eager_import_registers():
    lazy = json.loads(_python(_LISTING, lazy=True))
    eager = json.loads(_python(_LISTING, lazy=False))
    for got, want, what in zip(lazy, eager, ("kernels", "functions", "fluid kernels", "hooks",
                                             "lazy hooks", "flags"), strict=True):
        assert got == want, what
    assert len(lazy[0]) > 600 and len(lazy[2]) > 150


def test_cli_kernels_listing_is_the_same_lazy_or_eager():
    def listing(lazy: bool) -> str:
        env = dict(os.environ, PYTHONPATH=str(ROOT),
                   FLAGS_lazy_kernel_import="1" if lazy else "0")
        return subprocess.run([sys.executable, "-m", "fluid_compat.cli", "kernels", "--format",
                               "json"], env=env, cwd=ROOT, check=True, capture_output=True,
                              text=True, timeout=300).stdout

    lazy, eager = listing(True), listing(False)
    assert lazy == eager
    assert len(json.loads(lazy)) > 600


def test_many_threads_asking_for_unloaded_kernels_at_once():
    out = _python("""
        import sys, threading
        import numpy as np
        from phi import DataType, KernelKey, Backend, DataLayout
        from phi.core.registry import kernel_factory
        f = kernel_factory()
        names = ["fft_c2c", "viterbi_decode", "yolo_box", "warprnnt", "edit_distance",
                 "roi_align", "multiclass_nms3", "matrix_nms", "prior_box"]
        pending = [n for n in names if f.is_pending(n)]
        assert pending == names, pending
        barrier = threading.Barrier(16)
        found, errors = [], []

        def work(i):
            try:
                barrier.wait()
                for n in names[i % len(names):] + names[:i % len(names)]:
                    kernels = f.kernels_of(n)  # never a partial table
                    found.append((n, len(kernels)))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(repr(exc))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        counts = {}
        for n, c in found:
            counts.setdefault(n, set()).add(c)
        assert all(len(c) == 1 for c in counts.values()), counts
        print(len(found), len(names))
    """)
    found, names = map(int, out.split()[-2:])
    assert found == 16 * names


def test_many_threads_running_a_fresh_process_first_program():
    out = _python(f"""
        import threading
        import numpy as np
        from fluid_compat import Executor, load_inference_model
        program, feeds, fetches = load_inference_model("{BERT / 'inference'}")
        feed = {{n: np.load("{BERT}/input_" + n + ".npy") for n in feeds}}
        want = [np.load("{BERT}/output_%d.npy" % i) for i in range(len(fetches))]
        exe = Executor()
        barrier = threading.Barrier(8)
        results, errors = [], []

        def work():
            try:
                barrier.wait()
                results.append(exe.run(program, feed=feed, fetch_list=fetches))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(repr(exc))

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        for outs in results:
            for got, w in zip(outs, want, strict=True):
                np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-5)
        print(len(results))
    """)
    assert out.split()[-1] == "8"


def test_a_plugin_kernel_meets_the_builtin_keys_of_its_name():
    out = _python("""
        import sys
        from phi import register_kernel
        from phi.core.errors import AlreadyExists
        from phi.core.kernel import Tensor
        assert "phi.kernels.fft" not in sys.modules
        try:
            @register_kernel("fft_c2c", "CPU", ["complex64"])
            def mine(ctx, x: Tensor, axes: list[int], normalization: str,
                     forward: bool) -> Tensor:
                return x
        except AlreadyExists as exc:
            print("refused", "phi.kernels.fft" in sys.modules)
    """)
    assert "refused True" in out


def test_infermeta_names_resolve_and_every_infer_meta_is_exported():
    import importlib

    import phi.infermeta as im

    for name in im.__all__:
        assert getattr(im, name) is not None
    # every public name of every module is a package name (the modules hold no names apart)
    for module in im.modules():
        mod = importlib.import_module(f"phi.infermeta.{module}")
        missing = [n for n in mod.__all__ if n not in im.__all__]
        assert not missing, f"phi.infermeta.{module}: {missing} are not package names"
        unlisted = [n for n, v in vars(mod).items() if n.endswith("_infer_meta")
                    and callable(v) and getattr(v, "__module__", None) == mod.__name__
                    and n not in mod.__all__]
        assert not unlisted, f"phi.infermeta.{module}: add {unlisted} to __all__"
    on_disk = {p.stem for p in (ROOT / "phi" / "infermeta").glob("*.py")} - {"__init__"}
    assert on_disk == set(im.modules())
    assert im.unary.__name__ == "phi.infermeta.unary"
    with pytest.raises(AttributeError):
        im.no_such_infer_meta  # noqa: B018


def test_an_infermeta_name_loads_only_the_module_the_rule_names():
    out = _python("""
        import sys
        import phi.api
        fn, _ = phi.api.kernel_infer_meta("layer_norm")
        print(fn.__module__, sorted(m for m in sys.modules if m.startswith("phi.infermeta.")))
    """)
    assert out.split() == ["phi.infermeta.ternary", "['phi.infermeta.funcs',",
                           "'phi.infermeta.ternary']"]


def test_lazy_grad_compat_answers_as_the_eager_table():
    from argmap.compat import GRAD_COMPAT_FILE, load_compat
    from argmap.registry import ArgMappingRegistry, default_registry, sig_families

    eager = ArgMappingRegistry(compat=load_compat() + load_compat(GRAD_COMPAT_FILE),
                               families=sig_families())
    lazy = default_registry()
    assert lazy.mapped_op_types() == eager.mapped_op_types()
    for op in ("relu_grad", "matmul_v2_grad", "relu", "conv2d"):
        assert lazy.compat_entry(op) == eager.compat_entry(op)
        assert lazy.how_mapped(op) == eager.how_mapped(op)


def test_compat_tables_come_from_the_cache_unless_their_text_changed():
    from argmap import compat

    for name in (compat.DEFAULT_COMPAT_FILE, compat.GRAD_COMPAT_FILE):
        text = (ROOT / "argmap" / name).read_text(encoding="utf-8")
        cached = compat._from_cache(name, text)
        parsed = compat.parse_compat(text, f"argmap/{name}")

        def full(entries):
            return [(e, e.line, e.source, [(t, t.line) for t in e.tensor_attrs])
                    for e in entries]

        assert cached is not None and full(cached) == full(parsed)
        assert compat._from_cache(name, text + "\n# an edit\n") is None  # parsed again then


def test_a_run_of_a_forward_program_reads_no_yaml_and_no_grad_tables():
    out = _python(f"""
        import contextlib, io, sys
        from fluid_compat.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as text:
            main(["run", "{BERT / 'inference'}",
                  "--feed", "input_ids={BERT / 'input_input_ids.npy'}",
                  "--feed", "token_type_ids={BERT / 'input_token_type_ids.npy'}"])
        import opmakers.grad
        print("yaml" in sys.modules, opmakers.grad._data.cache_info().currsize,
              "fluid_compat.backward" in sys.modules, "argmap.check" in sys.modules)
        print(text.getvalue())
    """)
    assert out.splitlines()[0] == "False 0 False False"
    assert "output 0:" in out


def test_op_defs_read_line_by_line_equal_the_whole_file():
    from opmakers import data

    text = data.OP_DEFS_JSON.read_text()
    whole = json.loads(text)["ops"]
    lines = data._op_lines(text)
    assert lines is not None, "op_defs.json is no longer one op per line: the fast path is off"
    assert [(op, family) for op, family, _ in lines] == [(op, e["family"])
                                                         for op, e in whole.items()]
    assert all(json.loads(value) == whole[op] for op, _, value in lines)
    assert data._op_lines(json.dumps({"ops": whole})) is None  # another layout: parsed whole
    import opmakers

    for op in ("conv2d", "matmul_v2", "layer_norm", "while", "yolo_box"):
        eager = data.OpDef(op, whole[op]["family"], data._declare(whole[op]))
        assert opmakers.get_op_def(op).make() == eager.make()


_RUN_BERT = f"""
    import contextlib, io, sys
    from fluid_compat.cli import main
    with contextlib.redirect_stdout(io.StringIO()) as text:
        main(["run", "{BERT / 'inference'}",
              "--feed", "input_ids={BERT / 'input_input_ids.npy'}",
              "--feed", "token_type_ids={BERT / 'input_token_type_ids.npy'}",
              "--expect", "{BERT}"])
    assert "matches Paddle's recorded output" in text.getvalue(), text.getvalue()
"""

# what a run of the BERT fixture does not import any more (each one cost a few ms)
_NOT_IMPORTED_BY_A_RUN = (
    "google.protobuf.descriptor_pool",  # framework messages straight from upb
    "google.protobuf.internal.python_message",
    "google.protobuf.text_format",
    "importlib.resources",  # opmakers' data files by path
    "attr", "attrs",  # phi.core.records
    "difflib",  # only for NotFound hints
    "shutil",  # argparse's terminal width (fluid_compat.cli._HelpFormatter)
    "fluid_compat.operators.shadow",  # only with --shadow
    "logging",  # phi.core.trace.logger made when the trace is on or it is asked for
    # kernel modules that only import the kernels a run needs (bitwise imports elementwise's
    # helpers, cross_entropy_with_softmax softmax), and the conv_bn pass's kernels
    "phi.kernels.bitwise", "phi.kernels.cross_entropy_with_softmax", "phi.kernels.conv",
    "phi.kernels.batch_norm",
)


def test_a_run_imports_none_of_the_modules_it_does_without():
    out = _python(_RUN_BERT + f"""
    print(" ".join(m for m in {_NOT_IMPORTED_BY_A_RUN!r} if m in sys.modules) or "-")
    """)
    assert out.split() == ["-"]


def test_framework_messages_from_upb_are_framework_pb2s_classes():
    from google.protobuf.internal import api_implementation

    from fluid_compat.framework.proto import framework_pb2

    desc = ROOT / "fluid_compat" / "framework" / "proto" / "framework_pb2.desc"
    assert desc.read_bytes() == framework_pb2.DESCRIPTOR.serialized_pb, (
        "framework_pb2.desc is stale: run tools/gen_proto.sh")
    names = ("BlockDesc", "OpDesc", "ProgramDesc", "Scalar", "VarDesc", "VarType")
    code = f"""
        import sys
        from fluid_compat.framework.proto import messages
        direct = messages.direct
        assert direct == ("fluid_compat.framework.proto.framework_pb2" not in sys.modules)
        from fluid_compat.framework.proto import framework_pb2
        assert all(getattr(messages, n) is getattr(framework_pb2, n) for n in {names!r})
        assert messages.VarType.TensorDesc is framework_pb2.VarType.TensorDesc
        assert messages.OpDesc.Attr is framework_pb2.OpDesc.Attr
        assert messages.VarType.FP32 == framework_pb2.VarType.FP32 == 5
        p = messages.ProgramDesc.FromString(open("{BERT / 'inference.pdmodel'}", "rb").read())
        assert isinstance(p, framework_pb2.ProgramDesc) and len(p.blocks[0].ops) == 91
        print(direct)
    """
    upb = api_implementation.Type() == "upb"
    assert _python(code).split() == [str(upb)]
    assert _python(code, env={"FLAGS_proto_upb_direct": "0"}).split() == ["False"]


def test_kernels_are_built_on_their_first_lookup():
    out = _python("""
        import sys
        import phi.kernels.elementwise  # registers add, subtract, ... : none built yet
        from phi import DataType, KernelKey, Backend, DataLayout
        from phi.core.registry import kernel_factory
        f = kernel_factory()
        assert {"add", "subtract"} <= set(f.deferred_pending())
        assert f.has_kernel("subtract")
        key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)
        k = f.select_kernel("add", key)
        assert k is not None and k.fn.__module__ == "phi.kernels.elementwise"
        assert "add" not in f.deferred_pending() and "subtract" in f.deferred_pending()
        f.names()  # a listing builds everything
        print(len(f.deferred_pending()))
    """)
    assert out.split() == ["0"]


def test_every_kernel_built_late_equals_its_eager_build():
    code = """
        from phi.core.registry import kernel_factory
        f = kernel_factory()
        for name in f.names():
            for key, k in sorted(f.kernels_of(name).items(), key=lambda kv: str(kv[0])):
                print(name, key, k.args_def, [(d.name, d.kind, d.lod) for d in
                                             k.args_def.inputs + k.args_def.outputs],
                      k.args_def.attributes, k.fn.__module__, k.fn.__qualname__)
    """
    late = _python(code)
    eager = _python(code, env={"FLAGS_lazy_kernel_build": "0"})
    assert late == eager and len(late.splitlines()) > 1000


def test_a_faulty_builtin_registration_raises_at_its_first_lookup(tmp_path):
    (tmp_path / "fake_kernels").mkdir()
    (tmp_path / "fake_kernels" / "__init__.py").write_text("")
    (tmp_path / "fake_kernels" / "kernels.py").write_text(textwrap.dedent("""
        from phi.core.kernel import Tensor
        from phi.core.registry import register_kernel

        @register_kernel("fake_kernel_x", "CPU", ["float32"], input_defs={"nope": {}})
        def fake(ctx, x: Tensor) -> Tensor:
            return x
    """))
    code = f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from phi import flags
        from phi.core.errors import InvalidArgument
        from phi.core.registry import kernel_factory
        f = kernel_factory()
        from phi.core.layout import Layout
        f.set_layout(Layout("fake_kernels"))  # its modules as built-in ones
        try:
            import fake_kernels.kernels
        except InvalidArgument:
            print("at import")
            raise SystemExit(0)
        for ask in (lambda: f.kernels_of("fake_kernel_x"), f.names):
            try:
                ask()
            except InvalidArgument as exc:
                print("at lookup", "input_defs names 'nope'" in str(exc))
    """
    assert _python(code).splitlines() == ["at lookup True", "at lookup True"]
    assert _python(code, env={"FLAGS_lazy_kernel_build": "0"}).split() == ["at", "import"]


def test_turning_the_late_build_off_builds_every_pending_kernel():
    out = _python("""
        import phi.kernels.elementwise
        from phi import flags
        from phi.core.registry import kernel_factory
        assert kernel_factory().deferred_pending()
        flags.set_flags({"FLAGS_lazy_kernel_build": False})
        print(len(kernel_factory().deferred_pending()))
    """)
    assert out.split() == ["0"]


def test_the_cli_help_formatter_is_as_wide_as_argparse_s(monkeypatch):
    import argparse

    from fluid_compat.cli import _HelpFormatter

    for columns in ("40", "133", "", "junk", "-3"):
        monkeypatch.setenv("COLUMNS", columns)
        assert _HelpFormatter("x")._width == argparse.HelpFormatter("x")._width
    monkeypatch.delenv("COLUMNS")
    assert _HelpFormatter("x")._width == argparse.HelpFormatter("x")._width


def test_a_parse_for_one_command_builds_only_its_parser():
    from fluid_compat import cli

    argv = ["run", str(BERT / "inference"), "--feed", "a=b.npy", "--pin", "relu=fluid"]
    one, every = cli.build_parser("run"), cli.build_parser()
    sub_one = next(a for a in one._actions if a.dest == "command")
    sub_every = next(a for a in every._actions if a.dest == "command")
    assert list(sub_one.choices) == ["run"]
    assert list(sub_every.choices) == list(cli._COMMANDS)
    assert vars(one.parse_args(argv)) == vars(every.parse_args(argv))
    assert sub_one.choices["run"].format_help() == sub_every.choices["run"].format_help()


def test_op_definitions_are_made_when_first_asked_for():
    out = _python("""
        import opmakers
        from opmakers import registry
        from opmakers.data import load_op_defs
        assert opmakers.has_op("matmul_v2") and len(opmakers.all_op_types()) > 700
        made = sum(isinstance(v, opmakers.OpDef) for v in registry._DEFS.values())
        d = opmakers.get_op_def("matmul_v2")
        assert opmakers.get_op_def("matmul_v2") is d
        eager = load_op_defs()
        assert all(opmakers.get_op_def(op) == eager[op] for op in eager)
        print(made, d.family)
    """)
    assert out.split() == ["0", "linalg"]


def test_infer_index_gives_way_to_an_edited_yaml(monkeypatch):
    """_infer_cache.json records the checksum of ops.yaml / static_ops.yaml; when the texts no
    longer match (an edit after the index was made) the table comes from the YAML itself."""
    import json

    import phi.api as api

    stored = json.loads((ROOT / "phi" / "api" / "_infer_cache.json").read_text())
    assert stored["yaml_checksum"] == api.yaml_checksum()  # made from the texts on disk
    built = []
    real = api.kernel_infer_index
    monkeypatch.setattr(api, "kernel_infer_index", lambda: built.append(1) or real())
    monkeypatch.setattr(api, "_INFER_INDEX", [])
    assert api._infer_index() == stored["kernels"] and not built  # the index, as it matches
    monkeypatch.setattr(api, "_INFER_INDEX", [])
    monkeypatch.setattr(api, "yaml_checksum", lambda: "0:edited")
    assert api._infer_index() == stored["kernels"] and built == [1]  # from the YAML

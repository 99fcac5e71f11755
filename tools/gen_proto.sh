#!/usr/bin/env bash
# Regenerate fluid_compat/framework/proto/framework_pb2.py from framework.proto.
#
# The generated module is committed, so that the package needs only the protobuf runtime.
# We pin grpcio-tools 1.62.x: it bundles protoc 25.x, whose generated code carries no runtime
# version check and therefore imports with every protobuf runtime from 4.25 on (pyproject.toml
# declares protobuf>=4.25).  A newer protoc would emit a check demanding a runtime at least as new
# as itself.
#
# Usage: tools/gen_proto.sh            (creates/reuses a dev venv in .venv-proto/, git-ignored)
#        PROTO_VENV=/some/venv tools/gen_proto.sh
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PROTO_VENV:-$repo_root/.venv-proto}"
grpcio_tools_version="1.62.3"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import grpc_tools, importlib.metadata as m, sys; \
sys.exit(m.version('grpcio-tools') != '$grpcio_tools_version')" 2>/dev/null; then
    "$venv/bin/pip" install --quiet "grpcio-tools==$grpcio_tools_version"
fi

proto_dir="$repo_root/fluid_compat/framework/proto"
cd "$repo_root"
# The repository root is the proto path, so the file registers in protobuf's default descriptor
# pool as "fluid_compat/framework/proto/framework.proto": no clash with other "framework.proto"s.
"$venv/bin/python" -m grpc_tools.protoc \
    --proto_path=. \
    --python_out=. \
    fluid_compat/framework/proto/framework.proto
# Generated code is not ours to lint or reformat: mark it for ruff (lint and format).
out="$proto_dir/framework_pb2.py"
{ printf '# ruff: noqa\n# fmt: off\n'; cat "$out"; } > "$out.tmp" && mv "$out.tmp" "$out"
echo "wrote $out"
# Its serialized file descriptor, which fluid_compat/framework/proto/messages.py hands to upb
# directly (without importing the generated module's pure-Python protobuf machinery).
PYTHONPATH="$repo_root" "$venv/bin/python" -c '
import sys
from fluid_compat.framework.proto import framework_pb2
open(sys.argv[1], "wb").write(framework_pb2.DESCRIPTOR.serialized_pb)' "$proto_dir/framework_pb2.desc"
echo "wrote $proto_dir/framework_pb2.desc"

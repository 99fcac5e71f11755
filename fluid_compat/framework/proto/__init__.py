"""Protobuf schema of the program file format and its generated module (see tools/gen_proto.sh)."""

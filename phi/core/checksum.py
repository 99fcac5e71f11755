"""A short checksum of a text: generated caches (argmap/_compat_cache.json,
phi/api/_infer_cache.json) record it for the source they were made from, and a reader whose
source no longer matches rebuilds from the source instead, so an edit is never hidden."""

from __future__ import annotations

import zlib

__all__ = ["text_checksum"]


def text_checksum(text: str) -> str:
    data = text.encode("utf-8")
    return f"{len(data)}:{zlib.crc32(data):08x}"

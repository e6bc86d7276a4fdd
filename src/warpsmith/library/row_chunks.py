"""Few long rows (a LayerNorm over (C, H, W) of 16 images: 16 rows of 4 M elements) split
across programs, for row_text.py: one program a row left all but 16 of the GPU's SMs idle
(KernelBench 40 ran at 2 % of its floor, 0.07× torch.compile, on the H200). Each pass of the
row kernel becomes a kernel over (row, chunk): a pass that reduces stores each chunk's
partial result; the next pass starts by combining the SPLIT partials of every earlier
reduction (a fixed order: the same bits every run), and the last pass stores the output over
its chunk. The launch takes this path when the rows are few and long (the number of chunks
is decided at run time from the rows and their length); it reads the input once per pass,
as the one-program row kernel does.

Only the "rows" layout with an output at the input's shape and no arg-reduction is split.
"""

from __future__ import annotations

from .layout import format_line

KNOBS = {"RED_SPLIT": 256, "RED_CHUNK": 16384}


def splits(k) -> bool:
    return k.layout == "rows" and k.store == "full" and len(k.passes) > 1 and \
        all(r.combine in ("sum", "max", "min") for p in k.passes for r in p.reductions)


def kernels(k, lay, pass_text, load, sizes: list[str]) -> str:
    """One kernel per pass; `pass_text` and `load` are row_text's, `lay` its "rows" layout,
    `sizes` the row kernel's parameters after n_red (row counts, scalars)."""
    from .row_text import PER_ROW  # row_text imports this module

    reds = [r for p in k.passes for r in p.reductions]
    params = [f"{ld.name}_ptr" for ld in k.loads] + [f"{o}_ptr" for o in k.outs] + \
        [f"part_{r.name}_ptr" for r in reds] + ["n_red", "CHUNK"] + sizes + \
        ["SPLIT: tl.constexpr", "BLOCK_R: tl.constexpr"]
    chunk = dict(lay, loop=["r = start + tl.arange(0, BLOCK_R)", "mask = r < hi"])
    text = ""
    for i, p in enumerate(k.passes):
        body = ["row = tl.program_id(0).to(tl.int64)", "part = tl.program_id(1)",
                "lo = part * CHUNK", "hi = tl.minimum(lo + CHUNK, n_red)"]
        body += [load(ld, lay) for ld in k.loads if ld.kind in PER_ROW]
        for earlier in k.passes[:i]:  # what the earlier passes found, from their partials
            body += [format_line(ln) for ln in earlier.before]
            body += [_combined(r) for r in earlier.reductions]
        body += [ln.replace("range(0, n_red, BLOCK_R)", "range(lo, hi, BLOCK_R)")
                 for ln in pass_text(k, p, i, chunk) if not _finalizes(ln, p)]
        body += [f"tl.store(part_{r.name}_ptr + row * SPLIT + part, "
                 f"tl.{r.combine}(acc_{r.name}, axis=0))" for r in p.reductions]
        text += f"\n@triton.jit\ndef {k.name}_c{i}(" + ", ".join(params) + "):\n" + \
            "\n".join("    " + b if b else "" for b in body) + "\n"
    return text


def _combined(r) -> str:
    """A reduction's value from the SPLIT partials of its row."""
    total = (f"tl.{r.combine}(tl.load(part_{r.name}_ptr + row * SPLIT + tl.arange(0, SPLIT)), "
             "axis=0, keep_dims=True)")
    return f"{r.name} = " + r.finalize.format(acc=total, count="n_red")


def _finalizes(line: str, p) -> bool:
    return any(line.startswith(f"{r.name} = ") for r in p.reductions)


def launch(k, args: list[str], extra: list[str], first: int) -> list[str]:
    """The lines that run the chunked kernels; `args` are the loads' and outputs' arguments
    as the row kernel takes them, `extra` what follows n_red there."""
    reds = [r for p in k.passes for r in p.reductions]
    rows = f"math.prod(F[:{first}])"
    lines = [f"parts = torch.empty(({len(reds)}, {rows}, split), dtype=torch.float32, "
             f"device={k.shape_of}.device)",
             "chunk = triton.cdiv(n_red, split)"]
    for i in range(len(k.passes)):
        call = args + [f"parts[{j}]" for j in range(len(reds))] + ["n_red", "chunk"] + extra
        lines += [f"{k.name}_c{i}[({rows}, split)](", f"    {', '.join(call)},",
                  "    SPLIT=split, BLOCK_R=block_r, num_warps=RED_WARPS)"]
    return lines


def split_count(first: int) -> str:
    """The chunks a row is cut into: enough programs for the GPU (about 1024 in all), chunks
    of at least RED_CHUNK elements, at most RED_SPLIT; 1 (no split) for many or short rows."""
    return (f"split = min(RED_SPLIT, triton.next_power_of_2(triton.cdiv(1024, "
            f"math.prod(F[:{first}]))), max(1, triton.next_power_of_2(n_red // RED_CHUNK)))")

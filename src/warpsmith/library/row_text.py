"""The Triton text of a row_reduce kernel (row_reduce.py plans it): the same passes in every
layout; they differ only in how a program finds its rows and a tile its elements."""

from __future__ import annotations

from . import row_chunks
from .family import Piece
from .layout import format_line, runtime_scalars
from .pointwise import _arg, _host_arg

IDENTITY = {"sum": "0.0", "max": '-float("inf")', "min": 'float("inf")',
            "argmax": '-float("inf")', "argmin": 'float("inf")'}
# argmax/argmin: the comparison that makes an element the new best, and the tile's combine
ARG = {"argmax": (">", "max"), "argmin": ("<", "min")}

# What differs between a program owning one row and one owning BLOCK_I inner columns.
LAYOUTS = {
    "rows": {
        "head": ["row = tl.program_id(0).to(tl.int64)"],
        "tile": "[BLOCK_R]",
        "loop": ["r = start + tl.arange(0, BLOCK_R)", "mask = r < n_red"],
        "full": "row * n_red + r", "reduced": "r", "group": "row", "group_mask": None,
        "index": "r",
        "store_group": "row + tl.arange(0, 1)",
    },
    "split": {  # F as (pre, kept, post): a row is the pre × post elements of one kept index
        "head": ["row = tl.program_id(0).to(tl.int64)"],
        "tile": "[BLOCK_R]",
        "loop": ["r = start + tl.arange(0, BLOCK_R)", "mask = r < n_red"],
        "full": "(row + (r // n_post) * n_kept) * n_post + r % n_post", "reduced": "r",
        "group": "row", "group_mask": None, "index": "r",
        "store_group": "row + tl.arange(0, 1)",
    },
    "cols": {
        "head": ["outer = tl.program_id(0).to(tl.int64)",
                 "cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)",
                 "col_mask = cols < n_inner"],
        "tile": "[BLOCK_R, BLOCK_I]",
        "loop": ["r = start + tl.arange(0, BLOCK_R)",
                 "mask = (r < n_red)[:, None] & col_mask[None, :]"],
        "full": "(outer * n_red + r[:, None]) * n_inner + cols[None, :]", "reduced": "r[:, None]",
        "group": "outer * n_inner + cols[None, :]", "group_mask": "col_mask[None, :]",
        "index": "r[:, None]",
        "store_group": "outer * n_inner + cols[None, :]",
    },
}


# the loads made once per row, before the passes: their operands do not vary along a row
PER_ROW = ("group", "scalar", "group_tail", "group_run")


def render_row(k):

    lay = LAYOUTS[k.layout]
    lines = [ln for p in k.passes for ln in p.before + p.loop]
    scalars = runtime_scalars(lines)
    body = list(lay["head"]) + [_load(ld, lay) for ld in k.loads if ld.kind in PER_ROW]
    for index, p in enumerate(k.passes):
        body += _pass_text(k, p, index, lay)
    body += _store_text(k, lay)
    extra = {"cols": ["n_inner"], "split": ["n_kept", "n_post"]}.get(k.layout, [])
    blocks = "BLOCK_R: tl.constexpr" + (", BLOCK_I: tl.constexpr" if k.layout == "cols" else "")
    sizes = _size_params(k, scalars)
    params = [f"{ld.name}_ptr" for ld in k.loads] + [f"{o}_ptr" for o in k.outs] + \
        ["n_red"] + extra + sizes + [blocks]
    kernel = "\n@triton.jit\ndef " + k.name + "(" + ", ".join(params) + "):\n" + \
        "\n".join("    " + b if b else "" for b in body) + "\n"
    if row_chunks.splits(k):
        kernel += row_chunks.kernels(k, lay, _pass_text, _load, sizes)
    return Piece(kernel, _launch(k, scalars))


def _size_params(k, scalars) -> list[str]:
    """The parameters after the layout's sizes: the row counts the suffix and prefix loads
    index by, then the scalars (the chunked kernels take the same, row_chunks.py)."""
    return [f"{ld.name}_n" for ld in k.loads if ld.kind in ("suffix", "prefix")] + \
        [f"{ld.name}_{p}" for ld in k.loads if ld.kind == "suffix_px" for p in ("n", "px")] + \
        [f"{ld.name}_n" for ld in k.loads if ld.kind in ("group_tail", "reduced_tail")] + \
        [f"{ld.name}_{p}" for ld in k.loads if ld.kind == "group_run" for p in ("n", "after")] + \
        [_arg(s) for s in scalars]


def _pass_text(k, p, index: int, lay) -> list[str]:
    text = [format_line(ln) for ln in p.before]
    if not p.loop and not p.reductions and not (k.store == "full" and index == len(k.passes) - 1):
        return text
    what = ", ".join(r.name for r in p.reductions) or "the output"
    text.append(f"# pass {index + 1}: {what}")
    for r in p.reductions:
        text.append(f"acc_{r.name} = tl.full({lay['tile']}, {IDENTITY[r.combine]}, "
                    "tl.float32)")
        if r.combine in ARG:
            text.append(f"idx_{r.name} = tl.zeros({lay['tile']}, tl.int64)")
    text.append("for start in range(0, n_red, BLOCK_R):")
    loop = list(lay["loop"]) + [_load(ld, lay) for ld in k.loads if ld.name in p.loads]
    loop += [format_line(ln) for ln in p.loop]
    for r in p.reductions:
        masked = f"tl.where(mask, {r.source}, {IDENTITY[r.combine]})"
        if r.combine in ARG:
            loop += _arg_step(r, masked, lay)
        else:
            loop.append(f"acc_{r.name} += {masked}" if r.combine == "sum" else
                        f"acc_{r.name} = tl.{r.combine}imum(acc_{r.name}, {masked})")
    if k.store == "full" and index == len(k.passes) - 1:
        o = k.outs[0]  # "out", or row_split's cut0 when a second stage reads it
        loop.append(f"tl.store({o}_ptr + {lay['full']}, "
                    f"{k.results[0]}.to({o}_ptr.dtype.element_ty), mask=mask)")
    text += ["    " + ln for ln in loop]
    for r in p.reductions:
        total = f"tl.{r.combine}(acc_{r.name}, axis=0, keep_dims=True)"
        if r.combine in ARG:  # the first index among the lanes holding the best value
            text.append(f"top_{r.name} = tl.{ARG[r.combine][1]}(acc_{r.name}, axis=0, "
                        "keep_dims=True)")
            total = (f"tl.min(tl.where(acc_{r.name} == top_{r.name}, idx_{r.name}, n_red), "
                     "axis=0, keep_dims=True)")
        if k.store == "partial":  # the finish kernel finalizes, over every row's total
            text.append(f"{r.name} = {total}")
        else:
            text.append(f"{r.name} = " + r.finalize.format(acc=total, count="n_red"))
    return text


def _arg_step(r, masked: str, lay) -> list[str]:
    """Each lane keeps its best value and where it was; strictly better only, so a lane
    keeps the first index of a tie (later tiles have larger indices)."""
    name = r.name
    return [f"cand_{name} = {masked}",
            f"take_{name} = cand_{name} {ARG[r.combine][0]} acc_{name}",
            f"acc_{name} = tl.where(take_{name}, cand_{name}, acc_{name})",
            f"idx_{name} = tl.where(take_{name}, {lay['index']}, idx_{name})"]


def _store_text(k, lay) -> list[str]:
    if k.store == "full":
        return []
    mask = f", mask={lay['group_mask']}" if lay["group_mask"] else ""
    names = [r.name for r in k.passes[0].reductions] if k.store == "partial" else k.results
    return [f"tl.store({o}_ptr + {lay['store_group']}, {n}.to({o}_ptr.dtype.element_ty){mask})"
            for o, n in zip(k.outs, names, strict=True)]


def _load(ld, lay) -> str:
    cast = "" if ld.dtype == "bool" else ".to(tl.float32)"
    if ld.kind == "scalar":
        return f"{ld.name} = tl.load({ld.name}_ptr){cast}"
    if ld.kind == "prefix":  # indexed by the row's first kept dims: row // the others'
        return (f"{ld.name} = tl.load({ld.name}_ptr + (row // {ld.name}_n) * n_red + r, "
                f"mask=mask, other=0){cast}")
    if ld.kind == "suffix":  # indexed by the row's last kept dims: row % their product
        return (f"{ld.name} = tl.load({ld.name}_ptr + (row % {ld.name}_n) * n_red + r, "
                f"mask=mask, other=0){cast}")
    if ld.kind == "suffix_px":  # … broadcast along the last reduced dims (px of them a step)
        return (f"{ld.name} = tl.load({ld.name}_ptr + (row % {ld.name}_n) * (n_red // "
                f"{ld.name}_px) + r // {ld.name}_px, mask=mask, other=0){cast}")
    if ld.kind == "group_tail":
        return f"{ld.name} = tl.load({ld.name}_ptr + row % {ld.name}_n){cast}"
    if ld.kind == "reduced_tail":  # broadcast along the first reduced dims: r % their rest
        return (f"{ld.name} = tl.load({ld.name}_ptr + r % {ld.name}_n, mask=mask, "
                f"other=0){cast}")
    if ld.kind == "group_run":  # the row's kept dims after the operand's: `after` rows a step
        return f"{ld.name} = tl.load({ld.name}_ptr + (row // {ld.name}_after) % {ld.name}_n){cast}"
    if ld.kind == "group":
        mask = f", mask={lay['group_mask']}, other=0" if lay["group_mask"] else ""
        return f"{ld.name} = tl.load({ld.name}_ptr + {lay['group']}{mask}){cast}"
    return f"{ld.name} = tl.load({ld.name}_ptr + {lay[ld.kind]}, mask=mask, other=0){cast}"


def _launch(k, scalars) -> tuple[str, ...]:
    first, last = k.first, k.last
    lines = [f"F = {k.shape_of}.shape"]
    if k.layout == "split":
        lines += [f"n_kept, n_post = math.prod(F[{first}:{last + 1}]), "
                  f"math.prod(F[{last + 1}:])", f"n_red = math.prod(F[:{first}]) * n_post"]
    else:
        lines.append(f"n_red = math.prod(F[{first}:{last + 1}])")
    device = f"device={k.shape_of}.device"
    sizes = ", ".join(k.out_sizes) + ("," if len(k.out_sizes) == 1 else "")
    for o in k.outs:
        lines.append(f"{o} = torch.empty(({sizes}), dtype=torch.{k.out_dtype}, {device})")
    args = [ld.host if ld.kind == "scalar" else f"{ld.host}.contiguous()" for ld in k.loads]
    args += list(k.outs) + ["n_red"]
    if k.layout != "cols":
        rows = "n_kept" if k.layout == "split" else f"math.prod(F[:{first}])"
        lines += ["block_r = min(RED_BLOCK_R, triton.next_power_of_2(n_red))",
                  f"grid = ({rows},)"]
        args += ["n_kept", "n_post"] if k.layout == "split" else []
        blocks = "BLOCK_R=block_r"
    else:
        # a BLOCK_R × BLOCK_I tile holds about RED_BLOCK_R elements
        lines += [f"n_inner = math.prod(F[{last + 1}:])",
                  "block_r = min(max(RED_BLOCK_R // RED_BLOCK_I, 1), "
                  "triton.next_power_of_2(n_red))",
                  f"grid = (math.prod(F[:{first}]), triton.cdiv(n_inner, RED_BLOCK_I))"]
        args.append("n_inner")
        blocks = "BLOCK_R=block_r, BLOCK_I=RED_BLOCK_I"
    args += [f"math.prod(F[{next(d for d in ld.dims if d is not None)}:{first}])"
             if ld.kind == "suffix" else _prefix_rows(ld, first)
             for ld in k.loads if ld.kind in ("suffix", "prefix")]
    for ld in (ld for ld in k.loads if ld.kind == "suffix_px"):  # in _size_params' order
        refs = [d for d in ld.dims if d is not None]
        args += [f"math.prod(F[{refs[0]}:{first}])", f"math.prod(F[{refs[-1] + 1}:{last + 1}])"]
    args += [f"math.prod(F[{next(d for d in ld.dims if d is not None)}:{first}])"
             if ld.kind == "group_tail" else
             f"math.prod(F[{next(d for d in ld.dims if d is not None)}:{last + 1}])"
             for ld in k.loads if ld.kind in ("group_tail", "reduced_tail")]
    for ld in (ld for ld in k.loads if ld.kind == "group_run"):
        refs = [d for d in ld.dims if d is not None]
        args += [f"math.prod(F[{refs[0]}:{refs[-1] + 1}])", f"math.prod(F[{refs[-1] + 1}:{first}])"]
    args += [_host_arg(s) for s in scalars]
    call = [f"{k.name}[grid](", f"    {', '.join(args)},", f"    {blocks}, num_warps=RED_WARPS)"]
    if not row_chunks.splits(k):
        return tuple(lines + call)
    # few long rows: the same passes over (row, chunk) programs (row_chunks.py)
    head = len(k.loads) + len(k.outs)
    chunked = row_chunks.launch(k, args[:head], args[head + 1:], first)
    return tuple(lines + [row_chunks.split_count(first), "if split > 1:",
                          *("    " + ln for ln in chunked), "else:",
                          *("    " + ln for ln in call)])


def _prefix_rows(ld, first: int) -> str:
    """How many rows share one of a "prefix" operand's: the kept dims after its own."""
    last = max(d for d in ld.dims if d is not None and d < first)
    return f"math.prod(F[{last + 1}:{first}])"

"""Knob discovery and rendering on real candidate files (tests/kernels/good, the library's
renderings) and on small sources for the edge cases. A variant must parse and differ from its
source only in knob literals and added num_warps/num_stages keywords."""

import ast
import difflib
import io
import tokenize
from pathlib import Path

import pytest

from warpsmith.library import generate
from warpsmith.search.knobs import find_knobs, render
from warpsmith.search.tuner import make_variants, variant_set

GOOD = Path(__file__).resolve().parent.parent / "kernels" / "good"
# autotuned kernels choose their own configs at run time: they have no knobs to tune
GOOD_FILES = sorted(p for p in GOOD.glob("*.py") if "@triton.autotune" not in p.read_text())
LIBRARY_TASKS = ["level1/relu", "level1/softmax", "level1/layer_norm", "level1/matmul_fp16",
                 "level1/sum_last_dim", "level1/cross_entropy", "level1/cumsum",
                 "level1/embedding", "level1/group_norm"]
HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n"


def tokens(source: str) -> list[tuple[int, str]]:
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type not in skip]


def only_knobs_differ(before: str, after: str) -> None:
    """With every `, num_warps = N` / `, num_stages = N` group set aside (the variant may add
    them, never drop one), the token streams are equal but for numbers."""
    a, a_groups = _split_groups(tokens(before))
    b, b_groups = _split_groups(tokens(after))
    assert len(b_groups) >= len(a_groups) and set(a_groups) <= set(b_groups)
    assert len(a) == len(b), difflib.unified_diff([s for _, s in a], [s for _, s in b])
    for x, y in zip(a, b, strict=True):
        assert x == y or (x[0] == y[0] == tokenize.NUMBER), (x, y)


def _split_groups(toks):
    rest, groups, i = [], [], 0
    while i < len(toks):
        window = toks[i:i + 4]
        if len(window) == 4 and window[0][1] == "," and window[1][1] in (
                "num_warps", "num_stages") and window[2][1] == "=" and \
                window[3][0] == tokenize.NUMBER:
            groups.append((i - sum(4 for _ in groups), window[1][1]))  # where, which
            i += 4
            continue
        rest.append(toks[i])
        i += 1
    return rest, groups


def corpus() -> list[tuple[str, str]]:
    files = [(p.stem, p.read_text()) for p in GOOD_FILES]
    return files + [(t, generate(t).source) for t in LIBRARY_TASKS]


# good files with nothing the finder varies, and why (the tuner then leaves them as written)
NO_KNOBS = {
    # BLOCK_N = triton.next_power_of_2(N), warps from a helper: nothing written to vary
    "layer_norm_tlmath_alias": "no integer block size",
    # a @staticmethod kernel in the class body: the finder reads module-level kernels only
    "rope_staticmethod_kernel": "defines no @triton.jit kernel",
}


@pytest.mark.parametrize("name,source", corpus(), ids=[n for n, _ in corpus()])
def test_every_variant_parses_and_changes_only_knobs(name, source):
    found = find_knobs(source)
    if name in NO_KNOBS:
        assert not found.knobs and NO_KNOBS[name] in found.reason
        return
    assert found.knobs, found.reason
    variants = make_variants(source, found, limit=24)
    assert variants[0].source == source and len(variants) > 1
    for v in variants[1:]:
        ast.parse(v.source)
        assert v.source != source
        only_knobs_differ(source, v.source)


@pytest.mark.parametrize("name,source", corpus(), ids=[n for n, _ in corpus()])
def test_ladders_keep_powers_of_two_and_contain_the_written_value(name, source):
    for knob in find_knobs(source).knobs:
        ladder = knob.ladder()
        assert knob.value in ladder and list(ladder) == sorted(set(ladder))
        if knob.kind in ("block", "warps", "scale"):
            assert all(v & (v - 1) == 0 for v in ladder), (knob.name, ladder)
        if knob.kind == "warps":
            assert max(ladder) <= 32
        if knob.kind == "stages":
            assert min(ladder) >= 1


def test_autotuned_candidate_is_skipped_with_the_reason():
    found = find_knobs((GOOD / "silu_autotuned_triton.py").read_text())
    assert not found.knobs and "autotune" in found.reason


def test_a_literal_block_changes_with_the_grid_that_divides_by_it():
    source = (GOOD / "relu_triton.py").read_text()
    found = find_knobs(source)
    block = next(k for k in found.knobs if k.kind == "block")
    out = render(source, found.knobs, {block.name: 1024})
    assert "triton.cdiv(n, 1024)" in out and "BLOCK=1024" in out and "256" not in out


def test_round_up_division_is_tied_with_its_minus_one():
    source = HEADER + '''
@triton.jit
def k(x, n, BLOCK_SIZE: tl.constexpr):
    pass

def launch(x, n):
    k[((n + 511) // 512,)](x, n, BLOCK_SIZE=512)
'''
    found = find_knobs(source)
    block = next(k for k in found.knobs if k.kind == "block")
    out = render(source, found.knobs, {block.name: 128})
    assert "k[((n + 127) // 128,)](x, n, BLOCK_SIZE=128" in out


def test_module_constant_is_one_knob_edited_where_it_is_defined():
    source = HEADER + '''BLOCK = 1024


@triton.jit
def k(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)


def a(x, n):
    k[(triton.cdiv(n, BLOCK),)](x, n, BLOCK=BLOCK, num_warps=4)


def b(x, n):
    k[(triton.cdiv(n, BLOCK),)](x, n, BLOCK=BLOCK, num_warps=4)
'''
    found = find_knobs(source)
    blocks = [k for k in found.knobs if k.kind == "block"]
    assert [k.name for k in blocks] == ["BLOCK"] and len(blocks[0].edits) == 1
    out = render(source, found.knobs, {"BLOCK": 2048})
    assert out.replace("BLOCK = 2048", "BLOCK = 1024") == source


def test_semantic_constexprs_thresholds_and_reassigned_locals_are_not_knobs():
    source = HEADER + '''MAX_ROW = 8192


@triton.jit
def k(x, HEAD_DIM: tl.constexpr, HAS_BIAS: tl.constexpr, IGNORE: tl.constexpr,
      ODD_BLOCK: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, HEAD_DIM)


def launch(x, n):
    block = 1024
    if n > MAX_ROW:
        block = 2048
    warps = 8 if n > 4096 else 4
    k[(n,)](x, HEAD_DIM=64, HAS_BIAS=True, IGNORE=-100, ODD_BLOCK=96, BLOCK=block,
            num_warps=warps)
'''
    found = find_knobs(source)
    assert not found.knobs, [k.name for k in found.knobs]
    assert "no integer block size" in found.reason


def test_absent_num_warps_is_added_and_num_stages_only_for_loops():
    source = HEADER + '''
@triton.jit
def flat(x, BLOCK: tl.constexpr):
    pass


@triton.jit
def looped(x, n, BLOCK: tl.constexpr):
    for i in range(0, n, BLOCK):
        pass


def launch(x, n):
    flat[(1,)](x, BLOCK=64)
    looped[(1,)](x, n, BLOCK=64,)
'''
    found = find_knobs(source)
    kinds = sorted((k.name.split("@")[0], k.kind) for k in found.knobs if k.insert is not None)
    assert kinds == [("flat.num_warps", "warps"), ("looped.num_stages", "stages"),
                     ("looped.num_warps", "warps")]
    values = {k.name: (8 if k.kind == "warps" else 2) for k in found.knobs
              if k.insert is not None}
    out = render(source, found.knobs, values)
    assert "flat[(1,)](x, BLOCK=64, num_warps=8)" in out
    assert "looped[(1,)](x, n, BLOCK=64, num_warps=8, num_stages=2,)" in out
    ast.parse(out)
    only_knobs_differ(source, out)
    assert render(source, found.knobs, {}) == source  # defaults insert nothing


def test_self_attribute_positional_constexpr_and_min_cap():
    source = HEADER + '''
@triton.jit
def k(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.warps = 4

    def forward(self, x):
        n = x.numel()
        block = min(2048, triton.next_power_of_2(n))
        k[(1,)](x, n, block, num_warps=self.warps)
'''
    found = find_knobs(source)
    by_kind = {k.kind: k for k in found.knobs}
    assert by_kind["block"].value == 2048 and by_kind["warps"].value == 4
    out = render(source, found.knobs, {by_kind["block"].name: 512, by_kind["warps"].name: 2})
    assert "min(512, triton" in out and "self.warps = 2" in out


def test_byte_offsets_survive_non_ascii_text_before_a_knob():
    source = HEADER + '''
@triton.jit
def k(x, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)


def launch(x):
    label = "größe ≥ 1"; k[(1,)](x, BLOCK=128, num_warps=4)  # ünïcode
'''
    found = find_knobs(source)
    out = render(source, found.knobs, {k.name: k.value * 2 for k in found.knobs})
    assert 'label = "größe ≥ 1"; k[(1,)](x, BLOCK=256, num_warps=8)  # ünïcode' in out


def test_syntax_errors_and_files_without_kernels_say_why():
    assert "does not parse" in find_knobs("def broken(:\n").reason
    assert "no @triton.jit" in find_knobs("x = 1\n").reason
    source = HEADER + "@triton.jit\ndef k(x, BLOCK: tl.constexpr):\n    pass\n"
    assert "no launch" in find_knobs(source).reason


def test_variant_set_starts_with_the_defaults_is_unique_and_deterministic():
    source = generate("level1/matmul_fp16").source
    knobs = find_knobs(source).knobs
    a, b = variant_set(knobs, limit=40, seed=7), variant_set(knobs, limit=40, seed=7)
    assert a == b and len(a) == 40
    assert a[0] == {k.name: k.value for k in knobs}
    assert len({tuple(sorted(v.items())) for v in a}) == 40
    singles = [v for v in a[1:] if sum(v[k.name] != k.value for k in knobs) == 1]
    assert len(singles) >= len(knobs)  # every knob moved alone before any combination

"""Every use warpsmith makes of Triton's internals, in one place: the classes whose `run`
launches a kernel (verify/child/launches.py records which ran), the autotuner whose configs the
interpreter takes in turn (lang/triton.py, verify/child/autotune.py), and whether the
interpreter is on. Public Triton (triton.jit, triton.language, triton.testing) is used
directly elsewhere; what is here changes between releases, so a new release is one file to read.

Tested with Triton 3.6 (the dev extra's pin, torch 2.13 CPU; and on the GPU machine, torch 2.11)
and 3.9 (the interpreter tests under torch 2.13 CPU). Between them: `Autotuner.run` skips
benchmarking when pruning leaves one config (3.9), which leaves that config in use as before;
`JITFunction.run`, `InterpretedFunction.run(*args, grid, warmup, **kwargs)`, `Autotuner.configs`,
`.cache`, `.cache_results`, `.best_config`, the `do_bench` property and `knobs.runtime.interpret`
are the same. Below 3.4 (no `triton.knobs`) the interpreter's flag is read from the environment.
"""

from __future__ import annotations

import ast
import functools
import inspect
import math
import os
import textwrap

import numpy as np

OLDEST, NEWEST = (3, 6), (3, 9)  # the range tested; pyproject.toml's bound follows it


def version() -> tuple[int, int] | None:
    """Triton's (major, minor), None without Triton."""
    try:
        import triton
    except ImportError:
        return None
    major, minor = triton.__version__.split(".")[:2]
    return int(major), int(minor)


def interpreting() -> bool:
    """Whether kernels run in Triton's CPU interpreter (TRITON_INTERPRET=1)."""
    try:
        from triton import knobs
    except ImportError:  # Triton < 3.4 reads the variable itself
        return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")
    return bool(knobs.runtime.interpret)


def launching_classes() -> list[type]:
    """The classes whose `run(*args, grid, warmup, **kwargs)` launches a kernel: the compiled
    path's JITFunction and, where Triton ships it, the interpreter's InterpretedFunction."""
    from triton.runtime.jit import JITFunction

    classes = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction
        classes.append(InterpretedFunction)
    except ImportError:  # interpreter not shipped in this triton
        pass
    return classes


def python_function(kernel):
    """The Python function a launched kernel object was made from (its name and file say
    whose kernel ran): `.fn` on both launching classes."""
    return getattr(kernel, "fn", kernel)


def autotuner_class() -> type | None:
    """triton.runtime.autotuner.Autotuner, None without Triton."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return None
    return Autotuner


# The bits of -inf and +inf by width: Triton lowers a float atomic_max to a signed MAX on its
# bits where the value is >= 0 and an unsigned MIN where it is < 0 (atomic_min: MIN and UMAX),
# so `tl.atomic_max(p, float("-inf"))` reaches here as a UMIN with -inf's bits (round 10, R01)
_NEG_INF_BITS = {4: 0xFF800000, 8: 0xFFF0000000000000}
_POS_INF_BITS = {4: 0x7F800000, 8: 0x7FF0000000000000}
# Atomic updates that commute with each other, by op: a float max is lowered to MAX and UMIN,
# a float min to MIN and UMAX, so each pair is one class (updates of two classes at one
# address, from two programs, give a result that depends on their order)
OP_CLASS = {"ADD": "add", "FADD": "add", "MAX": "max", "UMIN": "max", "MIN": "min",
            "UMAX": "min", "AND": "and", "OR": "or", "XOR": "xor"}


def op_name(op) -> str:
    """`RMW_OP.ADD` (an enum's str on 3.6 and 3.9) as `ADD`."""
    return str(op).rsplit(".", 1)[-1].upper()


def _identity_lanes(op: str, value) -> np.ndarray:
    """The lanes of an atomic read-modify-write that leave memory as it was (an add of 0, an
    or/xor of 0, an and of all ones, a max with the lowest value, a min with the highest,
    also as a float max or min lowered to integer ops on its bits)."""
    v = np.asarray(value)
    name = op_name(op)
    if name in ("ADD", "FADD", "OR", "XOR"):
        return v == 0
    if name == "AND":
        return ~v == 0 if v.dtype.kind in "iu" else np.zeros(v.shape, bool)
    if name in ("UMAX", "UMIN") and v.dtype.kind in "iu":  # unsigned: 0 and all ones
        if name == "UMAX":
            return v == 0
        bits = v.view(v.dtype.str.replace("i", "u"))  # a float max with -inf (or NaN): every
        return bits >= np.asarray(_NEG_INF_BITS[v.itemsize], bits.dtype) \
            if v.itemsize in _NEG_INF_BITS else ~v == 0  # number stays as it was
    low = name == "MAX"
    if name not in ("MAX", "MIN"):
        return np.zeros(v.shape, bool)
    if v.dtype.kind == "f":
        return v == (-np.inf if low else np.inf)
    if v.dtype.kind not in "iu":
        return np.zeros(v.shape, bool)
    info = np.iinfo(v.dtype)
    same = v == (info.min if low else info.max)
    if not low and v.itemsize in _POS_INF_BITS:  # a float min with +inf, on its bits
        same |= v == _POS_INF_BITS[v.itemsize]
    return same


def watch_interpreter_memory(launched, accessed, finished=None) -> bool:
    """Under the interpreter, call `launched(tensors)` with the (name, host tensor) pairs of
    each launch's arguments before its programs run, and `accessed(kind, ptrs, mask, width)`
    before every load, store and atomic touches memory (kind "load", "store" or "atomic"; ptrs
    and mask the numpy arrays of host addresses and lanes, width the element's bytes). Every
    load and store of the interpreter (plain, block-pointer, tensor-descriptor) reaches
    InterpreterBuilder's masked load and store; the signatures after the mask differ between
    3.6 and 3.9 and are passed through. Each access also says which program made it
    (`program=`, its grid index; kind "exchange" for an atomic exchange or compare-and-swap;
    an "atomic" also says its class of op, `op=`, OP_CLASS), a "store" also gives its
    values (`values=`, the lanes' data), a read made by an atomic says so (`op="atomic"`),
    and `finished()` runs once a launch's programs are done. An atomic's returned value (the
    memory before it) is a read of that memory once the kernel uses it: a "load" of its
    lanes is reported then (red-team round 12: a running total published by one program's
    atomic_add and read by the next one's `atomic_add(slot, 1.0)` whose value it kept).
    A tl.debug_barrier is reported as kind "barrier" (no addresses).
    False where this Triton has no interpreter to watch."""
    try:
        from triton.language.semantic import TritonSemantic
        from triton.runtime.interpreter import GridExecutor, InterpreterBuilder, TensorHandle
    except ImportError:
        return False
    builder, executor = InterpreterBuilder, GridExecutor
    made: list = []  # the atomics the builder made during one atomic of triton.language
    load, store = builder.create_masked_load, builder.create_masked_store
    rmw, cas, init = builder.create_atomic_rmw, builder.create_atomic_cas, executor._init_args_hst

    def masked_load(self, ptrs, mask, *rest, **kw):
        accessed("load", ptrs.data, mask.data, _width(ptrs), program=self.grid_idx)
        return load(self, ptrs, mask, *rest, **kw)

    def masked_store(self, ptrs, value, mask, *rest, **kw):
        accessed("store", ptrs.data, mask.data, _width(ptrs), program=self.grid_idx,
                 values=value.data)
        return store(self, ptrs, value, mask, *rest, **kw)

    def atomic_rmw(self, op, ptr, val, mask, *rest, **kw):
        # an exchange overwrites whatever another program left: a store, for the race check;
        # a lane that adds 0 (ors 0, maxes with -inf, ...) changes nothing and only reads:
        # a load (red-team round 8: `tl.atomic_add(p, 0.0)` read another program's total)
        lanes = np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptr.data))
        made.append((ptr.data, lanes, _width(ptr), self.grid_idx))
        if "XCHG" in str(op):
            accessed("exchange", ptr.data, mask.data, _width(ptr), program=self.grid_idx)
        else:
            name = op_name(op)
            reads = _identity_lanes(name, val.data)
            accessed("load", ptr.data, lanes & reads, _width(ptr), program=self.grid_idx,
                     op="atomic")
            accessed("atomic", ptr.data, lanes & ~reads, _width(ptr), program=self.grid_idx,
                     op=OP_CLASS.get(name, name))
        return rmw(self, op, ptr, val, mask, *rest, **kw)

    def atomic_cas(self, ptr, *rest, **kw):
        accessed("exchange", ptr.data, None, _width(ptr), program=self.grid_idx)
        return cas(self, ptr, *rest, **kw)

    def init_args(self, args_dev, kwargs):
        args_hst, kwargs_hst = init(self, args_dev, kwargs)
        # positional arguments may be fewer than the kernel's names (defaults): zip stops
        launched([*zip(self.arg_names, args_hst, strict=False), *kwargs_hst.items()])
        return args_hst, kwargs_hst

    barrier = builder.create_barrier

    def create_barrier(self, *args, **kwargs):
        accessed("barrier", np.zeros(0, np.uint64), None, 1, program=self.grid_idx)
        return barrier(self, *args, **kwargs)

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    builder.create_atomic_rmw, builder.create_atomic_cas = atomic_rmw, atomic_cas
    builder.create_barrier = create_barrier
    executor._init_args_hst = init_args
    watched = _read_watch(TensorHandle)
    for name in ATOMICS:
        setattr(TritonSemantic, name,
                _result_watched(getattr(TritonSemantic, name), made, accessed, watched))
    if finished is not None:
        launch = executor.__call__

        def call(self, *args, **kwargs):
            out = launch(self, *args, **kwargs)
            finished()
            return out

        executor.__call__ = call
    return True


ATOMICS = ("atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
           "atomic_xchg")


def _result_watched(method, made: list, accessed, watched):
    """triton.language's atomic, its result's data watched: read by the kernel (an
    arithmetic op, a comparison, a store of it), its lanes are reported read."""
    def call(self, *args, **kwargs):
        made.clear()
        result = method(self, *args, **kwargs)
        atomics = list(made)

        def used() -> None:
            for ptrs, lanes, width, program in atomics:
                accessed("load", ptrs, lanes, width, program=program, op="atomic")

        result.handle = watched(result.handle, used)
        return result

    return call


def _read_watch(handle_class):
    """A TensorHandle whose data, read the first time, calls `used` first: the value of an
    atomic that the kernel's code reads (triton.language's own work on it is done by then)."""
    class Watched(handle_class):
        def __init__(self, handle, used):  # no dataclass init: its check would read the data
            self._data, self.dtype, self.attr, self._used = \
                handle.data, handle.dtype, handle.attr, used

        @property
        def data(self):
            used, self._used = self._used, None
            if used is not None:
                used()
            return self._data

        @data.setter
        def data(self, value):
            self._data = value

    return Watched


def fix_interpreter_bf16() -> bool:
    """The interpreter keeps bf16 values as their uint16 bits, and computed with those bits
    as a GPU does not, so a correct bf16 kernel was judged `incorrect` on the CPU:

    - its tl.dot multiplied the bits as integers (Triton 3.6: a 16x32 @ 32x16 product off by
      5e10). bf16 operands are widened to fp32 first: exact (bf16 is fp32's top half), and
      what a GPU's bf16 MMA does (exact products, fp32 sums);
    - its cast to bf16 (`.to(tl.bfloat16)`, a store into a bf16 tensor) truncated the
      mantissa (3.6 and 3.9), where a GPU's `cvt.rn` rounds to nearest even: a DiT
      modulation's bf16 output erred 3.5 times the reference's own error and failed on some
      seeds. Casts to bf16 round to nearest even, those from
      bf16 to any other type read the value, not its bits; a cast that asks for rounding
      toward zero keeps the interpreter's own.

    False where this Triton has no interpreter."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import InterpreterBuilder, TensorHandle
    except ImportError:
        return False

    def widened(handle):
        data = np.asarray(handle.data)
        if handle.dtype.scalar != tl.bfloat16 or data.dtype != np.uint16:
            return handle  # a Triton that keeps bf16 otherwise computes it as it does
        bits = data.astype(np.uint32) << np.uint32(16)
        return TensorHandle(bits.view(np.float32), tl.float32)

    def rounded(data) -> TensorHandle:
        """fp32 (or wider, or integer: through fp32) to bf16 bits, rounded to nearest even,
        in NumPy: torch here would be a candidate's forward using torch (the worker's guard)."""
        bits = np.asarray(data).astype(np.float32).view(np.uint32).astype(np.uint64)
        out = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        nan = np.isnan(np.asarray(data, dtype=np.float32))
        out[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)  # stays a (quiet) NaN
        return TensorHandle(out, tl.bfloat16)

    def convert(original):
        def cast(self, src, dst_type, *rounding):
            if rounding and "RTZ" in str(rounding[0]):  # asked for: the interpreter's own
                return original(self, src, dst_type, *rounding)
            into, wide = dst_type.scalar, widened(src)
            if into == tl.bfloat16 and src.dtype.scalar != tl.bfloat16:
                return rounded(wide.data)
            if wide is not src and into == tl.float32:
                return wide
            return original(self, wide, dst_type, *rounding)
        return cast

    dot = InterpreterBuilder.create_dot

    def create_dot(self, a, b, *rest, **kw):
        return dot(self, widened(a), widened(b), *rest, **kw)

    InterpreterBuilder.create_dot = create_dot
    # create_fp_trunc, create_fp_ext and the int casts are lambdas calling self.cast_impl
    InterpreterBuilder.cast_impl = convert(InterpreterBuilder.cast_impl)
    InterpreterBuilder.create_fp_to_fp = convert(InterpreterBuilder.create_fp_to_fp)
    return True


def emulate_interpreter_tf32() -> bool:
    """A GPU's fp32 `tl.dot` runs at the precision Triton chose for it (`input_precision`, or
    `allow_tf32`, or the `fp32_default` knob, or the backend's default "tf32"); the
    interpreter multiplied exactly whatever it chose, so a strict-fp32 task passed on the CPU
    a kernel whose products a GPU rounds to TF32, by any route that reaches the knob (red-team
    round 2: a knob set through a function parameter). Here fp32 operands are rounded as the
    GPU rounds them: to TF32 (10-bit mantissa, to nearest with ties away from zero, as
    `cvt.rna.tf32.f32`), and "tf32x3" as three TF32 products (big·big + big·small +
    small·big, Triton's split). "ieee" stays exact. The worker installs it for tasks that do
    not allow TF32 (their reference is strict); False where there is no interpreter."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import InterpreterBuilder, TensorHandle
    except ImportError:
        return False
    dot = InterpreterBuilder.create_dot

    def tf32(data):
        bits = np.asarray(data, dtype=np.float32).view(np.uint32)
        finite = np.isfinite(np.asarray(data, dtype=np.float32))
        rounded = np.where(finite, (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000), bits)
        return rounded.astype(np.uint32).view(np.float32)

    def create_dot(self, a, b, d, precision, *rest):
        mode = getattr(precision, "name", str(precision)).upper()
        if a.dtype.scalar != tl.float32 or b.dtype.scalar != tl.float32 or "TF32" not in mode:
            return dot(self, a, b, d, precision, *rest)
        big_a, big_b = tf32(a.data), tf32(b.data)
        out = np.matmul(big_a, big_b, dtype=np.float32)
        if mode == "TF32X3":
            small_a, small_b = tf32(a.data - big_a), tf32(b.data - big_b)
            out = np.matmul(small_a, big_b, dtype=np.float32) \
                + np.matmul(big_a, small_b, dtype=np.float32) + out
        return TensorHandle(out.astype(d.data.dtype) + d.data, d.dtype.scalar)

    InterpreterBuilder.create_dot = create_dot
    return True


def interpret_programs_in_any_order() -> bool:
    """A GPU runs the programs of one launch at once, in no order; the interpreter ran them one
    after another in grid order, so a kernel whose program j read what program j-1 had
    stored (a cumsum carrying the previous block's total: red-team round 3) was exact on the
    CPU and a race on a GPU. Here each launch's programs run in a fresh random order (the
    grid is visited as before, each index mapped through a permutation drawn from the OS), so
    an order-dependent kernel gives wrong results on the CPU as well. False where there is no
    interpreter."""
    try:
        import numpy as np
        from triton.runtime.interpreter import InterpreterBuilder
    except ImportError:
        return False
    set_dim, set_idx = InterpreterBuilder.set_grid_dim, InterpreterBuilder.set_grid_idx
    orders: dict[int, tuple] = {}  # builder -> (grid, permutation of its flat indices)

    def set_grid_dim(self, nx, ny, nz):
        set_dim(self, nx, ny, nz)
        rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
        orders[id(self)] = ((nx, ny, nz), rng.permutation(nx * ny * nz))

    def set_grid_idx(self, x, y, z):
        (_, ny, nz), order = orders[id(self)]
        flat = int(order[(x * ny + y) * nz + z])
        set_idx(self, flat // (ny * nz), flat // nz % ny, flat % nz)

    InterpreterBuilder.set_grid_dim, InterpreterBuilder.set_grid_idx = set_grid_dim, set_grid_idx
    return True


def hide_interpreter_values() -> bool:
    """str(), repr() and "%s" % of a kernel's block say its type, as they do when a GPU's
    compiler meets them, not its data: Triton's interpreter prints the NumPy array, so
    `"%s" % block` gave host Python the numbers to compute on (red-team round 10, a ReLU
    parsed back from text). False where there is no interpreter to patch."""
    try:
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    patch = getattr(interpreter, "_patch_lang_tensor", None)
    if patch is None or getattr(patch, "_warpsmith_hidden", False):
        return patch is not None
    described = tl.core.tensor.__str__  # the compiler's: dtype and shape

    def _patch_lang_tensor(tensor, *rest):
        patch(tensor, *rest)
        scope = rest[0] if rest and hasattr(rest[0], "set_attr") else None
        for name in ("__str__", "__repr__"):
            if scope is not None:
                scope.set_attr(tensor, name, described)
            else:
                setattr(tensor, name, described)

    _patch_lang_tensor._warpsmith_hidden = True
    interpreter._patch_lang_tensor = _patch_lang_tensor
    return True


# libdevice functions the interpreter can run, by what numpy computes in float64 (the GPU's
# libdevice is within an ulp or two of that; numpy, not torch: the worker's guard takes torch
# ops in forward for the candidate's). Triton's interpreter runs none: the stubs of
# triton.language.extra.libdevice return None, so an honest GELU through libdevice.erf was a
# runtime_error on the CPU (an outside helper writing kernels as LLMs do, 2026-12-06).
_ELEMENTWISE = np.vectorize  # for math's functions numpy lacks (erf, lgamma): small shapes
LIBDEVICE = {
    "erf": _ELEMENTWISE(math.erf, otypes=[np.float64]),
    "erfc": _ELEMENTWISE(math.erfc, otypes=[np.float64]),
    "lgamma": _ELEMENTWISE(math.lgamma, otypes=[np.float64]),
    "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "exp10": lambda x: np.power(10.0, x),
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
    "sqrt_rn": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "rcp_rn": np.reciprocal,
    "cbrt": np.cbrt, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "nearbyint": np.rint, "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "fabs": np.abs, "pow": np.power, "powf": np.power, "pow_rn": np.power,
    "div_rn": np.divide, "fmod": np.fmod, "fmin": np.fmin, "fmax": np.fmax,
    "hypot": np.hypot, "copysign": np.copysign, "fma": lambda a, b, c: a * b + c,
    "isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit, "isfinited": np.isfinite,
    "finitef": np.isfinite}


def emulate_interpreter_libdevice() -> bool:
    """Under the interpreter, the libdevice functions in LIBDEVICE compute (elementwise, in
    float64, cast back to the argument's type) in both of Triton's libdevice modules. False
    where this Triton has neither."""
    import importlib

    try:
        from triton.runtime.interpreter import TensorHandle
    except ImportError:
        return False
    modules = []
    for name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            continue
    for module in modules:
        for name, fn in LIBDEVICE.items():
            if hasattr(module, name):
                setattr(module, name, _libdevice_call(name, fn, TensorHandle))
    return bool(modules)


def _libdevice_call(name: str, fn, handle_class):
    import triton.language as tl

    def call(*args, _semantic=None, _builder=None):
        tensors = [a for a in args if isinstance(a, tl.tensor)]
        if not tensors:
            raise TypeError(f"libdevice.{name} was called with no tensor")
        like = max(tensors, key=lambda t: np.asarray(t.handle.data).size)
        for t in tensors:  # libdevice's float functions have fp32 and fp64 forms only: a GPU
            # refuses an fp16 argument at compile time (round 9 passed one on the CPU)
            if t.dtype.scalar not in (tl.float32, tl.float64) or t.type != tensors[0].type:
                raise TypeError(f"libdevice.{name} takes fp32 or fp64 values of one shape, "
                                f"not {t.type}")
        values = [np.asarray(a.handle.data) if isinstance(a, tl.tensor)
                  else np.asarray(_scalar(name, getattr(a, "value", a))) for a in args]
        with np.errstate(all="ignore"):  # NaN and inf come out as the GPU's do
            out = np.asarray(fn(*(v.astype(np.float64) if v.dtype.kind == "f" else v
                                  for v in values)))
        if out.dtype == np.bool_:
            ty = tl.block_type(tl.int1, like.type.shape) if like.type.is_block() else tl.int1
            return tl.tensor(handle_class(out, tl.int1), ty)
        data = np.asarray(like.handle.data)
        return tl.tensor(handle_class(out.astype(data.dtype), like.handle.dtype), like.type)

    call.__name__ = call.__qualname__ = name
    return call


def _scalar(name: str, value):
    """A plain number beside the tensors (`libdevice.pow(x, 2.0)`); nothing else is read."""
    if type(value) not in (int, float, bool):
        raise TypeError(f"libdevice.{name} takes tensors and numbers, not {type(value).__name__}")
    return value


def refuse_host_functions_in_launches() -> bool:
    """A kernel calls what its arguments hand it: a @triton.jit function passed as a constexpr
    (an activation, a combine function) compiles on a GPU as kernel code; a plain Python
    function (math.exp, a helper that reads a value's data with str()) ran under the
    interpreter as host Python on the values, exactly, where a GPU's compiler would have
    refused it or run it on compile-time values only; an object of the candidate's own class
    whose method is named like a tensor's (`H.softmax(x)`) is the same (red-team round 6).
    Here every interpreted launch refuses an argument, or a parameter's default, that is not
    data (tensors, numbers, strings, dtypes, descriptors), a kernel, or triton.language's own
    (inside tuples and lists too, and inside a constexpr). False where there is no
    interpreter."""
    try:
        import torch
        import triton.language as tl
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:
        return False
    launch = InterpretedFunction.run
    # Triton's own functions, by identity (a candidate's function can claim any __module__)
    own = {id(v) for m in (tl, tl.core, tl.math, tl.standard) for v in vars(m).values()}
    # what a kernel's arguments are made of; an instance of any other class (a candidate's
    # object whose method is named like tl.tensor's) is host Python as well
    plain = {int, float, bool, str, bytes, type(None)}
    # dtypes and descriptors by their exact classes, listed before any candidate loads: a
    # subclass of tl.dtype made by the candidate carried a method running host Python (round 8)
    exact = {torch.dtype, *_descriptor_classes(), *(
        c for c in vars(tl.core).values() if isinstance(c, type) and issubclass(c, tl.dtype))}

    def run(self, *args, **kwargs):
        fn = python_function(self)
        given = [*args, *(v for k, v in kwargs.items() if k != "grid"),  # the grid's own
                 *(getattr(fn, "__defaults__", None) or ()),
                 *(getattr(fn, "__kwdefaults__", None) or {}).values()]
        for value in _flat(given):
            # the exact type: an int subclass of the candidate's carries its own methods (C07)
            if not (type(value) in plain or type(value) in exact or
                    isinstance(value, torch.Tensor) or
                    type(value) is InterpretedFunction or id(value) in own):
                raise TypeError(
                    f"kernel {getattr(fn, '__name__', '?')} was handed {type(value).__name__} "
                    f"{str(value)[:40]!r}: an interpreted kernel may be handed only tensors, "
                    "numbers, strings, dtypes, tensor descriptors, @triton.jit functions and "
                    "triton.language's own; a Python function or object runs as host Python "
                    "on the CPU, which the verifier cannot tell from GPU code")
        return launch(self, *args, **kwargs)

    InterpretedFunction.run = run
    return True


def _descriptor_classes() -> tuple[type, ...]:
    """Triton's host-side tensor descriptors (TMA), where this Triton has them."""
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        return ()
    return (TensorDescriptor,)


def refuse_run_time_constexprs() -> bool:
    """A @triton.jit helper's `tl.constexpr` parameter takes compile-time values only: a GPU's
    compiler refuses a loaded value there. Under the interpreter the annotation was ignored,
    and the scan, which lets a helper compute on its constexpr parameters with host Python
    (`math.tanh(v)` folds at compile time on a GPU), was told the value was compile-time
    while it was a loaded block (red-team round 12: a sigmoid computed on the host through
    `math.ldexp` reading the block's value). Here a block handed to such a parameter of a
    device-function call is refused. False where there is no interpreter."""
    try:
        import triton.language as tl
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:
        return False
    call = InterpretedFunction.__call__

    def checked(self, *args, **kwargs):
        fn = python_function(self)
        for name in _constexpr_parameters(fn):
            value = _argument(fn, name, args, kwargs)  # a tuple of blocks is no better
            if any(isinstance(v, tl.tensor) for v in _flat([value])):
                raise TypeError(
                    f"{getattr(fn, '__name__', '?')}() was handed a run-time value for its "
                    f"tl.constexpr parameter {name!r}: a GPU's compiler refuses it (pass a "
                    "compile-time value, or drop the annotation)")
        return call(self, *args, **kwargs)

    InterpretedFunction.__call__ = checked
    return True


@functools.cache
def _constexpr_parameters(fn) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in parameters if "constexpr" in str(p.annotation))


def _argument(fn, name: str, args: tuple, kwargs: dict):
    if name in kwargs:
        return kwargs[name]
    names = list(inspect.signature(fn).parameters)
    at = names.index(name)
    return args[at] if at < len(args) else None


def _flat(values, depth: int = 4):
    """The values, with tuples, lists and constexprs opened (a few levels deep)."""
    for value in values:
        value = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
        if isinstance(value, tuple | list) and depth:
            yield from _flat(value, depth - 1)
        else:
            yield value


def harden_interpreter_rewriter() -> bool:
    """Two doors Triton 3.6's interpreter opened into the candidate's process (issue 31,
    red-team round of 2026-12-05), closed before any candidate is imported:

    - its FunctionRewriter copied every global of triton/runtime/interpreter.py (`inspect`,
      `np`, `sys` through them) into the kernel's module at the first launch, where code the
      scan never saw named them; only the names its rewrite itself writes into the kernel
      (`interpreter_semantic`; 3.9 adds `_InterpreterComparison`) are added now;
    - it compiled the kernel's source from the LAST line that starts with "def ", which may sit
      inside a string literal in the kernel's body (code the scan sees as a string), and a
      first-"def "-line rule takes one inside a decorator's string argument; the def line and
      the function's end are taken from Python's own parse of the source now.
    False where this Triton has no such rewriter (nothing to close)."""
    try:
        from triton.runtime import interpreter
    except ImportError:
        return False
    rewriter = getattr(interpreter, "FunctionRewriter", None)
    if rewriter is None or not hasattr(rewriter, "_compile_and_exec"):
        return False

    prepare = rewriter._prepare_source

    def _find_def(self, lines):
        """The def line as Python reads the source, and where the function ends: a text
        scan takes a "def " inside a decorator's string argument for it (round 2)."""
        tree = ast.parse(textwrap.dedent("".join(lines)))
        node = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(node, ast.FunctionDef) or node.name != self.fn.__name__:
            raise SyntaxError(f"the source of kernel {self.fn.__name__!r} is not one function")
        self.warpsmith_end = node.end_lineno
        return node.lineno

    def _prepare_source(self, lines):
        self.warpsmith_source = prepare(self, lines[:self.warpsmith_end])
        return self.warpsmith_source

    def _compile_and_exec(self, transformed_ast):
        code = compile(transformed_ast, filename=self.filename, mode="exec")
        namespace, fn_globals = {**self.kwargs}, self.fn.__globals__
        own = _names(ast.parse(self.warpsmith_source))
        for name in _names(transformed_ast) - own:  # what the rewrite wrote, nothing else
            if name not in fn_globals and name in vars(interpreter):
                fn_globals[name] = vars(interpreter)[name]
        exec(code, fn_globals, namespace)  # noqa: S102 - Triton's own rewrite, as before
        return namespace[self.fn.__name__]

    rewriter._find_def, rewriter._compile_and_exec = _find_def, _compile_and_exec
    rewriter._prepare_source = _prepare_source
    return True


def _names(tree) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _width(handle) -> int:
    """The bytes of one element a pointer handle points at (a pointer's own: 8)."""
    return max(1, (getattr(handle.get_element_ty(), "primitive_bitwidth", None) or 64) // 8)

"""Memory safety under the Triton interpreter (issue 31 item 5): every address a kernel loads,
stores or updates atomically, in the lanes its mask lets through, lies inside the storage of
a tensor passed to that launch, or the access is refused before it touches memory and named.

Without this an unmasked load past a tensor's end read whatever the host had there (a ReLU that
loads without a mask and stores with one `passed` every time) and an unmasked store wrote into
the interpreter's own memory: over 18 runs of one file, `crashed`, `runtime_error`,
`compile_error` or `timeout`, never a word about the access. Now both are `runtime_error`,
every run, with the argument and how far outside its storage the access fell.

A storage's bounds are the check, not the view's: a kernel handed a slice may read the rest
of its base tensor (nothing outside memory the caller owns). This runs in the candidate's
process: it judges honest mistakes deterministically, and a candidate that owns its process
can switch it off, as it could skip any computation (the trusted side's comparison is what
pays). On a GPU compiled kernels run without the interpreter: not checked there (canaries and
compute-sanitizer are the GPU's layer, not written yet).
"""

from __future__ import annotations

import numpy as np
import torch

from ...lang.triton_compat import watch_interpreter_memory

_LAUNCH: dict = {"starts": np.zeros(0, np.uint64), "ends": np.zeros(0, np.uint64),
                 "names": [], "stores": [], "loads": [], "updates": [], "programs": {},
                 "classes": [], "own": {}}


REFUSED: list[str] = []  # every refusal raised in this process, caught or not (the report's)


class Refusal(Exception):
    """Raised before the access; recorded as it is made, so a candidate that catches it (a
    `with` that suppresses, reached past the scan: red-team round 13, A10) and returns what
    its kernel wrote before the access is still judged by it (worker.py reports REFUSED)."""

    def __init__(self, message: str):
        super().__init__(message)
        if len(REFUSED) < 8:
            REFUSED.append(f"{type(self).__name__}: {message}"[:400])


class OutOfBounds(Refusal):
    """A kernel's access outside every tensor passed to its launch."""


class ProgramsRace(Refusal):
    """Two programs of one launch stored to one address, neither atomically: on a GPU they
    run at once and the result depends on which lands last (split-row partial sums with a
    plain load-add-store were exact under the interpreter, whatever the programs' order:
    red-team round 6, R01)."""


def install() -> bool:
    """Watch the interpreter's memory accesses from now on (this process only)."""
    return watch_interpreter_memory(_launched, _accessed, _finished)


def _launched(args: list) -> None:
    ranges = {}
    for name, value in args:
        for t in _tensors(value):
            # torch's own methods, not the object's: an argument that looked like a tensor
            # (data_ptr, untyped_storage) claimed a terabyte after the input and passed
            storage = torch.Tensor.untyped_storage(t)
            start = torch.UntypedStorage.data_ptr(storage)
            end = start + torch.UntypedStorage.nbytes(storage)
            ranges[start] = max(ranges.get(start, (0, ""))[0], end), name
    starts = sorted(ranges)
    _LAUNCH["starts"] = np.array(starts, dtype=np.uint64)
    _LAUNCH["ends"] = np.array([ranges[s][0] for s in starts], dtype=np.uint64)
    _LAUNCH["names"] = [ranges[s][1] for s in starts]
    _LAUNCH["stores"], _LAUNCH["loads"], _LAUNCH["updates"] = [], [], []
    _LAUNCH["programs"], _LAUNCH["classes"] = {}, []
    _own_reset(None)


def _tensors(value) -> list:
    """The real tensors of an argument: anything else grants no memory."""
    if isinstance(value, tuple | list):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, torch.Tensor):
        return [value]
    base = getattr(value, "base", None)
    return [base] if isinstance(base, torch.Tensor) else []  # a TensorDescriptor's


# where each kind of access is kept for the race check: an exchange is a store, an atomic
# update (an add, a max, ...) its own kind, an atomic that changes nothing a load
LISTS = {"load": "loads", "store": "stores", "exchange": "stores", "atomic": "updates"}
SPANNING = -2  # the storage of an access whose lanes lie in more than one


def _accessed(kind: str, ptrs, mask, width: int, program=None, op=None,
              values=None) -> None:
    """`op`: an atomic's class of op; for a "load", "atomic" where the read is an atomic's
    (its returned value, or a lane that changes nothing). `values`: a store's values."""
    if kind == "barrier":  # the program's threads wait for each other: its stores are seen
        _own_reset(program)
        return
    addresses = np.asarray(ptrs).astype(np.uint64, copy=False)
    lanes = np.arange(addresses.size).reshape(addresses.shape)
    bits = _bits(values, addresses.shape) if kind == "store" else None
    if mask is not None:
        kept = np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)
        addresses, lanes = addresses[kept], lanes[kept]
        bits = bits[kept] if bits is not None else None
    if addresses.size == 0:
        return
    if program is not None:
        _own_lanes(kind, addresses.ravel(), lanes.ravel(), program,
                   atomic_read=kind == "load" and op == "atomic",
                   bits=bits.ravel() if bits is not None else None)
    starts, ends = _LAUNCH["starts"], _LAUNCH["ends"]
    first = int(np.searchsorted(starts, addresses.min(), side="right")) - 1
    if program is not None:  # kept to find another program's at the end
        index = _LAUNCH["programs"].setdefault(program, len(_LAUNCH["programs"]))
        # an access reaching past the storage its first lane lies in is compared bytewise
        # (round 10: a wide lane whose first half fell in a scratch tensor below)
        last = int(np.searchsorted(starts, addresses.max(), side="right")) - 1
        _LAUNCH[LISTS[kind]].append((addresses.ravel(), index,
                                     (width, first if last == first else SPANNING)))
        if kind == "atomic":
            _LAUNCH["classes"].append(op)
    if first >= 0 and int(addresses.max()) + width <= int(ends[first]):
        return  # the usual case, all in one tensor: two reductions, no per-lane search
    at = np.searchsorted(starts, addresses, side="right").astype(np.int64) - 1
    end = ends[np.maximum(at, 0)] if starts.size else np.zeros(addresses.shape, np.uint64)
    # end - address, not address + width: an address near 2**64 (a negative offset) wraps
    inside = (at >= 0) & (addresses < end) & (end - addresses >= np.uint64(width))
    if not inside.all():
        raise OutOfBounds(_describe(kind, int(addresses[~inside][0]), width,
                                    int((~inside).sum()), int(addresses.size)))


def _own_reset(program) -> None:
    _LAUNCH["own"] = {"program": program, "parts": [], "merged": None, "reads": [],
                      "atomic_reads": [], "updates": [], "values": [], "sorted": {}}


def _bits(values, shape) -> np.ndarray | None:
    """A store's values as unsigned integers of their own width, one per lane (None where
    the interpreter gave none this can read)."""
    if values is None:
        return None
    v = np.asarray(values)
    if v.dtype.itemsize not in (1, 2, 4, 8) or v.dtype.kind not in "biuf":
        return None
    v = np.ascontiguousarray(np.broadcast_to(v, shape))
    return v.view(f"u{v.dtype.itemsize}").astype(np.uint64)


def _own_lanes(kind: str, addresses: np.ndarray, lanes: np.ndarray, program,
               atomic_read: bool = False, bits: np.ndarray | None = None) -> None:
    """Within one program, since its last tl.debug_barrier: a block's lanes are many threads
    on a GPU, and what one lane does to an address is not ordered before what another does
    to it; under the interpreter a block's op lands whole before the next, so each of these
    is exact here and a race there:
    - a load of an address another lane stored (red-team round 12: a scan that stored a row
      and read it back shifted) or updated atomically (round 14: a softmax denominator
      summed by every lane's atomic_add into a slot, then loaded);
    - a store or an atomic update of an address another lane read (round 14: a scan with a
      barrier before each shifted load but none before the store that overwrote what
      other lanes had still to read);
    - a store of an address another lane updated atomically, an atomic update of one another
      lane stored (round 14: a row's first element stored into its sum's slot, the other
      lanes' atomic_adds after it), and two lanes storing different values to one address,
      in one store or two (round 14: 2*BLOCK lanes onto BLOCK addresses, the upper lane's
      value landing last in the interpreter's order).
    An atomic's own read (its returned value) is atomic with the others' updates; lanes that
    store the same value to one address agree, whichever lands last."""
    own = _LAUNCH["own"]
    if own.get("program") != program:
        _own_reset(program)
        own = _LAUNCH["own"]
    if kind == "load":
        _raw(own, addresses, lanes, program)
        if not atomic_read:
            _conflict(own, "updates", addresses, lanes, program,
                      "loads an address ({}) in lane {} of its block that lane {} updated "
                      "atomically")
        _add(own, "atomic_reads" if atomic_read else "reads", addresses, lanes)
        return
    _conflict(own, "reads", addresses, lanes, program,
              "overwrites an address ({}) in lane {} of its block that lane {} read")
    if kind == "atomic":
        _conflict(own, "stores", addresses, lanes, program,
                  "updates an address ({}) atomically in lane {} of its block that lane {} "
                  "stored")
        _add(own, "updates", addresses, lanes)
        return
    if kind == "store":  # an exchange is atomic with the others' atomics
        _conflict(own, "atomic_reads", addresses, lanes, program,
                  "overwrites an address ({}) in lane {} of its block that lane {} read "
                  "atomically")
        _conflict(own, "updates", addresses, lanes, program,
                  "stores to an address ({}) in lane {} of its block that lane {} updated "
                  "atomically")
        if bits is not None:
            _two_values(own, addresses, lanes, bits, program)
    own["parts"].append((addresses, lanes))  # a store, or an exchange (a store that reads)
    own["merged"] = None
    own["sorted"].pop("stores", None)


def _add(own: dict, which: str, addresses: np.ndarray, lanes: np.ndarray) -> None:
    own[which].append((addresses, lanes))
    own["sorted"].pop(which, None)


def _raw(own: dict, addresses: np.ndarray, lanes: np.ndarray, program) -> None:
    """A load of an address whose latest store (since the barrier) came from another lane."""
    if not own["parts"]:
        return
    if own["merged"] is None:  # the latest store of an address last among its equals
        stored = np.concatenate([a for a, _ in own["parts"]])
        order = np.argsort(stored, kind="stable")
        own["merged"] = stored[order], np.concatenate([lane for _, lane in own["parts"]])[order]
    stored, stored_lanes = own["merged"]
    at = np.searchsorted(stored, addresses, side="right") - 1
    found = at >= 0
    at = np.maximum(at, 0)
    other = found & (stored[at] == addresses) & (stored_lanes[at] != lanes)
    if other.any():
        i = int(np.argmax(other))
        raise ProgramsRace(
            f"a program ({program}, grid indices) loads an address ({_where(int(addresses[i]))})"
            f" in lane {int(lanes[i])} of its block that it stored from lane "
            f"{int(stored_lanes[at[i]])}, with no tl.debug_barrier between: on a GPU the "
            "lanes are different threads and the load may run before the store lands")


def _by_address(own: dict, which: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The program's accesses of one kind since its barrier, sorted by address then lane."""
    parts = own["parts"] if which == "stores" else own[which]
    if not parts:
        return None
    if which not in own["sorted"]:
        addresses = np.concatenate([p[0] for p in parts])
        lanes = np.concatenate([p[1] for p in parts]).astype(np.int64)
        order = np.lexsort((lanes, addresses))
        own["sorted"][which] = addresses[order], lanes[order]
    return own["sorted"][which]


def _other_lane(known, addresses: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """Per queried lane, the index into `known` of an access of its address by another lane,
    or -1."""
    done, done_lanes = known
    lo = np.searchsorted(done, addresses, side="left")
    hi = np.searchsorted(done, addresses, side="right")
    some = hi > lo
    first = np.minimum(lo, done.size - 1)
    last = np.maximum(hi - 1, 0)
    return np.where(some & (done_lanes[first] != lanes), first,
                    np.where(some & (done_lanes[last] != lanes), last, -1))


def _conflict(own: dict, which: str, addresses: np.ndarray, lanes: np.ndarray, program,
              what: str) -> None:
    known = _by_address(own, which)
    if known is None:
        return
    at = _other_lane(known, addresses, lanes)
    if (at >= 0).any():
        i = int(np.argmax(at >= 0))
        raise ProgramsRace(
            f"a program ({program}, grid indices) "
            + what.format(_where(int(addresses[i])), int(lanes[i]), int(known[1][at[i]]))
            + ", with no tl.debug_barrier between: on a GPU the lanes are different threads "
            "and the order of the two is not defined")


def _two_values(own: dict, addresses: np.ndarray, lanes: np.ndarray, bits: np.ndarray,
                program) -> None:
    """Two lanes storing different values to one address, in this store or an earlier one
    since the barrier: which lands last is not defined on a GPU."""
    earlier = _by_address(own, "values")
    if earlier is None or not np.isin(addresses, earlier[0]).any():
        every = [(addresses, lanes, bits)]  # the usual case: this store's own lanes only
    else:
        every = [*own["values"], (addresses, lanes, bits)]
    a = np.concatenate([x for x, _, _ in every])
    lane = np.concatenate([y for _, y, _ in every]).astype(np.int64)
    v = np.concatenate([z for _, _, z in every])
    order = np.lexsort((v, a))
    a, lane, v = a[order], lane[order], v[order]
    same = a[1:] == a[:-1]
    if same.any():
        # per address: more than one lane and more than one value among its stores
        starts = np.flatnonzero(np.r_[True, ~same])
        lanes_lo, lanes_hi = np.minimum.reduceat(lane, starts), np.maximum.reduceat(lane, starts)
        values_lo, values_hi = v[starts], v[np.r_[starts[1:], a.size] - 1]
        bad = (lanes_lo != lanes_hi) & (values_lo != values_hi)
        if bad.any():
            g = int(np.argmax(bad))
            raise ProgramsRace(
                f"a program ({program}, grid indices) stores different values to one address "
                f"({_where(int(a[starts[g]]))}) from two lanes of its block (lanes "
                f"{int(lanes_lo[g])} and {int(lanes_hi[g])}), with no tl.debug_barrier "
                "between: on a GPU the lanes are different threads and which store lands "
                "last is not defined")
    own["values"].append((addresses, lanes, bits))
    own["sorted"].pop("values", None)


def _finished() -> None:
    """Once a launch's programs are done: an address one program stored (or exchanged) and
    another stored, read or updated atomically is a race; so is one a program read and then
    updated (a read-modify-write in two operations) while another updated it too. On a GPU
    the programs run at once; under the interpreter one after another, so a plain
    load-add-store of one address (R01), an exchange after a plain load (round 7, C03b), a
    read of what the program before took its turn from a ticket (C08), the same read made by
    an atomic that adds 0, and a running total read that way and written back by atomic_max
    (round 8) were exact here."""
    stores, loads, updates = _LAUNCH["stores"], _LAUNCH["loads"], _LAUNCH["updates"]
    classes = _LAUNCH["classes"]
    _LAUNCH["stores"], _LAUNCH["loads"], _LAUNCH["updates"] = [], [], []
    _LAUNCH["classes"] = []
    if len({index for _, index, _ in stores + loads + updates}) < 2 or not stores + updates:
        return
    stores, loads, updates = _granules(stores, loads, updates)
    if len(set(classes)) > 1:
        _mixed_updates(updates, classes)
    if stores:
        written, writer = _sorted(stores)
        clash = (written[1:] == written[:-1]) & (writer[1:] != writer[:-1])
        if clash.any():
            at = int(np.argmax(clash))
            _race(int(written[at]), int(writer[at]), int(writer[at + 1]), "store to")
        # an address has one writer here: the clash above found any second
        for other, what in ((loads, "store to and read"), (updates, "store to and update")):
            if other:
                _other_program(written, writer, *_flat(other), what)
    if updates and loads:
        # also a program that read an address and updated it apart while another updated it
        _read_of_others_updates(*_sorted(updates), *_flat(loads))


def _granules(*kinds: list) -> list[list]:
    """Accesses as the units of memory they cover, so two programs touching the same bytes
    meet at one address whatever views they used (round 9: the fp32 slot one program updated
    and an int64 view another read and wrote at 4 bytes before it never met, being compared
    by their first byte). Per storage (as an access's first address falls): its smallest
    element width where every access to it aligns to that, else single bytes. An honest
    kernel reads each tensor at one width, so nothing is expanded (expanding every access of
    a launch that mixed bf16 and fp32 tensors doubled the check's work)."""
    accesses = [a for kind in kinds for a in kind]
    if any(storage == SPANNING for _, _, (_, storage) in accesses):
        return [[(_covered(addresses, width, 1), index) for addresses, index, (width, _) in kind]
                for kind in kinds]
    unit: dict[int, int] = {}
    for _, _, (width, storage) in accesses:
        unit[storage] = min(unit.get(storage, width), width)
    for addresses, _, (width, storage) in accesses:
        u = unit[storage]
        if u > 1 and (width % u or (addresses % np.uint64(u)).any()):
            unit[storage] = 1
    return [[(_covered(addresses, width, unit[storage]), index)
             for addresses, index, (width, storage) in kind] for kind in kinds]


def _mixed_updates(updates: list, classes: list) -> None:
    """Atomic updates of two classes (an add and a max, say) at one address, from two
    programs: they do not commute, so the value left depends on the programs' order (round
    10: a total read by an add of 1 and one of -1, written back by atomic_max)."""
    addresses, programs = _flat(updates)
    order = sorted(set(classes), key=str)
    kinds = np.concatenate([np.full(a.size, order.index(c), np.int64)
                            for (a, _), c in zip(updates, classes, strict=True)])
    by_program = np.unique(np.stack([addresses, programs.astype(np.uint64)]), axis=1)
    by_class = np.unique(np.stack([addresses, kinds.astype(np.uint64)]), axis=1)
    several = np.intersect1d(_repeated(by_program[0]), _repeated(by_class[0]))
    if several.size:
        at = int(several[0])
        both = np.unique(programs[addresses == several[0]])
        _race(at, int(both[0]), int(both[1]), "update", "by atomics of kinds that do not "
              "commute (an add and a max, say)")


def _repeated(sorted_addresses: np.ndarray) -> np.ndarray:
    return np.unique(sorted_addresses[1:][sorted_addresses[1:] == sorted_addresses[:-1]])


def _covered(addresses: np.ndarray, width: int, unit: int) -> np.ndarray:
    if width == unit:
        return addresses
    steps = np.arange(0, width, unit, dtype=np.uint64)
    return (addresses[:, None] + steps[None, :]).ravel()


def _other_program(written, writer, addresses, programs, what: str) -> None:
    at = np.clip(np.searchsorted(written, addresses), 0, written.size - 1)
    other = (written[at] == addresses) & (writer[at] != programs)
    if other.any():
        i = int(np.argmax(other))
        _race(int(addresses[i]), int(writer[at[i]]), int(programs[i]), what)


def _read_of_others_updates(updated, updater, read, reader) -> None:
    """A read of an address another program updates atomically in the same launch: what it
    sees depends on whether that update has landed yet (round 11: each program published its
    running total with atomic_add into a zeroed slot and the next ticket's program read it
    with a plain load, exact one program at a time)."""
    pairs = np.unique(np.stack([updated, updater.astype(np.uint64)]), axis=1)
    address, who = pairs[0], pairs[1].astype(np.int64)
    lo = np.searchsorted(address, read, side="left")
    count = np.searchsorted(address, read, side="right") - lo
    first = who[np.minimum(lo, address.size - 1)]
    other = (count >= 2) | ((count == 1) & (first != reader))
    if other.any():
        k = int(np.argmax(other))
        j = int(lo[k]) + int(first[k] == reader[k])  # an updater that is not the reader
        _race(int(read[k]), int(who[j]), int(reader[k]), "update and read",
              "with the read made by a plain load or by using an atomic's returned value")


def _sorted(accesses: list) -> tuple[np.ndarray, np.ndarray]:
    addresses, programs = _flat(accesses)
    order = np.lexsort((programs, addresses))
    return addresses[order], programs[order]


def _flat(accesses: list) -> tuple[np.ndarray, np.ndarray]:
    return (np.concatenate([a for a, _ in accesses]),
            np.concatenate([np.full(a.size, i, np.int64) for a, i in accesses]))


def _race(address: int, first: int, second: int, what: str,
          how: str = "with no single atomic doing it") -> None:
    names = {i: p for p, i in _LAUNCH["programs"].items()}
    raise ProgramsRace(
        f"two programs of one launch ({names[first]} and {names[second]}, grid indices) "
        f"{what} the same address ({_where(address)}) {how}: on a "
        "GPU they run at once and the value depends on their timing (use one tl.atomic_add "
        "per update, or give each program its own output)")


def _where(address: int) -> str:
    starts, names = _LAUNCH["starts"], _LAUNCH["names"]
    at = int(np.searchsorted(starts, address, side="right")) - 1
    return f"byte {address - int(starts[at])} of `{names[at]}`" if at >= 0 else "memory"


def _describe(kind: str, address: int, width: int, bad: int, total: int) -> str:
    starts, ends, names = _LAUNCH["starts"], _LAUNCH["ends"], _LAUNCH["names"]
    where = "no tensor was passed to the launch"
    if len(names):
        gaps = [(int(s) - address, f"{int(s) - address} bytes before the start of `{n}`")
                if address < int(s) else
                (address + width - int(e), f"{address + width - int(e)} bytes past the end of "
                 f"`{n}` ({int(e) - int(s)} bytes)")
                for s, e, n in zip(starts, ends, names, strict=True)]
        where = min(gaps)[1]
    verb = {"load": "loads from", "store": "stores to", "atomic": "updates"}[kind]
    return (f"out-of-bounds {kind}: the kernel {verb} memory outside every tensor passed to "
            f"it ({bad} of {total} unmasked lanes; the first is {where}); mask the access "
            f"(tl.load/tl.store(..., mask=offsets < n))")

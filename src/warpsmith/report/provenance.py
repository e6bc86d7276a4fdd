"""Where a bench's numbers come from, and whether two benches may be compared.

The environment is read from the verdicts themselves (each records the versions, the device
and the GPU it was made with), not from the machine that renders the report: a report
rendered on a laptop of a bench run on an H200 must name the H200. A field the verdicts do not
record is None, shown as "not recorded", never guessed.
"""

from __future__ import annotations

from ..bench.store import Item

# (key in the report, label, key in Verdict.environment); verdicts made before the verifier
# recorded the NVIDIA driver (2026-12-01) have none: the report says "not recorded"
FIELDS = (("gpu", "GPU", "gpu"), ("driver", "driver", "driver"), ("cuda", "CUDA", "cuda"),
          ("torch", "torch", "torch"), ("triton", "Triton", "triton"),
          ("python", "Python", "python"), ("warpsmith", "warpsmith", "warpsmith"),
          ("verifier", "verifier", "verifier"), ("sandbox", "sandbox", "sandbox"))
NOT_RECORDED = "not recorded"
# generators that ask no model: their cost is not $0 of something, there is nothing to price
MODEL_FREE = ("library", "dir", "reference", "tune")


def environment(items: list[Item]) -> dict:
    """Each field's value over the verdicts of the bench; several values (a bench resumed
    after an upgrade) are all listed, joined by " + ", so no mix hides behind one name."""
    envs = [i.verdict.environment for i in items if i.verdict is not None]
    return {key: _join(env.get(src) for env in envs) for key, _, src in FIELDS}


def _join(values) -> str | None:
    seen = sorted({str(v) for v in values if v not in (None, "")})
    return " + ".join(seen) if seen else None


def model_free(generator: str) -> bool:
    return generator.split(":", 1)[0] in MODEL_FREE


def rows(bench: dict) -> list[tuple[str, str]]:
    """The environment block as (label, value) rows, the profile with them."""
    env = bench.get("environment") or {}
    out = [(label, env.get(key) or NOT_RECORDED) for key, label, _ in FIELDS]
    return out + [("device", bench["device"]), ("profile", bench["profile"])]


def caption(bench: dict) -> str:
    """What the environment block rests on: the verdicts, or, for a report whose JSON was
    written before reports carried it (warpsmith before 2026-12-01), nothing at all."""
    if any((bench.get("environment") or {}).values()):
        return ("As the verdicts recorded it; several values joined by “+” mean the bench "
                "mixed them (a resumed bench after an upgrade).")
    return ("Not recorded: this report was rendered from a JSON report written before reports "
            "carried the verdicts' environment, or from verdicts that predate it. Render it "
            "again from the bench's store (warpsmith report BENCH_ID --db STORE) or from a new "
            "bench; the versions are not guessed from the machine rendering it.")


def mismatches(a: dict, b: dict) -> list[str]:
    """What makes two reports' numbers not comparable, one sentence each; [] when they are.
    `a` and `b` are full reports (bench, tasks)."""
    out = _task_set(a, b)
    ba, bb = a["bench"], b["bench"]
    if ba["device"] != bb["device"]:
        out.append(f"different devices: A ran on {ba['device']}, B on {bb['device']}")
    for key, label in (("gpu", "GPUs"), ("verifier", "verifier versions")):
        va, vb = (r.get("environment", {}).get(key) for r in (ba, bb))
        if va != vb:
            out.append(f"different {label}: A {va or NOT_RECORDED}, B {vb or NOT_RECORDED}")
    if ba["profile"] != bb["profile"]:
        out.append(f"different verify profiles: A {ba['profile']}, B {bb['profile']}")
    return out


def _task_set(a: dict, b: dict) -> list[str]:
    ta, tb = ({r["task"] for r in x["tasks"]} for x in (a, b))
    if ta == tb:
        return []
    return [f"different task sets: A has {len(ta)} tasks, B {len(tb)}, {len(ta & tb)} in both "
            f"({len(ta - tb)} only in A, {len(tb - ta)} only in B); the overall metrics are "
            "over different tasks"]

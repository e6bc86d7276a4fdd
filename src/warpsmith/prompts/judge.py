"""The judge's prompt, the coder's follow-up that carries the judge's one change, and
reading that change back out of the judge's answer, as judges really write them: a JSON
object (fenced or bare, maybe after <think> reasoning), labelled lines, or plain prose.

The judge's texts live here rather than in templates.py because only the judge strategy
sends them; the parts shared with the coder (hardware card, floor, feedback) come from
build.py and feedback.py unchanged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..types import Task, Verdict
from .build import Prompt, floor_text, refine_prompt
from .extract import fenced_blocks, split_reasoning
from .feedback import render_feedback
from .hardware import hardware_card
from .templates import LANGUAGE_NAMES

JUDGE_SYSTEM = """\
You are the judge in a coder–judge pair that writes {language_name} GPU kernels. You do not \
write the kernel. You read the coder's latest attempt, what the verifier found (correctness, \
timings, the fraction of the roofline floor) and hardware metrics, and you name exactly one \
change, the one with the most impact, for the coder to make next. When the kernel is wrong or \
does not build, the change fixes the cause; when it is correct, the change removes the main \
bottleneck the numbers show."""

JUDGE_TASK = """\
# The task: {task_name}

The coder must replace this PyTorch reference with {language_name} kernels that give the \
same results, faster (dtype {dtype}).

```python
{reference}
```"""

JUDGE_ATTEMPT = """\
## The coder's latest attempt{label}

```python
{source}
```

## What the verifier found

{feedback}"""

JUDGE_METRICS = """\
## Hardware metrics (source: {source})

{body}"""

JUDGE_ANSWER = """\
## Your answer

Reply with one JSON object and nothing after it:

```json
{"bottleneck": "what limits this kernel now, citing the numbers above (at most 40 words)",
 "change": "the one concrete change the coder should make next (at most 60 words)"}
```

Name one change, not a list, and make it specific to this code (which loop, which block \
size, which load or store), not general advice."""

CODER_ADVICE = """\
## The judge's advice

A reviewer read your previous attempt, its verdict and {evidence}, and names one change to \
make next:

Change: {change}{bottleneck}

Make this change first, keep what already works, and send the whole file."""

SOURCE_NAMES = {"ncu": "Nsight Compute counters", "roofline": "timing and roofline analysis"}

# What each curated ncu metric means, as a kernel writer would say it.
LABELS = {
    "gpu__time_duration.sum": "duration",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed":
        "memory throughput, % of peak",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM (compute) throughput, % of peak",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM throughput, % of peak",
    "dram__bytes_read.sum": "DRAM bytes read",
    "dram__bytes_write.sum": "DRAM bytes written",
    "lts__t_sector_hit_rate.pct": "L2 hit rate",
    "l1tex__t_sector_hit_rate.pct": "L1 hit rate",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical occupancy",
    "launch__registers_per_thread": "registers per thread",
    "launch__block_size": "threads per block",
    "launch__waves_per_multiprocessor": "waves per SM",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue slots busy",
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct":
        "warps stalled on global/local memory (long scoreboard)",
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct":
        "warps stalled on shared memory or special math (short scoreboard)",
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct": "warps stalled at barriers",
    "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct":
        "warps stalled on a full shared-memory/MIO queue",
    "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct":
        "warps stalled on a full global load/store queue",
    "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct":
        "warps stalled on a busy math pipe",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum":
        "shared-memory bank conflicts, loads",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum":
        "shared-memory bank conflicts, stores",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": "tensor pipe busy",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA (fp32) pipe busy",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct":
        "global-load efficiency (share of each 32-byte sector fetched that is used; plain "
        "loads only, cp.async and TMA loads are not counted)",
}
MAX_KERNELS = 4  # launches shown, longest first
MAX_CHANGE_CHARS = 800
CHANGE_KEYS = ("change", "modification", "fix", "plan", "optimization", "optimisation",
               "method", "suggestion", "recommendation")
DIAGNOSIS_KEYS = ("bottleneck", "diagnosis", "problem", "issue", "analysis")
LABELLED = re.compile(r"^[\s>*_#-]*(?P<key>[a-z ]+?)[\s*_]*[:：][\s*_]*(?P<value>.+)$",
                      re.IGNORECASE | re.MULTILINE)


# --- the judge's prompt ---

def judge_prompt(task: Task, source: str, verdict: Verdict, metrics: dict,
                 language: str = "triton", gpu: str = "H200",
                 attempt: int | None = None) -> Prompt:
    """`metrics` is hwmetrics.HwMetrics.as_dict(): plain data, so prompts need no search."""
    name = LANGUAGE_NAMES[language]
    label = f" (attempt {attempt})" if attempt is not None else ""
    sections = [
        JUDGE_TASK.format(task_name=task.title, language_name=name, dtype=task.dtype,
                          reference=task.source.strip()),
        hardware_card(gpu), floor_text(task, gpu),
        JUDGE_ATTEMPT.format(label=label, source=source.strip(),
                             feedback=render_feedback(verdict)),
        metrics_section(metrics), JUDGE_ANSWER]
    return Prompt(JUDGE_SYSTEM.format(language_name=name), "\n\n".join(sections))


def metrics_section(metrics: dict) -> str:
    return JUDGE_METRICS.format(source=source_line(metrics),
                                body="\n\n".join(p for p in (roofline_text(metrics["roofline"]),
                                                             kernels_text(metrics)) if p))


def source_line(metrics: dict) -> str:
    """`ncu`, or `roofline (fallback: why)`: the line that records which source was used."""
    if metrics["source"] == "ncu":
        return "ncu"
    return f"roofline (fallback: {metrics['reason']})"


def roofline_text(roof: dict) -> str:
    if "error" in roof:
        return f"No FLOP or byte count for this task ({roof['error']})."
    lines = [_work_line(roof)]
    if roof.get("timed"):
        lines.append(_speed_line(roof))
    else:
        lines.append("The candidate was not timed (it failed, or ran where nothing is timed), "
                     "so no achieved rate is known.")
    return "\n".join(f"- {line}" for line in lines)


def _work_line(r: dict) -> str:
    text = (f"At shape `{r['shape']}` the reference moves {_si(r['bytes'])}B and does "
            f"{_si(r['flops'])}FLOP")
    if r["intensity_flop_per_byte"] is not None:
        text += (f": {r['intensity_flop_per_byte']:.3g} FLOP/byte against the {r['gpu']}'s "
                 f"ridge point of {r['ridge_flop_per_byte']:.3g} FLOP/byte")
    if r["bound"] is None:
        return text + "; no floor (uncounted ops: " + ", ".join(r["uncounted_ops"]) + ")."
    kind = "memory-bound" if r["bound"] == "memory" else f"compute-bound ({r['bound']})"
    return text + f", so {kind}; the floor is {_time(r['floor_us'])}."


def _speed_line(r: dict) -> str:
    fraction = f"{r['fraction_of_floor']:.0%} of the floor, " if r["fraction_of_floor"] else ""
    return (f"The candidate took {_time(r['time_us'])} ({fraction}achieved "
            f"{r['achieved_tbs']:.3g} TB/s = {r['pct_of_bandwidth']:.0f}% of "
            f"{r['bandwidth_tbs']:g} TB/s, and {r['achieved_tflops']:.3g} TFLOP/s = "
            f"{r['pct_of_rate']:.0f}% of {r['rate_tflops']:g} TFLOP/s).")


def kernels_text(metrics: dict) -> str:
    kernels = sorted(metrics["kernels"], key=_duration, reverse=True)
    parts = [_kernel_text(k) for k in kernels[:MAX_KERNELS]]
    if len(kernels) > MAX_KERNELS:
        parts.append(f"({len(kernels)} kernel launches in all; the longest are shown)")
    return "\n\n".join(parts)


def _duration(kernel: dict) -> float:
    return kernel["values"].get("gpu__time_duration.sum") or 0.0


def _kernel_text(kernel: dict) -> str:
    lines = [f"Kernel `{kernel['name']}` (launch {kernel['id']}):"]
    # In the curated order (time, throughput, caches, occupancy, stalls, pipes), not ncu's
    # alphabetical one; a metric without a label goes last.
    order = {name: i for i, name in enumerate(LABELS)}
    for metric in sorted(kernel["values"], key=lambda m: order.get(m, len(order))):
        value, unit = kernel["values"][metric], kernel["units"].get(metric, "")
        lines.append(f"- {LABELS.get(metric, metric)}: {_value(value, unit)}")
    return "\n".join(lines)


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit in ("ns", "nsecond"):
        return _time(value / 1000)
    if unit == "byte":
        return f"{_si(value)}B"
    number = _si(value) if abs(value) >= 1e4 else f"{value:.4g}"
    return f"{number} {unit}".strip() if unit != "%" else f"{number}%"


# --- the judge's answer ---

@dataclass(frozen=True)
class Judgment:
    change: str  # "" when none could be read
    bottleneck: str = ""
    problem: str = ""  # why no change was read

    @property
    def ok(self) -> bool:
        return bool(self.change)


def parse_judgment(answer: str) -> Judgment:
    _, text, _ = split_reasoning(answer.replace("\r\n", "\n"))
    for obj in _json_objects(text):
        change = _field(obj, CHANGE_KEYS)
        if change:
            return Judgment(_clip(change), _clip(_field(obj, DIAGNOSIS_KEYS)))
    labelled = _labelled(text)
    if labelled.get("change"):
        return Judgment(_clip(labelled["change"]), _clip(labelled.get("bottleneck", "")))
    prose = text.strip()
    if not prose:
        return Judgment("", problem="the judge's answer was empty")
    return Judgment(_clip(prose))


def _json_objects(text: str) -> list[dict]:
    """Fenced blocks first, then every bare {...} that parses, in order."""
    texts = [b.code for b in fenced_blocks(text)] + [text]
    decoder, found = json.JSONDecoder(), []
    for chunk in texts:
        for start in (m.start() for m in re.finditer(r"\{", chunk)):
            try:
                obj, _ = decoder.raw_decode(chunk, start)
            except ValueError:
                continue
            if isinstance(obj, dict):
                found.append(obj)
    return found


def _field(obj: dict, keys: tuple[str, ...]) -> str:
    lowered = {str(k).lower().strip(): v for k, v in obj.items()}
    for key in keys:
        value = lowered.get(key)
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value)
        if value:
            return str(value).strip()
    return ""


def _labelled(text: str) -> dict[str, str]:
    """`Change: …` and `Bottleneck: …` lines, markdown emphasis and bullets allowed."""
    out: dict[str, str] = {}
    for m in LABELLED.finditer(text):
        key = m.group("key").lower().strip()
        for name, keys in (("change", CHANGE_KEYS + ("one change",)),
                           ("bottleneck", DIAGNOSIS_KEYS)):
            if key in keys and name not in out:
                out[name] = m.group("value").strip(" *_")
    return out


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHANGE_CHARS else text[:MAX_CHANGE_CHARS] + " …"


# --- the coder's follow-up ---

def coder_prompt(task: Task, previous: str, verdict: Verdict, judgment: Judgment | None,
                 metrics_source: str = "", language: str = "triton", gpu: str = "H200",
                 attempt: int | None = None) -> Prompt:
    """The refine prompt (self-contained: task, rules, previous attempt and its verdict),
    then the judge's change. Without a usable judgment it is the plain refine prompt."""
    prompt = refine_prompt(task, previous, verdict, language, gpu, attempt=attempt)
    if judgment is None or not judgment.ok:
        return prompt
    return Prompt(prompt.system, prompt.user + "\n\n" + advice_text(judgment, metrics_source))


def advice_text(judgment: Judgment, metrics_source: str = "") -> str:
    evidence = SOURCE_NAMES.get(metrics_source, "the hardware metrics")
    bottleneck = f"\nWhy: {judgment.bottleneck}" if judgment.bottleneck else ""
    return CODER_ADVICE.format(evidence=evidence, change=judgment.change, bottleneck=bottleneck)


def _time(us: float) -> str:
    return f"{us / 1000:.3g} ms" if us >= 1000 else f"{us:.3g} µs"


def _si(value: float) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:g} "

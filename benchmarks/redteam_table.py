"""Verify every red-team candidate and write the table for docs/benchmarks/redteam.md.

    python benchmarks/redteam_table.py --device cpu > /tmp/redteam.md

Each row: the exploit id, the file, the status the whole verifier gave, and the rules or
reasons that caught it. Red-team candidates must never get `passed`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from warpsmith.verify.pipeline import verify  # noqa: E402

REDTEAM = ROOT / "tests" / "kernels" / "redteam"


def field(text: str, key: str) -> str:
    match = re.search(rf"^# {key}: (.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def row(path: Path, device: str) -> str:
    text = path.read_text()
    v = verify(field(text, "task"), path, device=device)
    how = (", ".join(v.rules) or (v.reasons[0][:90] if v.reasons else "")).replace("|", "\\|")
    flag = "**PASSED: hole**" if v.passed else v.status
    exploit = field(text, "exploit").split(",")[0]
    return f"| {exploit} | `{path.name}` | {field(text, 'task')} | {flag} | {how} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    print("| exploit | candidate | task | status | caught by |")
    print("|---|---|---|---|---|")
    for path in sorted(REDTEAM.glob("*.py")):
        print(row(path, args.device), flush=True)


if __name__ == "__main__":
    main()

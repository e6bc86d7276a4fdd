import re
from pathlib import Path

import pytest

from warpsmith.store import VerdictStore

KERNELS = Path(__file__).parent.parent / "kernels"


def corpus(folder: str) -> list[Path]:
    return sorted((KERNELS / folder).glob("*.py"))


def header(path: Path, key: str) -> str:
    match = re.search(rf"^# {key}: (\S+)", path.read_text(), re.MULTILINE)
    assert match, f"{path} has no '# {key}:' line"
    return match.group(1)


@pytest.fixture
def store(tmp_path):
    s = VerdictStore(tmp_path / "verdicts.sqlite")
    yield s
    s.close()

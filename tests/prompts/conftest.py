import json
from pathlib import Path

import pytest

from warpsmith.store.sqlite import verdict_from_dict

FIXTURES = Path(__file__).parent / "fixtures"
KERNELS = Path(__file__).parent.parent / "kernels"


def recorded(name: str):
    """(task, candidate source, verdict) as the verifier produced them on the CPU."""
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    return data["task"], data["source"], verdict_from_dict(data["verdict"])


@pytest.fixture
def softmax():
    from warpsmith.tasks import resolve_task

    return resolve_task("level1/softmax")

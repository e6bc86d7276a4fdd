"""The verifier's rules in words, with the lists read from verify/static/ so the prompt and
the checks cannot drift apart."""

from __future__ import annotations

from ..errors import UsageError
from ..types import Task
from ..verify.static import base, basic
from . import templates

LANGUAGES = tuple(templates.RULES_LANGUAGE)


def check_language(language: str) -> str:
    if language not in templates.RULES_LANGUAGE:
        raise UsageError(f"unknown kernel language {language!r} (valid: {', '.join(LANGUAGES)})")
    return language


def rules_text(task: Task, language: str) -> str:
    check_language(language)
    fields = {
        "allowed": _allowed(task),
        "modules": _names(sorted(base.ALLOWED_MODULES - {"__future__"})),
        "calls": _names(f"{c}()" for c in sorted(base.FORBIDDEN_CALLS)),
        "dunders": _names(sorted(basic.ALLOWED_DUNDERS)),
        "cuda_paths": _cuda_paths(),
    }
    rules = templates.RULES_LANGUAGE[language] + templates.RULES_COMMON
    return templates.RULES_HEAD + "\n".join(f"- {r.format(**fields)}" for r in rules)


def _cuda_paths() -> str:
    paths = [templates.CUDA_PATH_LOAD_INLINE, templates.CUDA_PATH_CUPY]
    # torch's NVRTC entry is private API, offered only while the verifier exempts it.
    if getattr(basic, "NVRTC_ENTRY", None):
        paths.insert(1, templates.CUDA_PATH_NVRTC)
    return ", ".join(paths[:-1]) + " or " + paths[-1]


def _allowed(task: Task) -> str:
    if not task.allowed_torch:
        return templates.ALLOWED_NONE
    return templates.ALLOWED_SOME.format(names=_names(task.allowed_torch))


def _names(names) -> str:
    return ", ".join(f"`{n}`" for n in names)

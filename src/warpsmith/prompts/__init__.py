"""Prompts for kernel-writing models: templates, hardware cards, rules, verified examples,
verdict feedback, and getting the code back out of an answer."""

from .build import Prompt, first_prompt, follow_up, refine_prompt
from .examples import Example, example_library, pick_examples
from .extract import Extraction, extract
from .feedback import render_feedback, trim_log
from .hardware import hardware_card

__all__ = ["Example", "Extraction", "Prompt", "example_library", "extract", "first_prompt",
           "follow_up", "hardware_card", "pick_examples", "refine_prompt", "render_feedback",
           "trim_log"]

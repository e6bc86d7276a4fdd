"""Benchmarks: a suite × a generator × K samples, verified, committed item by item, resumable."""

from .generators import GENERATORS, Generator, Job, Options, Produced, make_generator
from .runner import BenchResult, BenchSettings, Progress, bench, resume
from .store import BenchRecord, BenchStore, Item

__all__ = ["GENERATORS", "BenchRecord", "BenchResult", "BenchSettings", "BenchStore",
           "Generator", "Item", "Job", "Options", "Produced", "Progress", "bench",
           "make_generator", "resume"]

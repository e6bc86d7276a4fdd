"""How each kernel language is built: cuda.py for CUDA C++ candidates, triton.py for Triton's
interpreter (the autotuner there)."""

from .triton import install_interpreter_autotune

install_interpreter_autotune()  # only under TRITON_INTERPRET=1: the candidate's CPU process

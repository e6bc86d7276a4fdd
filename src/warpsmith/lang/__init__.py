"""How each kernel language is built: cuda.py for CUDA C++ candidates."""

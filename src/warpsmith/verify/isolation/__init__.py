"""Keeping candidate code apart: the OS sandbox (jail), the processes run in it (sandbox,
sandboxed), their process tree, spares started ahead (prestart), one verification at a time on
a GPU (gpulock). Of verify/ it imports only the doors (protocol.py); imports nothing here."""

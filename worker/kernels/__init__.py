"""Kernel generation: configurations, per-arch enumeration, hardware pruning, rendering, NVRTC.

Runs without a GPU: CI compiles real variants with NVRTC on the CPU.
"""

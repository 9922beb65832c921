"""Loading and launching Kiln cubins with cuda-python alone (no host compiler, no CUTLASS headers)."""

"""System tests: real processes, real HTTP, real databases."""

"""Problem specs: what a client asks Kiln to tune, validated against whitelists.

Everything that can reach generated C++ source is an enum member or a bounded integer here;
the kernel generator only ever looks values up in tables keyed by these enums.
"""

from service.specs.conv2d import Conv2dSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import GemmSpec
from service.specs.keys import canonical_json, spec_key
from service.specs.problem import Problem, TuneRequest
from service.specs.target import Target

__all__ = ["Conv2dSpec", "Epilogue", "GemmSpec", "Problem", "Target", "TuneRequest", "canonical_json", "spec_key"]

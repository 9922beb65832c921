"""bench.sass_mix folds Nsight Compute's per-instruction source page into opcode counts."""

from __future__ import annotations

import lzma
from pathlib import Path

from bench.sass_mix import difference, opcode, read_mixes

HEADER = '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"'
PAGE = "\n".join([
    '"Kernel Name","kiln_gemm",', HEADER,
    '"0x10","@!P1  BRA 0x7fe9177a17f0","73","1,024"',
    '"0x20","HGMMA.64x128x16.F32 R24, gdesc[UR12], R24","19","15,360"',
    '"0x30","FFMA R48, RZ, R13, R48","5","401,408"',
    '"Kernel Name","nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_TNT",', HEADER,
    '"0x10","HGMMA.64x128x16.F32 R24, gdesc[UR8], R24","9","15,360"',
    '"0x20","@P3 UTMASTG.3D [UR28], [UR10]","0","25,088"',
])


def test_opcode_drops_predicates_and_modifiers() -> None:
    assert opcode("@!P1  BRA 0x7fe9177a17f0") == "BRA"
    assert opcode("@UP3  UTMASTG.3D [UR32], [UR22]") == "UTMASTG"
    assert opcode("  HGMMA.64x64x16.F32 R24, gdesc[UR12], R24") == "HGMMA"


def test_kernels_are_read_in_file_order_and_differenced(tmp_path: Path) -> None:
    path = tmp_path / "sass.csv.xz"
    with lzma.open(path, "wt") as f:
        f.write(PAGE)
    kiln, nvjet = read_mixes(path)
    assert (kiln.name, nvjet.name[:5]) == ("kiln_gemm", "nvjet")
    assert kiln.executed["FFMA"] == 401_408 and kiln.stalls["BRA"] == 73
    assert kiln.total == 1_024 + 15_360 + 401_408
    diff = dict(difference(kiln, nvjet))
    assert diff == {"FFMA": 401_408, "BRA": 1_024, "HGMMA": 0, "UTMASTG": -25_088}
    assert difference(kiln, nvjet)[0][0] == "FFMA"

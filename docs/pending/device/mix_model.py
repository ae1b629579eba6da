#!/usr/bin/env python3
"""A model of part 8's mixed walk (_mix{q}): q quarters of the SMs take the _f4w loop on FP4 blocks, the rest
the _ws loop on the rebased e4m3 copy, all from one tile walk. Each kind takes tiles at its own pace:
  - an FP4 workgroup at its measured pace (the rebase's arithmetic bounds it, not the DRAM),
  - the e4m3 workgroups at their compute pace (the _ws loop where the DRAM does not bound it: 4096 tokens) unless
    the DRAM bandwidth left after the FP4 tiles' bytes holds them back.
Inputs are main's H200 figures of session 45 (docs/results/2026-12-05-h200-f4w-1024/call5_measure_new_*.txt: in
that call the "new" arm was main); the tile counts are estimates from the routing (96 experts, binomial rows).
Prints the model's time for q = 0 (every SM on the e4m3 copy), 1, 2, 3 and 4 (every SM on FP4 blocks) beside the
measured ends.
    python3 docs/pending/device/mix_model.py
"""
SMS = 132
DRAM = 4.0e6  # bytes a microsecond the _ws loop reached where the DRAM bound it (3.97-4.18 TB/s)

# case: tiles, e4m3 / FP4 bytes a tile, e4m3 tile time of an SM with the DRAM not binding (from 4096 tokens),
# measured _ws and _f4w times (µs)
CASES = {
    # stage 1, 2048 tokens, t128x256: ~98 row tiles x 18 N tiles; 256 rows x 5120 bytes; FP4 blocks 0.531 B
    "stage 1 t128x256, 2048 tokens": dict(tiles=98 * 18, b8=256 * 5120, b4=256 * 5120 * 0.531,
                                          t8=914.46 * SMS / (195 * 18), ws=569.14, f4w=657.92),
    # stage 1, 1024 tokens, t64x256: ~101 row tiles of 64 x 18
    "stage 1 t64x256, 1024 tokens": dict(tiles=101 * 18, b8=256 * 5120, b4=256 * 5120 * 0.531,
                                         t8=1206.14 * SMS / (368 * 18), ws=536.21, f4w=503.25),
    # stage 2 atomic, 2048 tokens, t128x256: 20 N tiles of 256 over model_dim 5120, K 2304
    "stage 2 t128x256 atomic, 2048 tokens": dict(tiles=98 * 20, b8=256 * 2304, b4=256 * 2304 * 0.531,
                                                 t8=555.19 * SMS / (195 * 20), ws=341.40, f4w=336.04),
}


def walk_time(c, q):
    g4 = SMS * q // 4
    g8 = SMS - g4
    t4 = c["f4w"] * SMS / c["tiles"]  # an FP4 tile's time on an SM, from the measured _f4w walk
    r4 = g4 / t4
    left = DRAM - r4 * c["b4"]
    r8 = min(g8 / c["t8"], left / c["b8"]) if g8 else 0.0
    return c["tiles"] / (r4 + r8)


for name, c in CASES.items():
    cells = "  ".join(f"q={q}: {walk_time(c, q):6.1f}" for q in range(5))
    print(f"{name}: {cells}   (measured _ws {c['ws']:.1f}, _f4w {c['f4w']:.1f})")

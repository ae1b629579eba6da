# Device call 34 (session 59), any card (the H200 first): does a stage-2 tile that fits beside stage 1 on an SM pay in
# the MoE at 1-4 tokens? The sweep times each stage alone, so it cannot see this. At one token stage 1 (t16x64x512_w4:
# 4 warps of 126 registers, 16 K registers a workgroup, NVRTC sm_90a), spread evenly, puts its 360 workgroups 3 to an
# SM on 96 SMs and 2 on 36. The table's stage 2 (t16x128x256: 8 warps of 95 registers, 24 K) then fits beside them on
# the 36 only; its 4-warp twin (t16x64x256_w4: 127 registers, 16 K) on all 132 (168 of its 400 workgroups). A stage 2
# launched to overlap stage 1 loads its first weight chunks before it waits (moe_stage2.hip), so with the twin more of
# it would be under way when stage 1 ends. Arms: the table of record, and the same table with the stage 2 of buckets
# 1-4 the 4-warp twin (t16x128xK -> t16x64xK_w4); bench_ab.py at 1, 2 and 4 tokens (8 routings, the default); then the
# four stage-2 kernels alone (`moetune measure`), to part the pairing from the kernels' own time.
#   TARGETS="" STEPS=call34.sh bash docs/pending/device/p.sh
source $D/steps.sh
W4=$L/stage2_w4_table.csv
awk -F, 'BEGIN{OFS=","} NR>1 && $3<=4 {sub(/_t16x128x/, "_t16x64x", $21); sub(/_atomic_nt_wgmma$/, "_atomic_w4_nt_wgmma", $21)} {print}' \
  $TB > $W4
cut -d, -f3,18,21 $W4 | head -4
table_arm table $B $TB; table_arm w4 $B $W4
timeout 200 python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm w4=/tmp/arm_w4 --rounds ${W4_ROUNDS:-5} \
  --json $L/stage2_w4_ab.json --markdown $OUT/stage2_w4_ab.md -- --shapes $S --tokens 1,2,4 --rounds 5 \
  > $L/stage2_w4_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/stage2_w4_ab.md
measure_into stage2_alone_1 1 'moe2_.*_t16x(128x256_atomic|64x256_atomic_w4)_nt_wgmma$'
measure_into stage2_alone_2 2 'moe2_.*_t16x(128x512_atomic|64x512_atomic_w4)_nt_wgmma$'
measure_into stage2_alone_4 4 'moe2_.*_t16x(128x512_atomic|64x512_atomic_w4)_nt_wgmma$'

# Device call 43 (session 65), any card: a _gemv kernel change (REVERSE: its patch) measured against main's build at
# TOKS tokens, ROUNDS times in turn, kernel by kernel, with the _gemv kernels in the space (PRE=gemv_space.sh first,
# so that main's copy has them too), the table of record's one-token kernels beside them; the _gemv GPU test first.
#   PRE="gemv_space.sh old.sh" REVERSE=<the change's diff> [TOKS=1,2] [ROUNDS=2] [NCU=1]
#     TARGETS="moe_stage_kernels_test" STEPS=call43.sh bash docs/pending/device/p.sh
#   (a change kept here as a patch: PRE="gemv_space.sh apply.sh old.sh" APPLY=<patch> REVERSE=<patch>)
source $D/steps.sh
gate gemv 240 moe_stage_kernels_test "the _gemv kernels match the reference"
wait_old
KERNELS='gemv|t16x64x512_w4_nt_wgmma_gui|t16x128x(256|512)_atomic_nt_wgmma'
for r in $(seq ${ROUNDS:-2}); do
  for m in ${TOKS//,/ }; do
    measure_into measure_old_${m}_r$r $m "$KERNELS" /tmp/old-build/moetune | grep -v moetune_moe
    measure_into measure_new_${m}_r$r $m "$KERNELS" | grep -v moetune_moe
  done
done
# Per file: the best _gemv stage 1 and stage 2, and the table's kernels.
for f in $L/measure_*.txt; do
  echo "== $(basename $f .txt)"
  for st in moe1 moe2; do grep "moetune_$st.*gemv" $f | grep " ok" | sort -k2 -n | head -2; done
  grep -E "_wgmma(_gui)? " $f
done | tee $OUT/arms.txt
cp $L/measure_*.txt $OUT/
# NCU=1: one launch each of the best one-token _gemv stages and the table's under Nsight Compute (speed of light,
# occupancy, warp states, memory), this build's, one token, after two warm-ups: what the _gemv stage 2 waits on.
ncu_one() {  # ncu_one STAGE KERNEL_REGEX NAME
  timeout 120 ncu --clock-control none -k regex:moetune_moe$1 -s 2 -c 1 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    $B measure --in-process --shapes $S --tokens 1 --stage $1 --mma fp8 --kernels "$2" > $OUT/ncu_$3.txt 2>&1
  stamp "ncu $3 rc=$?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Waves Per SM|Stall|Block Limit" \
    $OUT/ncu_$3.txt | head -14
}
if [ "${NCU:-0}" = 1 ]; then
  ncu_one 2 't16x32x128_atomic_w4_nt_gemv$' s2_gemv
  ncu_one 2 't16x128x256_atomic_nt_wgmma$' s2_table
  ncu_one 1 't16x64x256_occ2_nt_smem_gemv_gui$' s1_gemv
fi

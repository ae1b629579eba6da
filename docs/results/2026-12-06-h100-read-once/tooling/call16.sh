# Device call 16 (session 49), on the branch that adds the read-once twins (_ro) to the space: `moetune measure` of
# the 128 x 256 _ws kernels and their _ro twins at each of TOKS (ROUNDS rounds), then two restricted sweeps at
# SWEEP_TOKS (the 256-wide _ws kernels; A without _ro, B with) and `moetune bench` of each table in turn
# (BENCH_ROUNDS each), then the whole gpu label (call2.sh, as a further STEPS entry).
#   TOKS=1024,2048,4096,8192 [ROUNDS=2] SWEEP_TOKS=1024,2048 [BENCH_ROUNDS=2] TARGETS="<the gpu tests>"
#   STEPS="call16.sh call2.sh" bash docs/pending/device/p.sh
source $D/steps.sh
RO='t128x256x128_(atomic_|reduce_)?w12_smem_wgmma_ws(_f4w)?(_ro)?(_gui_fp8)?$'
for round in $(seq ${ROUNDS:-2}); do
  for m in ${TOKS//,/ }; do measure_into ro_${m}_r$round $m "$RO"; done
done
FAMILY='x256x128_(atomic_|reduce_)?w12_smem_wgmma_ws(_f4w)?'
for arm in A B; do
  [ $arm = A ] && k="${FAMILY}(_gui_fp8)?\$" || k="${FAMILY}(_ro)?(_gui_fp8)?\$"
  timeout $(( $(left) - 300 )) $B sweep --shapes $S --tokens $SWEEP_TOKS --mma fp8 --kernels "$k" -o $OUT/sweep_$arm.csv \
    > $L/sweep_$arm.txt 2>&1
  stamp "sweep $arm rc=$?"; cut -d, -f3,12,13,15,16,18 $OUT/sweep_$arm.csv
done
for round in $(seq ${BENCH_ROUNDS:-2}); do
  for arm in A B; do
    $B bench --shapes $S --tuned $OUT/sweep_$arm.csv --tokens $SWEEP_TOKS --rounds 5 --json $OUT/bench_${arm}_r$round.json \
      > $L/bench_${arm}_r$round.txt 2>&1
    stamp "bench $arm round $round rc=$?"; tail -6 $L/bench_${arm}_r$round.txt
  done
done

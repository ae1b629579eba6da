# Device call 3: the table of record (TB) swept again at SWEEP_TOKENS (default 1024,2048; session 41 swept
# 1024,2048,4096 on the H200) over SWEEP_KERNELS (a --kernels regex; default the 256-wide _ws kernels with and
# without _f4w), merged over TB
# (the new rows win); the whole MoE with TB against the merged one, alternated twice at AB_TOKS (default all 15)
# (bench_ab.py's arms are binaries: a wrapper an arm gives each its --tuned); the figures of record with the merged
# table (steps.sh's figures_of_record: the bench at all 15 buckets, peer_torch.py, the plot; FIGURES=0: not); then
# the gpu label but measure_all_candidates_test (call 2's) when the call's limit leaves room (LABEL=0: not).
#   [LIMIT=s: the call's limit, 580 by default] [SWEEP_S=s: the sweep's, 200; it resumes] TARGETS="<call 2's>" STEPS=call3.sh bash docs/pending/device/p.sh
source $D/steps.sh
timeout ${SWEEP_S:-200} $B sweep --shapes $S --tokens ${SWEEP_TOKENS:-1024,2048} --mma fp8 \
  --kernels "${SWEEP_KERNELS:-x256x128_.*smem_wgmma_ws}" \
  -o $OUT/sweep.csv --profile-out $L/profile.csv > $L/sweep.txt 2>&1; stamp "sweep rc=$?"
tail -4 $L/sweep.txt
$B merge --on-duplicate last -o $OUT/tuned.csv $TB $OUT/sweep.csv > $L/merge.txt 2>&1; stamp "merge rc=$?"
table_arm table $B $TB; table_arm swept $B $OUT/tuned.csv
timeout 200 python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm swept=/tmp/arm_swept --rounds 2 \
  --json $OUT/ab.json --markdown $L/ab.md -- --shapes $S --tokens ${AB_TOKS:-1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384} \
  --rounds 5 > $L/ab.txt 2>&1; stamp "bench_ab rc=$?"
cat $L/ab.md
[ ${FIGURES:-1} = 1 ] && figures_of_record $OUT/tuned.csv
if [ ${LABEL:-1} = 1 ] && [ $(left) -gt 150 ]; then
  (cd build-dev && timeout $(( $(left) - 10 )) ctest -L gpu -E measure_all_candidates_test -j3 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest -L gpu -E measure_all rc=$?"
  grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -12
  cp $L/ctest.log $OUT/ctest_gpu.log
fi

# Device call 3: the table of record (TB) swept again at SWEEP_TOKENS (default 1024,2048; session 41 swept
# 1024,2048,4096 on the H200) over SWEEP_KERNELS (a --kernels regex; default the 256-wide _ws kernels with and
# without _f4w), merged over TB
# (the new rows win); the whole MoE with TB against the merged one, alternated twice at AB_TOKS (default all 15)
# (bench_ab.py's arms are binaries: a wrapper an arm gives each its --tuned); peer_torch.py and the plot of the
# merged table's last round (PEER=0: not); then the gpu label but measure_all_candidates_test (call 2's) when the
# call's limit leaves room (LABEL=0: not).
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
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump([r for r in d["runs"] if r["arm"]=="swept"][-1]["bench"], open(sys.argv[2],"w"), indent=1)' \
  $OUT/ab.json $OUT/bench.json
LEFT=$(left)
if [ ${PEER:-1} = 1 ] && [ $LEFT -gt 40 ]; then
  timeout $(( LEFT - 10 )) python3 scripts/peer_torch.py --shapes $S --json $OUT/peer.json > $L/peer.txt 2>&1; stamp "peer rc=$?"
  python3 scripts/plot_bench.py --bench $OUT/bench.json --peer $OUT/peer.json -o $OUT/bench.png --markdown $L/bench.md > $L/plot.txt 2>&1; stamp "plot rc=$?"
  cat $L/bench.md
fi
if [ ${LABEL:-1} = 1 ] && [ $(left) -gt 150 ]; then
  (cd build-dev && timeout $(( $(left) - 10 )) ctest -L gpu -E measure_all_candidates_test -j3 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest -L gpu -E measure_all rc=$?"
  grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -12
  cp $L/ctest.log $OUT/ctest_gpu.log
fi

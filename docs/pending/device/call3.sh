# Device call 3, with part 1: a sweep of 1024-4096 tokens over the 256-wide _ws kernels (every winner of main's
# table there is one) with and without _f4w, merged over main's table (the new rows win); then the whole MoE
# alternated twice at all 15 buckets: main's build with main's table, this build with main's table, this build
# with the merged table (bench_ab.py's arms are binaries: a wrapper an arm gives each its --tuned); the gpu
# label but measure_all_candidates_test (call 2's); then peer_torch.py and the plot of the merged table's last round.
#   [LIMIT=s: the call's limit, 580 by default] PARTS=N PRE=old.sh TARGETS="<call 2's>" STEPS=call3.sh bash docs/pending/device/p.sh
TB=docs/results/2026-12-04-h200-bulk-weights/dsv41_flash_ep4_a8w4_tuned.csv
timeout 200 $B sweep --shapes $S --tokens ${SWEEP_TOKENS:-1024,2048,4096} --mma fp8 --kernels 'x256x128_.*smem_wgmma_ws' \
  -o $OUT/f4w_sweep.csv --profile-out $L/f4w_profile.csv > $L/sweep.txt 2>&1; stamp "sweep rc=$?"
tail -3 $L/sweep.txt
$B merge --on-duplicate last -o $OUT/f4w_tuned.csv $TB $OUT/f4w_sweep.csv > $L/merge.txt 2>&1; stamp "merge rc=$?"
wait $OLD_PID; stamp "old built: $(tail -1 $L/build-old.log)"
arm() {  # arm NAME BINARY TABLE: /tmp/arm_NAME runs BINARY's command with --tuned TABLE
  printf '#!/bin/sh\ncmd=$1; shift; exec %s "$cmd" --tuned %s "$@"\n' "$(realpath $2)" "$(realpath -m $3)" > /tmp/arm_$1; chmod +x /tmp/arm_$1
}
arm main /tmp/old-build/moetune $TB; arm parts $B $TB; arm f4w $B $OUT/f4w_tuned.csv
timeout 240 python3 scripts/bench_ab.py --arm main=/tmp/arm_main --arm parts=/tmp/arm_parts --arm f4w=/tmp/arm_f4w --rounds 2 \
  --json $OUT/ab_f4w.json --markdown $L/ab_f4w.md -- --shapes $S --tokens 1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384 \
  --rounds 5 > $L/ab_f4w.txt 2>&1; stamp "bench_ab rc=$?"
cat $L/ab_f4w.md
if [ $(( ${LIMIT:-580} - ($(date +%s) - T0) )) -gt 150 ]; then
  (cd build-dev && timeout 200 ctest -L gpu -E measure_all_candidates_test -j3 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest -L gpu -E measure_all rc=$?"
  grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -12
  cp $L/ctest.log $OUT/ctest_gpu.log
fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump([r for r in d["runs"] if r["arm"]=="f4w"][-1]["bench"], open(sys.argv[2],"w"), indent=1)' \
  $OUT/ab_f4w.json $OUT/bench_f4w.json
LEFT=$(( ${LIMIT:-580} - ($(date +%s) - T0) ))
if [ $LEFT -gt 40 ]; then
  timeout $(( LEFT - 10 )) python3 scripts/peer_torch.py --shapes $S --json $OUT/peer.json > $L/peer.txt 2>&1; stamp "peer rc=$?"
  python3 scripts/plot_bench.py --bench $OUT/bench_f4w.json --peer $OUT/peer.json -o $OUT/bench.png --markdown $L/bench.md > $L/plot.txt 2>&1; stamp "plot rc=$?"
  cat $L/bench.md
fi

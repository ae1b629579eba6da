# Device call 38 (session 62), any card: `moetune bench` reads the SM clock beside each round. bench_gpu_test, then
# the table of record benched at BENCH_TOKENS (default 1,128,4096) with its `SM MHz` column and JSON.
#   TARGETS="bench_gpu_test" [BENCH_TOKENS=…] STEPS=call38.sh bash docs/pending/device/p.sh
(cd build-dev && timeout 120 ctest -R bench_gpu_test --output-on-failure > $L/bench_gpu_test.txt 2>&1)
stamp "bench_gpu_test rc=$?"; grep -E "tests passed|FAILED|failed|with expansion" $L/bench_gpu_test.txt | head -8
timeout $(( $(left) - 5 )) $B bench --shapes $S --tuned $TB --tokens ${BENCH_TOKENS:-1,128,4096} --rounds 5 \
  --json $OUT/bench.json > $L/bench.txt 2>&1; stamp "bench rc=$?"
cat $L/bench.txt | grep -v "^\[" | cut -c1-140

# Device call 2, on the tree that would land: the gpu label but measure_all_candidates_test (call 3), then
# scripts/peer_torch.py and scripts/plot_bench.py over call 1's bench of this tree (FINAL_BENCH: that JSON,
# saved into the tree first, e.g. under the docs/results folder that lands with it).
#   PARTS=N FINAL_BENCH=docs/results/.../bench.json TARGETS="bench_gpu_test data_gpu_test gpu_layer_test moe_stage_kernels_test runtime_gpu_test sweep_gpu_test measure_gpu_test" STEPS=call2.sh bash docs/pending/device/p.sh
(cd build-dev && timeout 470 ctest -L gpu -E measure_all_candidates_test -j3 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest rc=$?"
grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -24
cp $L/ctest.log $OUT/ctest.log
mkdir -p $OUT/final
LEFT=$(( 580 - ($(date +%s) - T0) ))
if [ $LEFT -gt 40 ]; then
  timeout $(( LEFT - 10 )) python3 scripts/peer_torch.py --shapes $S --json $OUT/final/peer.json > $L/peer.txt 2>&1; stamp "peer rc=$?"
  [ -f "${FINAL_BENCH:-}" ] && python3 scripts/plot_bench.py --bench "$FINAL_BENCH" --peer $OUT/final/peer.json \
    -o $OUT/final/bench.png --markdown $OUT/final/bench.md > $L/plot.txt 2>&1; stamp "plot rc=$?"
  cat $OUT/final/bench.md 2>/dev/null | head -30
fi

# Device call 31 (session 56): the session's changes on a GPU. `moetune measure` of the table of record's one-token
# stage kernels at 1 and 2 tokens with --routings 1 and 8 (the new default: how much a graph of one routing's warm
# L2 flattered them), `moetune bench` of the table of record at 1, 2, 4, 16 and 128 tokens with both peaks measured
# at start (--hbm-tbps 0 --peak-tflops 0: kernel_templates/peak_probes.hip) and the default 8 routings, then the gpu
# tests the session touched (measure, bench, sweep) and moe_stage_kernels_test.
#   TARGETS="measure_gpu_test bench_gpu_test sweep_gpu_test moe_stage_kernels_test" STEPS=call31.sh bash docs/pending/device/p.sh
K1='t16x64x512_w4_nt_wgmma_gui$|t16x128x256_atomic_nt_wgmma$'
for m in 1 2; do
  for r in 1 8; do
    timeout 90 $B measure --shapes $S --tokens $m --mma fp8 --kernels "$K1" --routings $r > $L/measure_${m}_r$r.txt 2>&1
    stamp "measure $m tokens, routings $r: rc=$?"; grep moetune_moe $L/measure_${m}_r$r.txt
  done
done
timeout 240 $B bench --shapes $S --tuned $TB --tokens 1,2,4,16,128 --rounds 3 --hbm-tbps 0 --peak-tflops 0 \
  --json $OUT/bench_peaks.json > $L/bench_peaks.txt 2>&1; stamp "bench rc=$?"
grep -E "HBM|^ *[0-9]+ " $L/bench_peaks.txt | head -8
(cd build-dev && timeout $(( $(left) - 10 )) ctest -R "measure_gpu_test|bench_gpu_test|sweep_gpu_test|moe_stage_kernels_test" \
  -j3 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest rc=$?"
grep -E "tests passed|Test +#|\*\*\*|FAILED|Total" $L/ctest.log | tail -10
cp $L/ctest.log $OUT/ctest_gpu.log

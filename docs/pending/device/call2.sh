# Device call 2: measure_all_candidates_test (every DSv4.1 candidate at three buckets: ~250 s on the H200 in
# session 34), the rest of the gpu label being call 3's, best on the machine call 3 left warm (nothing to build).
#   TARGETS="gpu_layer_test data_gpu_test moe_stage_kernels_test measure_gpu_test measure_all_candidates_test sweep_gpu_test bench_gpu_test runtime_gpu_test" STEPS=call2.sh bash docs/pending/device/p.sh
(cd build-dev && timeout 540 ctest -R measure_all_candidates_test --output-on-failure > $L/ctest.log 2>&1); stamp "measure_all_candidates_test rc=$?"
grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -12
cp $L/ctest.log $OUT/ctest_measure_all.log

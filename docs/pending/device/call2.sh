# Device call 2, on the tree that would land: the whole gpu label (~250 s on the H200 in session 34, the longest
# being measure_all_candidates_test, which measures every DSv4.1 candidate at three buckets).
#   TARGETS="gpu_layer_test data_gpu_test moe_stage_kernels_test measure_gpu_test measure_all_candidates_test sweep_gpu_test bench_gpu_test runtime_gpu_test" STEPS=call2.sh bash docs/pending/device/p.sh
(cd build-dev && timeout 540 ctest -L gpu -j4 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest -L gpu rc=$?"
grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -24
cp $L/ctest.log $OUT/ctest_gpu.log

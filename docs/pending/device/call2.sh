# Device call 2: the whole gpu label, measure_all_candidates_test (every DSv4.1 candidate at three buckets: ~250 s
# on the H200 in session 34) beside the rest, best on the machine call 3 left warm (nothing to build).
#   TARGETS="gpu_layer_test data_gpu_test moe_stage_kernels_test measure_gpu_test measure_all_candidates_test sweep_gpu_test bench_gpu_test runtime_gpu_test" STEPS=call2.sh bash docs/pending/device/p.sh
# EXCLUDE=regex leaves those tests out, ONLY=regex runs those alone (measure_all_candidates_test in a call of its own).
(cd build-dev && timeout $(( $(left) - 10 )) ctest -L gpu ${EXCLUDE:+-E $EXCLUDE} ${ONLY:+-R $ONLY} -j3 --output-on-failure > $L/ctest.log 2>&1); stamp "ctest -L gpu rc=$?"
grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest.log | tail -14
cp $L/ctest.log $OUT/ctest_gpu.log

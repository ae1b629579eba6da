# Device call 3: measure_all_candidates_test alone (every DSv4.1 candidate at three buckets: 152 s in
# session 18, more candidates now), the rest of the gpu label being call 2's.
#   TARGETS="measure_all_candidates_test" STEPS=call3.sh bash docs/pending/device/p.sh
(cd build-dev && timeout 560 ctest -R measure_all_candidates_test --output-on-failure > $L/ctest_all.log 2>&1); stamp "ctest rc=$?"
grep -E "tests passed|Test +#|\*\*\*|FAILED|failed|Total" $L/ctest_all.log | tail -12
cp $L/ctest_all.log $OUT/ctest_measure_all.log

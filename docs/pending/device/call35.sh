# Device call 35 (session 59), any card (the H100 first: that is where it failed): measure_gpu_test three times in
# turn, alone on the GPU, then sweep_gpu_test and measure_all_candidates_test, which time through the same measurer.
# With PRE=measure_outputs.sh (item 25) every candidate of a bucket, and every repeat of one, writes to the bucket's
# buffers; without it, on main, "repeated timing of one candidate varies by less than 3%" failed in 2 of 3 runs on an
# H100 in session 59 (stage 2 atomic t16x64x128_w4 at 32 tokens: 467.4 us in the run that made the bucket's stage-2
# input copies beside its outputs, 485.8 in both runs after).
#   PRE=measure_outputs.sh TARGETS="measure_gpu_test sweep_gpu_test measure_all_candidates_test" STEPS=call35.sh \
#     bash docs/pending/device/p.sh
for i in 1 2 3; do
  (cd build-dev && timeout 90 ctest -V -R measure_gpu_test > $L/measure_$i.log 2>&1)
  stamp "measure_gpu_test run $i rc=$?"; grep -E " M=|FAILED|tests passed" $L/measure_$i.log
done
(cd build-dev && timeout $(( $(left) - 10 )) ctest -R "sweep_gpu_test|measure_all_candidates_test" --output-on-failure \
  > $L/ctest.log 2>&1); stamp "sweep_gpu_test, measure_all_candidates_test rc=$?"
grep -E "tests passed|Test +#|FAILED" $L/ctest.log

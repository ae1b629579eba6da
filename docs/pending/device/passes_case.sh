# measure_gpu_test's case for the passes between the stages (kernels/stage_handoff.h), with its printed times.
(cd build-dev && timeout 120 ./measure_gpu_test "the passes between the stages*" > $L/passes.txt 2>&1)
stamp "passes case rc=$?"; grep -E "mxfp8_rebase|passed|FAILED" $L/passes.txt

# Device call 6: a kernel change measured against main, kernel by kernel: GATE (Catch2 names of
# moe_stage_kernels_test joined by commas), MAKERS (measure_gpu_test's, optional), runtime_gpu_test,
# then `moetune measure` of the kernels KERNELS matches at each of TOKS tokens, main's build
# (PRE=old.sh) and this one in turn.
#   bash docs/pending/device/prep.sh =N, then:
#   PARTS==N PRE=old.sh GATE="..." [MAKERS="..."] KERNELS='regex' [TOKS=1024,2048] TARGETS="moe_stage_kernels_test runtime_gpu_test[ measure_gpu_test]" STEPS=call6.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate change 300 moe_stage_kernels_test "$GATE"
# MAKERS: measure_gpu_test's cases (a Catch2 spec), for a change to how the weights are laid out.
[ -n "${MAKERS:-}" ] && gate makers 120 measure_gpu_test "$MAKERS"
runtime_test
wait_old
measure_arms "${TOKS:-1024,2048}" "$KERNELS"

# Device call 8 (session 47), from pending-=8 (prep.sh =8) with PRE="old.sh p7_build.sh": part 8's gate
# (GATE, moe_stage_kernels_test), runtime_gpu_test (its bucket-256 row a _mix2 walk), then `moetune measure` of
# KERNELS8 (part 8's walks beside the _ws and _f4w kernels of the same build) at each of TOKS8 and of main's build at
# the first; then part 7 (p7_build.sh) against main, KERNELS7 at each of TOKS7, and its cap on the split tiles
# (splits.sh, SPLIT_BIN=/tmp/p7-build/moetune).
#   PARTS==8 PRE="old.sh p7_build.sh" GATE="..." KERNELS8='regex' TOKS8=1024,2048,4096 KERNELS7='regex' TOKS7=4096,2048
#   [SPLITS="0 32 66"] TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call8.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate change 240 moe_stage_kernels_test "$GATE"
runtime_test
for m in ${TOKS8//,/ }; do measure_into measure_p8_$m $m "$KERNELS8"; done
wait $OLD_PID; stamp "old built: $(tail -1 $L/build-old.log)"
measure_into measure_old_${TOKS8%%,*} ${TOKS8%%,*} "$KERNELS8" /tmp/old-build/moetune
wait $P7_PID; stamp "part 7 built: $(tail -1 $L/build-p7.log)"
measure_arms "$TOKS7" "$KERNELS7" /tmp/p7-build/moetune p7
KERNELS=$KERNELS7; TOKS=${TOKS7%%,*}; SPLIT_BIN=/tmp/p7-build/moetune; source $D/splits.sh

# Device call 29 (session 54): a register-fed stage 1 asking L2 for stage 2's weights of its expert where they fit
# (FusedMoeOptions::l2_stage2_weights; one token on DSv4.1) against stage 2 streaming them itself: runtime_gpu_test,
# then bench_ab.py of the table of record with and without --l2-stage2-weights (off by default since session 55),
# L2_ROUNDS alternated rounds.
# L2_ARGS: more `moetune bench` flags for both arms (`--routings 8`: each call of a graph routes to other experts, so
# stage 2's weights are not in L2 from the call before, as in a model whose next MoE call is another layer's).
#   TARGETS="runtime_gpu_test" [L2_TOKS=1,2] [L2_ROUNDS=5] [L2_ARGS=…] STEPS=call29.sh bash docs/pending/device/p.sh
source $D/steps.sh
if [ -x build-dev/runtime_gpu_test ]; then
  (cd build-dev && timeout 120 ./runtime_gpu_test > $L/runtime_l2.txt 2>&1); stamp "runtime_gpu_test rc=$?"; tail -2 $L/runtime_l2.txt
fi
table_arm stream $B $TB
printf '#!/bin/sh\ncmd=$1; shift; exec %s "$cmd" --tuned %s --l2-stage2-weights "$@"\n' "$(realpath $B)" "$(realpath $TB)" \
  > /tmp/arm_l2
chmod +x /tmp/arm_l2
timeout 150 python3 scripts/bench_ab.py --arm l2=/tmp/arm_l2 --arm stream=/tmp/arm_stream --rounds ${L2_ROUNDS:-5} \
  --json $OUT/l2_ab.json --markdown $OUT/l2_ab.md -- --shapes $S --tokens ${L2_TOKS:-1,2} --rounds 5 ${L2_ARGS:-} > $L/l2_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/l2_ab.md

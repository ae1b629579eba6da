# Device call 14 (session 49), from pending-=9 with PRE=old.sh: part 9 with its gate (evict-first asked only where
# an expert's routed rows fit one row tile on average). The `_ws` gates and runtime_gpu_test, then ROUNDS rounds
# of measure_arms (main's build and this one in turn) of KERNELS at TOKS, then ab.sh at AB_TOKS. NO_GATES=1 leaves
# the gates out (a call2.sh after this step runs the whole gpu label, those tests with it).
#   PARTS==9 PRE=old.sh KERNELS='regex' TOKS=2048,4096,8192 [ROUNDS=3] AB_TOKS=1024,2048,4096,8192 [AB_ROUNDS=2]
#   TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call14.sh bash docs/pending/device/p.sh
source $D/steps.sh
if [ -z "${NO_GATES:-}" ]; then
  gate ws 200 moe_stage_kernels_test "FP4 weight blocks give the warp-specialised kernels' bits,FP8 shared-operand kernels give the same results however many workgroups walk the tiles"
  runtime_test
fi
wait_old
for round in $(seq ${ROUNDS:-3}); do
  stamp "round $round"; measure_arms "$TOKS" "$KERNELS"
  for f in $L/measure_old_*.txt $L/measure_new_*.txt; do case $f in *_r[0-9]*) ;; *) mv $f ${f%.txt}_r$round.txt;; esac; done
done
source $D/ab.sh

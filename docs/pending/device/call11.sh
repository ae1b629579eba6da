# Device call 11 (session 48), from main with PRE=ablation.sh ABLATION=l2_hints.patch: L2 eviction hints, from the
# environment (MOETUNE_L2_HINTS, the patch's bits: 1 the weights' bulk copies evict-first, 2 stage 2's atomic adds
# evict-last, 4 the rows' cp.async evict-last). Call 10 found stage 2 3-4 % faster when the experts next to each
# other in the walk share most of their tokens (balanced routing) than with any routing where they do not: the
# atomic adds of one token's rows then meet in L2. `moetune measure` of KERNELS at each of TOKS, the random routing
# with each of HINTS, and the balanced one with none (the bound), ROUNDS times in turn.
#   PRE=ablation.sh ABLATION=l2_hints.patch KERNELS='regex' TOKS=4096,2048,8192 [HINTS="0 1 2 4 7"] [ROUNDS=2]
#   TARGETS="" STEPS=call11.sh bash docs/pending/device/p.sh
source $D/steps.sh
for r in $(seq ${ROUNDS:-2}); do
  for m in ${TOKS//,/ }; do
    if [ "$(left)" -lt 40 ]; then stamp "call11: round $r, $m tokens and after skipped, $(left) s of LIMIT left"; break 2; fi
    for h in ${HINTS:-0 1 2 4 7}; do MOETUNE_L2_HINTS=$h measure_into hints_${m}_${h}_$r $m "$KERNELS"; done
    ROUTING=balanced measure_into hints_${m}_balanced_$r $m "$KERNELS"
  done
done

# Device call 13 (session 48, not yet run), from pending-=9 with PRE="old.sh ablation.sh"
# ABLATION=read_once_rule.patch: which tiles' weights go evict-first, from the environment (MOETUNE_READ_ONCE: 0 none
# = main, 1 the expert's only row tile = part 9, 2 the expert's last row tile, 3 every tile = call 5's hint 1).
# Rule 2 asks whether marking the weights evict-first on their last read frees L2 for stage 2's atomic adds where
# experts have two or more row tiles (4096-8192 tokens), without the 17-47 % that rule 3 lost there. `moetune
# measure` of KERNELS at each of TOKS with each of RULES, then ab.sh (main against this build) with AB_RULE.
#   PARTS==9 PRE="old.sh ablation.sh" ABLATION=read_once_rule.patch KERNELS='regex' TOKS=2048,4096,8192
#   [RULES="0 1 2"] [AB_RULE=1] AB_TOKS=1024,2048,4096,8192 [AB_ROUNDS=3] TARGETS="" STEPS=call13.sh
#   bash docs/pending/device/p.sh
source $D/steps.sh
for m in ${TOKS//,/ }; do
  for r in ${RULES:-0 1 2}; do MOETUNE_READ_ONCE=$r measure_into rule_${r}_$m $m "$KERNELS"; done
done
MOETUNE_READ_ONCE=${AB_RULE:-1} source $D/ab.sh

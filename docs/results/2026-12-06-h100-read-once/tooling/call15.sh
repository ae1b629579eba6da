# Device call 15 (session 49), from pending-=9 with PRE="old.sh ablation.sh" ABLATION=read_once_form.patch: where
# part 9's cost at 4096-8192 tokens (where its gate keeps the hint off) comes from. ROUNDS rounds of `moetune
# measure` of KERNELS at TOKS: main's build, then this build with MOETUNE_ABLATE=0 (part 9), 1 (the hint off at
# compile time) and 2 (every copy with a cache-hint policy, no branch), in turn; then ab.sh with AB_ABLATE.
#   PARTS==9 PRE="old.sh ablation.sh" ABLATION=read_once_form.patch KERNELS='regex' TOKS=2048,4096,8192 [ROUNDS=3]
#   [AB_ABLATE=2] AB_TOKS=2048,4096,8192 [AB_ROUNDS=3] TARGETS="" STEPS=call15.sh bash docs/pending/device/p.sh
source $D/steps.sh
wait_old
for round in $(seq ${ROUNDS:-3}); do
  for m in ${TOKS//,/ }; do
    measure_into main_${m}_r$round $m "$KERNELS" /tmp/old-build/moetune
    for a in 0 1 2; do MOETUNE_ABLATE=$a measure_into ablate${a}_${m}_r$round $m "$KERNELS"; done
  done
done
MOETUNE_ABLATE=${AB_ABLATE:-2} source $D/ab.sh

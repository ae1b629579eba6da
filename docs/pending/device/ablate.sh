# Device step (with PRE=ablation.sh): `moetune measure` of KERNELS at each of TOKS with MOETUNE_ABLATE=A for each A
# of ABL (default "0 1 2 3 4", session 44's; the bits: ablation.sh). Where the copies bound a kernel (the `_ws` loop
# at every bucket on an H100, session 44), ABL="0 2 10 18 26" tells the rows' copies from the weights' (2: no
# products; + 8 no rows; + 16 no weights; 26: neither copy).
#   PRE=ablation.sh TOKS=1024,2048,4096 KERNELS='regex' [ABL="0 2 10 18 26"] TARGETS="" STEPS=ablate.sh bash docs/pending/device/p.sh
source $D/steps.sh
for m in ${TOKS//,/ }; do
  for a in ${ABL:-0 1 2 3 4}; do MOETUNE_ABLATE=$a measure_into ablate_${a}_$m $m "$KERNELS"; done
done

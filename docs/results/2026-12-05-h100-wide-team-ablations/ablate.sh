# Device call (session 44, not for main): `_f4w` ablations. With the ablation patch applied (MOETUNE_ABLATE
# passed to NVRTC as -DMOETUNE_ABLATE=A; measure times wrong outputs too), for A in ABL (0 = the kernels as
# they are, 1 = no rebase, 2 = no products, 3 = neither, 4 = rebase without its stores): `moetune measure` of
# KERNELS at each of TOKS.
for m in ${TOKS//,/ }; do
  for a in ${ABL:-0 1 2 3 4}; do
    MOETUNE_ABLATE=$a timeout 60 $B measure --shapes $S --tokens $m --mma fp8 --kernels "$KERNELS" > $L/ablate_${a}_$m.txt 2>&1
    stamp "ablate $a $m rc=$?"; grep moetune_moe $L/ablate_${a}_$m.txt | awk '{print $1, $2, $3}' | sed 's/moetune_moe/m/; s/afp8_wfp4_bf16_//'
  done
done

# Device step (with PRE="old.sh mix_build.sh ..."): `moetune measure` of main + mix.patch, MIX_KERNELS (_ws
# kernels on the rebased copy) at each of MIX_TOKS with MOETUNE_MIX=q for each q of MIXES (default "0 1 2 3"):
# q quarters of the workgroups rebase FP4 blocks (the _f4w loop), the rest read the e4m3 copy, one tile walk.
# Skips what could outlast LIMIT.
source $D/steps.sh
wait $MIX_PID; stamp "mix built: $(tail -1 $L/build-mix.log)"
for m in ${MIX_TOKS//,/ }; do
  for q in ${MIXES:-0 1 2 3}; do
    if [ "$(left)" -lt 60 ]; then stamp "mix: $m tokens, q $q and after skipped, $(left) s of LIMIT left"; break 2; fi
    MOETUNE_MIX=$q measure_into mix_${q}_$m $m "$MIX_KERNELS" /tmp/mix-build/moetune
  done
done

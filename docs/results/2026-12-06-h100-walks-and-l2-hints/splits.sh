# Device step (a build of part 7 with split_tiles.patch: SPLIT_BIN, or this one with PRE="old.sh ablation.sh"
# ABLATION=split_tiles.patch on pending-=7): `moetune measure` of KERNELS at each of TOKS with MOETUNE_WS_SPLIT=S
# for each S of SPLITS (default "0 32 48 66"): the cap on the tiles the _ws walk takes in K halves (0: none, part
# 7's code without its split). Skips what could outlast LIMIT.
source $D/steps.sh
for m in ${TOKS//,/ }; do
  for s in ${SPLITS:-0 32 48 66}; do
    if [ "$(left)" -lt 60 ]; then stamp "splits: $m tokens, cap $s and after skipped, $(left) s of LIMIT left"; break 2; fi
    MOETUNE_WS_SPLIT=$s measure_into split_${s}_$m $m "$KERNELS" ${SPLIT_BIN:-$B}
  done
done

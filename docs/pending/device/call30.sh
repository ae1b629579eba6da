# Device call 30 (session 55, docs/pending item 20): the register-fed kernels asking L2 for their own weights
# chunks ahead of their loads (PRE=l2_ahead.sh, MOETUNE_WEIGHTS_L2_AHEAD). First stream_probe.cu (its loads with
# L2 asked ahead, D = 4, 8, 16 chunks or all, beside the loads alone and the bulk ring), then `moetune measure` of
# the table of record's one-token stage kernels with each AHEAD_LIST value, then bench_ab.py of the table of
# record with each value against none (L2_AHEAD_TOKS, `--routings 8`: each call of a graph routes elsewhere).
#   PRE=l2_ahead.sh TARGETS="" [PROBE=0] [AHEAD_LIST="8 16"] [L2_AHEAD_TOKS=1,2,4,8,16] STEPS=call30.sh bash docs/pending/device/p.sh
source $D/steps.sh
[ "${PROBE:-1}" = 1 ] && source $D/probe30.sh
KS1='moe1_.*_t16x64x512_w4_nt_wgmma_gui$'; KS2='moe2_.*_t16x128x256_atomic_nt_wgmma$'
for a in 0 ${AHEAD_LIST:-8 16}; do
  export MOETUNE_WEIGHTS_L2_AHEAD=$a
  measure_into measure_ahead${a}_s1 1 "$KS1"; measure_into measure_ahead${a}_s2 1 "$KS2"
done
unset MOETUNE_WEIGHTS_L2_AHEAD
ARMS="--arm none=/tmp/arm_none"
table_arm none $B $TB
for a in ${AHEAD_LIST:-8 16}; do
  printf '#!/bin/sh\ncmd=$1; shift; MOETUNE_WEIGHTS_L2_AHEAD=%s exec %s "$cmd" --tuned %s "$@"\n' $a "$(realpath $B)" "$(realpath $TB)" \
    > /tmp/arm_ahead$a
  chmod +x /tmp/arm_ahead$a; ARMS="$ARMS --arm ahead$a=/tmp/arm_ahead$a"
done
timeout $(( $(left) - 15 )) python3 scripts/bench_ab.py $ARMS --rounds ${L2_AHEAD_ROUNDS:-3} --json $OUT/ahead_ab.json \
  --markdown $OUT/ahead_ab.md -- --shapes $S --tokens ${L2_AHEAD_TOKS:-1,2,4,8,16} --rounds 5 --routings 8 > $L/ahead_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/ahead_ab.md

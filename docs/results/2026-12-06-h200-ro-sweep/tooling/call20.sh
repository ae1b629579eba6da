# Device call 20 (session 50): what the passes around the stages cost the few-token MoE. skip_parts.patch (applied
# to this tree, timing only): MOETUNE_SKIP bits 1 the sort, 2 the activation quantisation, 4 the conversion between
# the stages, each left out of every call but the first of a FusedMoe and token count; bench_ab.py alternates the arms.
#   [SKIP_ARMS="0 2 4 7"] [SKIP_TOKS=1,8] [SKIP_ROUNDS=2] TARGETS="" STEPS=call20.sh bash docs/pending/device/p.sh
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv
ARMS=""
for k in ${SKIP_ARMS:-0 2 4 7}; do
  printf '#!/bin/sh\nMOETUNE_SKIP=%s exec %s "$@"\n' $k "$(realpath $B)" > /tmp/arm_skip$k; chmod +x /tmp/arm_skip$k
  ARMS="$ARMS --arm skip$k=/tmp/arm_skip$k"
done
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py $ARMS --rounds ${SKIP_ROUNDS:-2} --json $OUT/skip_ab.json \
  --markdown $L/skip_ab.md -- --shapes $S --tuned $TB --tokens ${SKIP_TOKS:-1,8} --rounds 5 > $L/skip_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $L/skip_ab.md

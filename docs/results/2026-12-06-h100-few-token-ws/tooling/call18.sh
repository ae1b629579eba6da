# Device call 18 (session 50): what the sort costs the few-token MoE. skip_sort.patch (applied to this tree, timing
# only) makes MOETUNE_SKIP_SORT=1 sort once per sort buffer and token count and leave the sort out of every later
# call; bench_ab.py alternates the plain binary and that environment with the table of record at SORT_TOKS.
#   [SORT_TOKS=1,2,4,8,16,128] [SORT_ROUNDS=3] TARGETS="" STEPS=call18.sh bash docs/pending/device/p.sh
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv
printf '#!/bin/sh\nexec %s "$@"\n' "$(realpath $B)" > /tmp/arm_sort
printf '#!/bin/sh\nMOETUNE_SKIP_SORT=1 exec %s "$@"\n' "$(realpath $B)" > /tmp/arm_nosort
chmod +x /tmp/arm_sort /tmp/arm_nosort
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm sort=/tmp/arm_sort --arm nosort=/tmp/arm_nosort \
  --rounds ${SORT_ROUNDS:-3} --json $OUT/sort_ab.json --markdown $L/sort_ab.md -- --shapes $S --tuned $TB \
  --tokens ${SORT_TOKS:-1,2,4,8,16,128} --rounds 5 > $L/sort_ab.txt 2>&1; stamp "bench_ab rc=$?"
cat $L/sort_ab.md

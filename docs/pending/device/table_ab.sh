# Device step: bench_ab.py of the table of record (arm "record") against TB2, another table over the same shape
# (arm "other"), with one binary (this build): the other arm is a wrapper that hands moetune TB2 in place of the
# record. AB_TOKS buckets, AB_ROUNDS rounds (default 2) alternated; the table to $OUT/table_ab.md, every run to
# $OUT/table_ab.json.
#   TB2=path AB_TOKS=1,2 [AB_ROUNDS=2] TARGETS="" STEPS=table_ab.sh bash docs/pending/device/p.sh
source $D/steps.sh
printf '#!/bin/bash\nargs=(); for a in "$@"; do [ "$a" = %s ] && a=%s; args+=("$a"); done\nexec %s "${args[@]}"\n' \
  "$TB" "$TB2" "$PWD/$B" > /tmp/other_table_arm && chmod +x /tmp/other_table_arm
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm record=$B --arm other=/tmp/other_table_arm \
  --rounds ${AB_ROUNDS:-2} --json $OUT/table_ab.json --markdown $OUT/table_ab.md -- --shapes $S --tuned $TB \
  --tokens $AB_TOKS --rounds 5 > $L/table_ab.txt 2>&1
stamp "table bench_ab rc=$?"; cat $OUT/table_ab.md

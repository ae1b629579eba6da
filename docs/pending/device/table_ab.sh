# Device step: bench_ab.py of the table of record (arm "record") against TB2, another table over the same shape
# (arm "other"), with one binary (this build), each arm steps.sh's table_arm wrapper handing it its table. AB_TOKS
# buckets, AB_ROUNDS rounds (default 2) alternated; the table to $OUT/AB_NAME.md, every run to $OUT/AB_NAME.json
# (AB_NAME: default table_ab; another name keeps an earlier run's files in the same call).
#   TB2=path AB_TOKS=1,2 [AB_ROUNDS=2] [AB_NAME=table_ab] TARGETS="" STEPS=table_ab.sh bash docs/pending/device/p.sh
source $D/steps.sh
table_arm record $B $TB; table_arm other $B $TB2
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm record=/tmp/arm_record --arm other=/tmp/arm_other \
  --rounds ${AB_ROUNDS:-2} --json $OUT/${AB_NAME:-table_ab}.json --markdown $OUT/${AB_NAME:-table_ab}.md -- --shapes $S --tokens $AB_TOKS \
  --rounds 5 > $L/${AB_NAME:-table_ab}.txt 2>&1
stamp "table bench_ab rc=$?"; cat $OUT/${AB_NAME:-table_ab}.md

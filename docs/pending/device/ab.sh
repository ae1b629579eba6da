# Device step (PRE=old.sh): scripts/bench_ab.py of main's build against this one at AB_TOKS, alternated AB_ROUNDS
# times (default 2), with the table of record; the table to $OUT/ab.md, every run to $OUT/ab.json.
#   PARTS=... PRE=old.sh AB_TOKS=2048,4096 [AB_ROUNDS=2] TARGETS="" STEPS=ab.sh bash docs/pending/device/p.sh
source $D/steps.sh
wait_old
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm main=/tmp/old-build/moetune --arm new=$B \
  --rounds ${AB_ROUNDS:-2} --json $OUT/ab.json --markdown $OUT/ab.md -- --shapes $S --tuned $TB --tokens $AB_TOKS \
  --rounds 5 ${AB_ARGS:-} > $L/ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/ab.md

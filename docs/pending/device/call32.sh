# Device call 32 (session 56): does timing over 8 routings (the default since session 56) change what the sweep picks
# at few tokens? `moetune sweep` of SWEEP_TOKENS (default 1,2,4) with --routings 1, then with the default, one kernel
# cache; both tables and reports come back.
#   TARGETS="" [SWEEP_TOKENS=1,2,4] STEPS=call32.sh bash docs/pending/device/p.sh
for r in 1 8; do
  timeout $(( $(left) / 2 )) $B sweep --shapes $S --tokens ${SWEEP_TOKENS:-1,2,4} --routings $r --cache-dir /tmp/kc \
    -o $OUT/sweep_r$r.csv --report $OUT/sweep_r$r.json -q > $L/sweep_r$r.txt 2>&1; stamp "sweep routings $r rc=$?"
  cut -d, -f3,15,17,18,20,21,23 $OUT/sweep_r$r.csv
done

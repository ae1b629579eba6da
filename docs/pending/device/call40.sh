# Device call 40 (session 62), any card: does timing the candidates under a sustained load pick a faster row at many
# tokens? call39.sh found the 128 x 256 kernels 5-10 % slower at 4096 tokens on an H100 with --replay-ms 300 (the SM
# clock falling to 1545-1800 MHz during a timing) than with the default 2, and their order changed. `moetune sweep`
# of SUS_TOKS (default 4096) with the defaults (light), then with --replay-ms SUS_MS (default 300) and no clock
# recheck (under a sustained load the clock falls by the kernel's own power, not by chance), one kernel cache; then
# `bench_ab.py` of the two tables there (the bench's rounds are a sustained load, as a model's calls are).
# SUS_KERNELS (default the 48 warp-specialised kernels, `smem_wgmma_ws`, where the table of record's rows at 2048-16384
# tokens lie) keeps the compile short: session 62's first try swept all 742 candidates of 4096 tokens, and their cold
# compile outlasted both sweeps' share of a 440 s call (no row came back).
#   TARGETS="" [SUS_TOKS=…] [SUS_MS=…] [SUS_KERNELS=regex] [SUS_ROUNDS=3] STEPS=call40.sh bash docs/pending/device/p.sh
source $D/steps.sh
K=${SUS_KERNELS:-smem_wgmma_ws}
timeout $(( $(left) / 2 )) $B sweep --shapes $S --tokens ${SUS_TOKS:-4096} --kernels "$K" --cache-dir /tmp/kc \
  -o $OUT/light.csv --report $OUT/light.json -q > $L/sweep_light.txt 2>&1; stamp "sweep light rc=$?"
timeout $(( $(left) - 100 )) $B sweep --shapes $S --tokens ${SUS_TOKS:-4096} --kernels "$K" --cache-dir /tmp/kc \
  -o $OUT/sustained.csv --report $OUT/sustained.json --replay-ms ${SUS_MS:-300} --clock-rounds 0 -q \
  > $L/sweep_sustained.txt 2>&1; stamp "sweep sustained rc=$?"
for t in light sustained; do
  [ -f $OUT/$t.csv ] || { stamp "no $t table: no bench_ab"; return 0; }
  echo "$t:"; cut -d, -f3,15,17,18,20,21,23 $OUT/$t.csv | sed 's/moetune_moe[12]_afp8_wfp4_bf16_//g'
done
if [ "$(cut -d, -f18,21 $OUT/light.csv)" = "$(cut -d, -f18,21 $OUT/sustained.csv)" ]; then
  stamp "both sweeps picked the same kernels: no bench_ab"; return 0
fi
table_arm light $B $OUT/light.csv; table_arm sustained $B $OUT/sustained.csv
timeout $(( $(left) - 5 )) python3 scripts/bench_ab.py --arm light=/tmp/arm_light --arm sustained=/tmp/arm_sustained \
  --rounds ${SUS_ROUNDS:-3} --json $L/sustained_ab.json --markdown $OUT/sustained_ab.md -- --shapes $S \
  --tokens ${SUS_TOKS:-4096} --rounds 5 > $L/sustained_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/sustained_ab.md

# Device call 36 (session 60), any card (the H100 first: that is where it shows): is measure_gpu_test's two-state
# repeat timing the card's clocks? The repeat case alone, RUNS times (default 4), each with nvidia-smi sampling the
# SM and memory clocks, the power drawn and the active throttle reasons every 50 ms; the test prints its three
# repeats in run order (tests/measure, session 60). A run whose slow repeats coincide with a lower SM clock or a
# power-cap reason says clocks; flat clocks with the two states still there say placement or L2 (item 25).
#   TARGETS="measure_gpu_test" STEPS=call36.sh bash docs/pending/device/p.sh
source $D/steps.sh
for i in $(seq ${RUNS:-4}); do
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active \
    --format=csv,noheader,nounits -lms 50 > $OUT/clocks_$i.csv &
  SMI=$!
  gate repeat_$i 80 measure_gpu_test "repeated timing of one candidate varies by less than 3%"
  kill $SMI
  grep " M=" $L/gate_repeat_$i.txt
  awk -F', ' '{c[$2]++; r[$5]++; p += $4; n++}
    END {printf "  %d samples, power %.0f W; SM MHz:", n, p / n; for (k in c) printf " %s x%d", k, c[k];
         printf "; throttle reasons:"; for (k in r) printf " %s x%d", k, r[k]; print ""}' $OUT/clocks_$i.csv
done

# Device call 36 (session 60), any card: measure_gpu_test's repeat case alone, RUNS times (default 4), each with
# nvidia-smi sampling the SM and memory clocks, the power drawn and the active throttle reasons every 50 ms. The
# test prints each repeat in run order with the SM clock the measurer's probe read before and after it (session
# 61: on an H100 nvidia-smi said 1980 MHz throughout while the probe read 1965-2100 MHz and the times followed).
#   TARGETS="measure_gpu_test" STEPS=call36.sh bash docs/pending/device/p.sh
source $D/steps.sh
for i in $(seq ${RUNS:-4}); do
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active \
    --format=csv,noheader,nounits -lms 50 > $OUT/clocks_$i.csv &
  SMI=$!
  gate repeat_$i 80 measure_gpu_test "repeated timing of one candidate at one SM clock varies by less than 3%"
  kill $SMI
  grep " M=" $L/gate_repeat_$i.txt
  awk -F', ' '{c[$2]++; r[$5]++; p += $4; n++}
    END {printf "  %d samples, power %.0f W; SM MHz:", n, p / n; for (k in c) printf " %s x%d", k, c[k];
         printf "; throttle reasons:"; for (k in r) printf " %s x%d", k, r[k]; print ""}' $OUT/clocks_$i.csv
done

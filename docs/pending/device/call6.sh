# Device call 6: a kernel change measured against main, kernel by kernel: GATE (Catch2 names of
# moe_stage_kernels_test joined by commas), runtime_gpu_test, then `moetune measure` of the kernels
# KERNELS matches at each of TOKS tokens, main's build (PRE=old.sh) and this one in turn.
#   bash docs/pending/device/prep.sh =N, then:
#   PARTS==N PRE=old.sh GATE="..." KERNELS='regex' [TOKS=1024,2048] TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call6.sh bash docs/pending/device/p.sh
source $D/gate.sh
gate change 200 moe_stage_kernels_test "$GATE"
(cd build-dev && timeout 200 ctest -R runtime_gpu_test --output-on-failure > $L/runtime.txt 2>&1); stamp "runtime_gpu_test rc=$?"
grep -E "tests passed|FAILED|failed|with expansion" $L/runtime.txt | head -8
wait $OLD_PID; stamp "old built: $(tail -1 $L/build-old.log)"
TOKS=${TOKS:-1024,2048}
for m in ${TOKS//,/ }; do
  for arm in old new; do
    bin=$B; [ $arm = old ] && bin=/tmp/old-build/moetune
    timeout 90 $bin measure --shapes $S --tokens $m --mma fp8 --kernels "$KERNELS" > $L/measure_${arm}_$m.txt 2>&1
    stamp "measure $arm $m rc=$?"; grep moetune_moe $L/measure_${arm}_$m.txt
  done
done

# Device call 42 (session 64), any card: item 29's kernel family (_gemv, moe_gemv_stage{1,2}.hip). Its tests on the
# GPU (the kernels against the CPU reference at 1, 2 and 8 tokens; the weight copy and the f16 rows made on the GPU
# against the host's), then `moetune measure` of every _gemv candidate (gemv_space.sh puts them in the space on this
# copy only) beside the table of record's one-token kernels and their _r8 twins, at 1 and 2 tokens.
#   PRE=gemv_space.sh TARGETS="moe_stage_kernels_test measure_gpu_test" STEPS=call42.sh bash docs/pending/device/p.sh
(cd build-dev && timeout 240 ./moe_stage_kernels_test "the _gemv kernels match the reference" > $L/gemv_stage_test.txt 2>&1)
stamp "moe_stage_kernels_test (_gemv) rc=$?"; tail -2 $L/gemv_stage_test.txt
(cd build-dev && timeout 120 ./measure_gpu_test "the _gemv kernels' weight copy and f16 rows made on the GPU equal the host's" \
  > $L/gemv_layout_test.txt 2>&1)
stamp "measure_gpu_test (_gemv layouts) rc=$?"; tail -2 $L/gemv_layout_test.txt
cp $L/gemv_stage_test.txt $L/gemv_layout_test.txt $OUT/
K1='t16x64x512_w4_nt_wgmma(_r8)?_gui$|t16x128x256_atomic_nt_wgmma(_r8)?$|t16x128x512_atomic_nt_wgmma(_r8)?$'
for t in ${GEMV_TOKENS:-1 2}; do
  timeout $(( $(left) / 2 - 5 )) $B measure --shapes $S --tokens $t --mma fp8 --kernels "gemv|$K1" \
    --json $OUT/measure_gemv_$t.json > $OUT/measure_gemv_$t.txt 2>&1
  stamp "measure at $t tokens rc=$? ($(grep -c ' ok' $OUT/measure_gemv_$t.txt) ok)"
  for st in moe1 moe2; do grep "moetune_$st" $OUT/measure_gemv_$t.txt | grep " ok" | sort -k2 -n | head -4; done
  grep -E "$K1" $OUT/measure_gemv_$t.txt | grep -v gemv
  grep -v " ok" $OUT/measure_gemv_$t.txt | grep gemv | head -5
done

# Device call 41 (session 63), any card (the H200 first): item 29. gemv_probe.cu (nvcc; ~40 s with its host
# reference): one token's stages as GEMVs, with e4m3 and f16 products (MATH 1 and 3), beside their loads alone;
# then `moetune measure` of the table of record's one-token stage kernels at one token on the same machine, the
# probe's baseline (the H200 table's stage 2 is t16x128x256, an H100 sweep's t16x128x512: both).
#   TARGETS="" STEPS=call41.sh bash docs/pending/device/p.sh
(nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/gemv_probe $D/gemv_probe.cu && timeout 150 /tmp/gemv_probe) \
  > $OUT/gemv_probe.txt 2>&1
stamp "gemv probe rc=$? ($(grep -c pass $OUT/gemv_probe.txt) checks passed, $(grep -c FAIL $OUT/gemv_probe.txt) failed)"
grep -v "check:" $OUT/gemv_probe.txt | paste - - | sed 's/ \+/ /g; s/ (6[0-9.]* MB)//; s/ (3[0-9.]* MB)//'
K1='t16x64x512_w4_nt_wgmma_gui$|t16x128x256_atomic_nt_wgmma$|t16x128x512_atomic_nt_wgmma$'
timeout 120 $B measure --shapes $S --tokens 1 --mma fp8 --kernels "$K1" > $L/measure_1.txt 2>&1
stamp "measure of the one-token kernels rc=$?"; grep moetune_moe $L/measure_1.txt; cp $L/measure_1.txt $OUT/

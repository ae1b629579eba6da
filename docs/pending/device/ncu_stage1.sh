# Sourced by call4.sh and call5.sh: one launch of stage 1 t128x256 w12 `_K_gui_fp8` at M tokens (default 4096)
# under Nsight Compute, inside `moetune measure --in-process` (the launch after two warm-ups).
ncu_stage1() {  # ncu_stage1 BIN K OUT NCU_ARGS...: ncu's stdout into OUT
  local bin=$1 k=$2 out=$3; shift 3
  timeout 90 ncu --clock-control none -k regex:moetune_moe1 -s 2 -c 1 "$@" \
    $bin measure --in-process --shapes $S --tokens ${M:-4096} --stage 1 --mma fp8 \
    --kernels "t128x256x128_w12_smem_wgmma_${k}_gui_fp8\$" > $out 2>&1; stamp "${out##*/} rc=$?"
}

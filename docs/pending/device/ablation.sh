# Sourced by p.sh as PRE: applies ablation.patch to this copy of the tree before it is built (the device machine
# copies the tree afresh every call). The patch (not for main): NVRTC gets -DMOETUNE_ABLATE=A from the
# environment, `moetune measure` times a kernel whose output is wrong (err 1.0000, status still "ok"), and the _ws
# loop (common/moe_fp8_ws_gemm.h) drops, by the bits of A: 1 the rebase (_f4w), 2 the products, 4 the rebase's
# stores (its words kept alive), 8 the producers' copies of the rows, 16 their bulk copies of the weights.
# ABLATION=file: another patch of the same kind in this folder (session 45's ablation6.patch, for pending part 6:
# docs/results/2026-12-05-h200-f4w-1024).
patch -s -p1 --no-backup-if-mismatch < $D/${ABLATION:-ablation.patch} || { echo "${ABLATION:-ablation.patch} does not apply"; exit 1; }

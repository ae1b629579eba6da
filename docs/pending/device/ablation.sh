# Sourced by p.sh as PRE: applies rtc_defines.patch (NVRTC gets -DNAME=VALUE for each of MOETUNE_ABLATE,
# MOETUNE_L2_HINTS and MOETUNE_STREAM_LOAD set in the environment) and then an experiment patch, ablation.patch or
# ABLATION, to this copy of the tree before it is built (the device machine copies the tree afresh every call). Not
# for main. ablation.patch: `moetune measure` times a kernel whose output is wrong (err 1.0000, status still "ok"),
# and the _ws loop (common/moe_fp8_ws_gemm.h) drops, by the bits of MOETUNE_ABLATE: 1 the rebase (_f4w), 2 the
# products, 4 the rebase's stores (its words kept alive), 8 the producers' copies of the rows, 16 their bulk copies
# of the weights. ABLATION=file: another experiment patch in this folder (l2_hints.patch; session 49's
# read_once_rule.patch and read_once_form.patch are in docs/results/2026-12-06-h100-read-once/tooling, session 52's
# load_flavor.patch in docs/results/2026-12-06-h100-split-k/tooling; session 45's
# ablation6.patch, for pending part 6, is in docs/results/2026-12-05-h200-f4w-1024 with a
# tuner/rtc/compiler.cpp hunk of its own that rtc_defines.patch now replaces).
for x in rtc_defines.patch ${ABLATION:-ablation.patch}; do
  patch -s -p1 --no-backup-if-mismatch < $D/$x || { echo "$x does not apply"; exit 1; }
done

# Sourced by p.sh as PRE on a tree with docs/pending part 6 (prep.sh =6): applies ablation6.patch before the build.
# The patch (not for main): NVRTC gets -DMOETUNE_ABLATE=A from the environment, `moetune measure` times a kernel
# whose output is wrong, and part 6's _f4w loop drops, by the bits of A: 1 the rebase, 4 the
# rebase's table loads (ablate.sh measures).
patch -s -p1 --no-backup-if-mismatch < $D/ablation6.patch || { echo "ablation6.patch does not apply"; exit 1; }

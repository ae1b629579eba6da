# PRE for call42.sh: the _gemv kernels in the candidate space, on the device's copy only (the library does not run
# them yet, so a sweep must not pick them).
git apply $D/gemv_space.patch && echo "gemv_space.patch applied"

# PRE for call23.sh: the register-fed _fp8 stage 1 and the _mxr kernels in the candidate space, on the device's copy only.
git apply $D/mx_rows_space.patch && echo "mx_rows_space.patch applied"

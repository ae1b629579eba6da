# PRE: the register-fed kernels asking L2 for their own weights chunks ahead of their loads, set by
# MOETUNE_WEIGHTS_L2_AHEAD (l2_ahead.patch, session 55, docs/pending item 20), on the device's copy only.
git apply $D/l2_ahead.patch && echo "l2_ahead.patch applied"

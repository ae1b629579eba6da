# PRE: stage 1 asking L2 for stage 2's weights (l2_stage2_weights.patch, session 54), on the device's copy only.
git apply $D/l2_stage2_weights.patch && echo "l2_stage2_weights.patch applied"

# PRE: stage 1 asking L2 for part of stage 2's weights at a few tokens (l2_partial.patch, session 54), on the
# device's copy only.
git apply $D/l2_partial.patch && echo "l2_partial.patch applied"

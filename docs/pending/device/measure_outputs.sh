# PRE: the candidates' outputs kept by the bucket (measure_outputs.patch, session 59, docs/pending item 25), on the
# device's copy only.
git apply $D/measure_outputs.patch && echo "measure_outputs.patch applied"

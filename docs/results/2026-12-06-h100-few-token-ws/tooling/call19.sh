# Device call 19 (session 50): the sort's gate (data_gpu_test "[sort]", equal to the CPU sort) and runtime_gpu_test,
# then ab.sh (PRE=old.sh REVERSE=<the change's patch>: main's build against this one with the table of record).
#   PRE=old.sh REVERSE=docs/pending/device/<patch> AB_TOKS=... TARGETS="data_gpu_test runtime_gpu_test" STEPS="call19.sh ab.sh" bash docs/pending/device/p.sh
source $D/steps.sh
gate sort 200 data_gpu_test "[sort]"
runtime_test

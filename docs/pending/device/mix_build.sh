# Sourced by p.sh as a PRE after old.sh (PRE="old.sh mix_build.sh ..."): builds main + mix.patch (the mixed walk
# experiment: -DMOETUNE_MIX=q from the environment puts a quarter q of a _ws kernel's workgroups on the FP4 blocks)
# into /tmp/mix-build in the background, for mix.sh (wait $MIX_PID).
build_main /tmp/mixsrc /tmp/mix-build $L/build-mix.log mix.patch
MIX_PID=$!

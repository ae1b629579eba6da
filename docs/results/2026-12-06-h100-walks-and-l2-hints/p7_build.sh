# Sourced by p.sh as a PRE after old.sh (PRE="old.sh p7_build.sh"), from pending-=8: builds main + part 7 + its
# cap from the environment (split_tiles.patch) into /tmp/p7-build in the background, for call8.sh (wait $P7_PID).
build_main /tmp/p7src /tmp/p7-build $L/build-p7.log "../7-split-tail.patch split_tiles.patch"
P7_PID=$!

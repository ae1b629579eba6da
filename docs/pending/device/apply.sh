# PRE for a change kept here as a patch (APPLY: its paths, applied in turn to the device's copy), before old.sh,
# which then reverse-applies REVERSE (the same paths) in main's copy: the change measured against main.
for p in $APPLY; do git apply $p && echo "$p applied" || exit 1; done

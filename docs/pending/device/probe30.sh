# stream_probe.cu (nvcc) into $OUT/stream_probe.txt: the one-token stage shapes' loads alone, through a bulk ring,
# and (session 55) with L2 asked for the chunks ahead; sourced by call30.sh, or as a STEPS entry of its own.
(nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/stream_probe $D/stream_probe.cu && timeout 90 /tmp/stream_probe) > $OUT/stream_probe.txt 2>&1
stamp "stream probe rc=$?"; cat $OUT/stream_probe.txt

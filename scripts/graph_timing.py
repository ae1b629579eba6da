"""Times a GPU call the way moetune measures its kernels (docs/measurement.md): many calls captured
in one CUDA graph, so launch overhead and host jitter stay out, and the median of several replays.
Needs torch with CUDA (imported inside)."""
import statistics


def time_per_call_us(call, launches, warmup, replays):
    """call() captured `launches` times in one torch.cuda.CUDAGraph; `warmup` untimed replays, then
    `replays` replays each between two CUDA events. Returns the median replay time / launches, in µs."""
    import torch

    # Eager runs on a side stream before capture, as torch.cuda.graphs asks: lazy initialisation
    # (workspaces, kernel loading) must not happen inside the capture.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        call()
    torch.cuda.current_stream().wait_stream(side)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            call()
    for _ in range(warmup):
        graph.replay()

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times_ms = []
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))
    return statistics.median(times_ms) * 1000.0 / launches

"""Small `moetune bench` and peer_torch.py JSON documents in the schemas of docs/benchmarks.md, written
by the plot_bench tests (the real ones come from the H200)."""
import json
import os

SHAPE = {"model_dim": 512, "inter_dim": 256, "experts": 8, "topk": 2}


def arm(us):
    return {"us": us, "block_m": 16, "kernel_name1": "k1", "kernel_name2": "k2", "tbps": 1.0, "tflops": 1.0,
            "roofline_pct": 0.0}


def bench_document():
    """Three buckets: tuned 2x faster than default at 1 and 4 tokens, no tuned row at 2."""
    buckets = []
    for tokens, roofline, default, tuned in ((4, 30.0, 120.0, 60.0), (1, 10.0, 40.0, 20.0), (2, 20.0, 80.0, None)):
        buckets.append({"tokens": tokens, "experts_touched": 2, "bytes": 1, "flops": 1, "roofline_us": roofline,
                        "default": arm(default), "tuned": None if tuned is None else arm(tuned),
                        "speedup": None if tuned is None else default / tuned, "max_abs_diff": 0.0, "rel_l2": 0.0})
    other = dict(SHAPE, model_dim=1024)
    return {"tool": "moetune bench", "device": "Test GPU", "rounds": 3,
            "peaks": {"hbm_tbps": 4.27, "hbm_source": "flag", "tflops": 1550, "tflops_source": "flag"},
            "shapes": [dict(SHAPE, buckets=buckets), dict(other, buckets=buckets[:1])]}


def peer_document():
    """torch at 100 µs for every bucket of the bench shape except 4 tokens; another shape first."""
    buckets = [{"tokens": tokens, "us": 100.0, "experts_touched": 2, "bytes": 1, "flops": 1, "roofline_us": 1.0,
                "roofline_pct": 1.0, "err_cosine": 0.0} for tokens in (1, 2)]
    return {"tool": "peer_torch", "device": "Test GPU", "torch": "0", "command": [], "timing": {},
            "peaks": {"hbm_tbps": 4.27, "tflops": 1550},
            "shapes": [dict(SHAPE, topk=3, buckets=[]), dict(SHAPE, buckets=buckets)]}


def write(directory, name, document):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=2)
    return path

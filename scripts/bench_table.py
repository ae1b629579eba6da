"""Sets one shape of a `moetune bench` JSON beside the matching shape of a peer_torch.py JSON, bucket
by bucket, and renders the comparison as markdown. No third-party modules: plot_bench.py draws from
the same rows, and this part runs (and is tested) anywhere.

Every "% of roofline" here is computed from the bench bucket's roofline_us, so default, tuned and
torch are measured against one bound even where the two runs used different peaks.
"""
import json
from dataclasses import dataclass

import exit_codes
import moe_roofline

SHAPE_FIELDS = ("model_dim", "inter_dim", "experts", "topk")


@dataclass
class BucketRow:
    tokens: int
    roofline_us: float
    default_us: float  # None where the arm has no time
    tuned_us: float  # None where the tuned table has no row for the bucket
    torch_us: float  # None without a peer JSON or without the bucket in it

    def pct(self, us):
        return None if us is None else moe_roofline.roofline_pct(self.roofline_us, us)

    def tuned_over_torch(self):
        return None if self.tuned_us is None or self.torch_us is None else self.tuned_us / self.torch_us


def load_json(path):
    """The parsed file; ExitError(USAGE) naming path[:line] when it cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except OSError as error:
        raise exit_codes.ExitError(exit_codes.USAGE, f"{path}: cannot open: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise exit_codes.ExitError(exit_codes.USAGE, f"{path}:{error.lineno}: not JSON: {error.msg}") from None
    except UnicodeDecodeError:
        raise exit_codes.ExitError(exit_codes.USAGE, f"{path}: not UTF-8 text") from None


def _field(obj, name, where, kinds=(int, float)):
    value = obj.get(name) if isinstance(obj, dict) else None
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise exit_codes.ExitError(exit_codes.USAGE, f"{where}: missing or invalid '{name}'")
    return value


def _shapes(document, path):
    shapes = document.get("shapes") if isinstance(document, dict) else None
    if not isinstance(shapes, list):
        raise exit_codes.ExitError(exit_codes.USAGE, f"{path}: no 'shapes' list")
    return shapes


def shape_count(document, path):
    """How many shapes a bench (or peer) document holds; ExitError(USAGE) without a 'shapes' list."""
    return len(_shapes(document, path))


def shape_key(shape, where):
    return tuple(_field(shape, name, where, int) for name in SHAPE_FIELDS)


def describe_shape(key):
    model_dim, inter_dim, experts, topk = key
    return f"model_dim {model_dim}, inter_dim {inter_dim}, {experts} experts, top-{topk}"


def _arm_us(bucket, arm, where):
    """The arm's µs, or None when the arm is null (tuned without a table row)."""
    if bucket.get(arm) is None:
        return None
    return _field(bucket[arm], "us", f"{where}.{arm}")


def _peer_times(peer, peer_path, key):
    """tokens -> µs of the peer shape with this key ({} without a peer or a matching shape)."""
    if peer is None:
        return {}
    for s, shape in enumerate(_shapes(peer, peer_path)):
        where = f"{peer_path}: shapes[{s}]"
        if shape_key(shape, where) == key:
            buckets = shape.get("buckets") or []
            return {_field(b, "tokens", f"{where}.buckets[{i}]", int): _field(b, "us", f"{where}.buckets[{i}]")
                    for i, b in enumerate(buckets)}
    return {}


def compare(bench, bench_path, peer, peer_path, shape_index):
    """(shape key, [BucketRow ascending by tokens]) for bench shape number shape_index."""
    shapes = _shapes(bench, bench_path)
    if not 0 <= shape_index < len(shapes):
        raise exit_codes.ExitError(exit_codes.USAGE,
                                   f"{bench_path}: --shape {shape_index} out of range ({len(shapes)} shape(s))")
    where = f"{bench_path}: shapes[{shape_index}]"
    shape = shapes[shape_index]
    key = shape_key(shape, where)
    torch_us = _peer_times(peer, peer_path, key)
    rows = []
    for i, bucket in enumerate(shape.get("buckets") or []):
        at = f"{where}.buckets[{i}]"
        tokens = _field(bucket, "tokens", at, int)
        rows.append(BucketRow(tokens, _field(bucket, "roofline_us", at), _arm_us(bucket, "default", at),
                              _arm_us(bucket, "tuned", at), torch_us.get(tokens)))
    if not rows:
        raise exit_codes.ExitError(exit_codes.USAGE, f"{where}: no buckets")
    return key, sorted(rows, key=lambda row: row.tokens)


def _cell(value, form):
    return "—" if value is None else form.format(value)


def markdown_table(key, rows, device):
    """A heading naming shape and device, then one table row per bucket."""
    lines = [f"### {describe_shape(key)} ({device})", "",
             "| tokens | roofline µs | default µs | tuned µs | torch µs | tuned % of roofline | tuned / torch |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row.tokens} | {row.roofline_us:.2f} | {_cell(row.default_us, '{:.2f}')} | "
                     f"{_cell(row.tuned_us, '{:.2f}')} | {_cell(row.torch_us, '{:.2f}')} | "
                     f"{_cell(row.pct(row.tuned_us), '{:.1f} %')} | {_cell(row.tuned_over_torch(), '{:.2f}')} |")
    return "\n".join(lines) + "\n"

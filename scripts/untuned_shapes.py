"""The MoE shapes and token buckets of an AITER untuned CSV (docs/table-format.md), for the Python
scripts: one MoeShape per distinct (model_dim, inter_dim, expert, topk), in the order the file
first names it, with the token counts of its rows as buckets.

Only the SiLU gate/up MoE (act_type ActivationType.Silu, use_g1u1 1) is accepted, since that is the
only MoE peer_torch.py builds; the quantisation columns are not read (the peer is FP8 whatever they
say). Errors name FILE:LINE and exit 2, as the moetune commands do.
"""
import csv
from dataclasses import dataclass, field

import exit_codes

REQUIRED_COLUMNS = ("token", "model_dim", "inter_dim", "expert", "topk")
# Column -> the one value peer_torch.py can build, when the column is present.
SUPPORTED_VALUES = {"act_type": "ActivationType.Silu", "use_g1u1": "1"}


@dataclass
class MoeShape:
    model_dim: int
    inter_dim: int
    experts: int
    topk: int
    line: int  # where the file first names the shape, for messages
    tokens: list = field(default_factory=list)  # ascending, distinct

    def key(self):
        return (self.model_dim, self.inter_dim, self.experts, self.topk)


def _usage_error(where, message):
    return exit_codes.ExitError(exit_codes.USAGE, f"{where}: {message}")


def _positive_int(text, column, where):
    try:
        value = int(text.strip())
    except ValueError:
        raise _usage_error(where, f"{column} '{text}' is not an integer") from None
    if value < 1:
        raise _usage_error(where, f"{column} {value} is not positive")
    return value


def parse_token_list(text, where="--tokens"):
    """'1,2,4' -> [1, 2, 4] (ascending, distinct)."""
    return sorted({_positive_int(item, "token count", where) for item in text.split(",")})


def read_shapes(path):
    """Reads path; raises ExitError(USAGE) naming path:line for what it cannot use."""
    try:
        with open(path, newline="", encoding="utf-8") as stream:
            return _parse_rows(path, csv.reader(stream))
    except OSError as error:
        raise _usage_error(path, f"cannot open: {error.strerror}") from None
    except UnicodeDecodeError:
        raise _usage_error(path, "not UTF-8 text") from None


def _parse_rows(path, reader):
    header = next(reader, None)
    if header is None:
        raise _usage_error(f"{path}:1", "empty file, expected an AITER untuned CSV header")
    columns = {name.strip().lstrip("\ufeff"): index for index, name in enumerate(header)}
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        raise _usage_error(f"{path}:1", f"missing column(s) {', '.join(missing)}")

    shapes = {}
    for row in reader:
        where = f"{path}:{reader.line_num}"
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise _usage_error(where, f"{len(row)} fields, the header has {len(header)}")
        for column, value in SUPPORTED_VALUES.items():
            if column in columns and row[columns[column]].strip() != value:
                raise _usage_error(where, f"{column} '{row[columns[column]]}': only {value} is supported")
        model_dim, inter_dim, experts, topk = (
            _positive_int(row[columns[name]], name, where) for name in REQUIRED_COLUMNS[1:])
        if topk > experts:
            raise _usage_error(where, f"topk {topk} exceeds expert {experts}")
        shape = shapes.setdefault((model_dim, inter_dim, experts, topk),
                                  MoeShape(model_dim, inter_dim, experts, topk, reader.line_num))
        shape.tokens.append(_positive_int(row[columns["token"]], "token", where))

    if not shapes:
        raise _usage_error(f"{path}:1", "no shape rows")
    for shape in shapes.values():
        shape.tokens = sorted(set(shape.tokens))
    return list(shapes.values())

"""Writes a whole file or nothing, as tuner/common/atomic_file.h does for the C++ commands: the
content goes to a temporary file in the target's directory, is fsync'ed, then renamed over the
target, so a reader (or a run killed midway) never sees a torn JSON, PNG or markdown file."""
import os
import tempfile

import exit_codes


def check_writable(path):
    """Fails early (exit 4) when the directory of path cannot take a file, so a long measurement
    does not end in an unwritable output."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise exit_codes.ExitError(exit_codes.CANNOT_WRITE, f"cannot write {path}: directory missing or read-only")


def write_file_atomically(path, content):
    """content: bytes. Raises ExitError(CANNOT_WRITE) naming path when it cannot be written."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.tmp.")
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        # mkstemp creates 0600; an output is an ordinary file.
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as error:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise exit_codes.ExitError(exit_codes.CANNOT_WRITE, f"cannot write {path}: {error.strerror or error}")

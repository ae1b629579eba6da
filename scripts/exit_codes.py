"""The exit codes of moetune's Python scripts: the same meanings as the moetune commands
(docs/exit-codes.md, tuner/cli/exit_codes.h), so a job script can treat both alike.

A script raises ExitError where it gives up; run_main turns it into the message on stderr and the
exit status, so the failure paths stay testable as exceptions.
"""
import sys

OK = 0
FAILED = 1  # the job ran and found problems
USAGE = 2  # bad flags, or an input file that cannot be opened or parsed
NO_GPU = 3  # no usable GPU (or no PyTorch with CUDA to reach it)
CANNOT_WRITE = 4  # an output cannot be written; nothing was written
INTERRUPTED = 130


class ExitError(Exception):
    """A reason to stop, with the exit code it maps to. str() is the message (FILE:LINE: ... where
    an input is at fault)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def run_main(main, argv=None):
    """Runs main(argv) and returns its exit code; an ExitError or Ctrl-C becomes a one-line
    message on stderr and its code."""
    try:
        return main(sys.argv[1:] if argv is None else argv)
    except ExitError as error:
        print(error, file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED

#pragma once
// The exit codes every moetune command uses (documented in docs/exit-codes.md).
namespace moetune::cli {

enum ExitCode : int {
    kExitOk = 0,           // the job succeeded (check: no errors; --strict: no warnings either)
    kExitFailed = 1,       // the job ran and found problems (check errors, merge conflicts, untuned shapes)
    kExitUsage = 2,        // bad command line, or an input file that cannot be opened or parsed
    kExitNoGpu = 3,        // a GPU command on a host (or build) without a usable GPU
    kExitCannotWrite = 4,  // an output file or directory that cannot be written; nothing was written
    kExitInterrupted = 130,
};

}  // namespace moetune::cli

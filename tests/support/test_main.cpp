// The main of every test binary. A binary built with MOETUNE_TEST_REQUIRES_GPU or
// MOETUNE_TEST_REQUIRES_SHARED first checks that what it needs is here; if not it exits with 77,
// which ctest reports as *skipped* (SKIP_RETURN_CODE), never as passed.
#define CATCH_CONFIG_RUNNER
#include "support/catch.hpp"

#include <cstdio>

#include "support/test_env.h"

int main(int argc, char** argv) {
#ifdef MOETUNE_TEST_REQUIRES_GPU
    if (std::string why = moetune::test::gpu_unavailable_reason(); !why.empty()) {
        std::printf("SKIPPED: %s\n", why.c_str());
        return moetune::test::kSkipExitCode;
    }
#endif
#ifdef MOETUNE_TEST_REQUIRES_SHARED
    if (!moetune::test::shared_dir_present()) {
        std::printf("SKIPPED: %s not found (set MOETUNE_SHARED_DIR)\n", moetune::test::shared_dir().c_str());
        return moetune::test::kSkipExitCode;
    }
#endif
    return Catch::Session().run(argc, argv);
}

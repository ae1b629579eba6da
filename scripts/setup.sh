#!/usr/bin/env bash
# Sets moetune up on a new host: distro packages, configure, build. The binary is build/moetune.
#   scripts/setup.sh
# Environment: MOETUNE_GPU=auto|cuda|hip|none (default auto), MOETUNE_SKIP_APT=1 to skip apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /usr/local/cuda/bin ]] && export PATH="/usr/local/cuda/bin:$PATH"
[[ "${MOETUNE_SKIP_APT:-0}" == 1 ]] || scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOETUNE_GPU="${MOETUNE_GPU:-auto}" >/dev/null
cmake --build build --target moetune
echo "setup: built build/moetune"

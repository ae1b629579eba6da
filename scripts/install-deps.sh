#!/usr/bin/env bash
# Installs moetune's build dependencies from the distro packages (Debian 12, Ubuntu 24.04).
# libamdhip64-dev brings the HIP headers and hipRTC that the AMD build path is checked against;
# python3 runs the scripts' tests (tests/scripts; without it CMake leaves them out, silently), and
# python3-matplotlib lets scripts_plot_png_test draw the PNG instead of skipping.
set -euo pipefail
command -v apt-get >/dev/null || { echo "install-deps: no apt-get; install CMake, Ninja, CLI11, nlohmann-json, spdlog, Catch2 by hand" >&2; exit 2; }
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  g++ cmake ninja-build libcli11-dev nlohmann-json3-dev libspdlog-dev catch2 libamdhip64-dev python3 python3-matplotlib >/dev/null
echo "install-deps: done"

#pragma once
// Kernel names: a KernelConfig printed in a grammar that mirrors AITER's FlyDSL names
// (aiter-fmoe-format.md §3.4), and parsed back into exactly the same config.
//
//   moetune_moe1_a{A}_w{W}_{OUT}_t{M}x{N}x{K}[_w{warps}][_nt][_mbf16]_gui[_fp8]
//   moetune_moe2_a{A}_w{W}_{OUT}_t{M}x{N}x{K}_{atomic|reduce}[_w{warps}][_nt][_mbf16][_sbm{S}]
//
// Optional tokens are omitted when they hold their default, so every config has exactly one name
// and the round trip is exact. _gui is required: it names the only W1 layout the stage-1 kernel
// reads (gate/up interleaved, as AITER's a8w4 names always say). Full grammar: docs/kernel-names.md.
#include <optional>
#include <string>
#include <string_view>

#include "kernels/kernel_config.h"

namespace moetune::kernels {

// Throws std::invalid_argument (with config_error's reason) for a config that is not well formed.
std::string kernel_name(const KernelConfig& c);

// The config a name stands for. Rejects (nullopt, reason in *why_not when given) anything that is
// not the canonical name of a well-formed config: unknown, misordered or repeated tokens, tokens of
// the other stage, default values spelled out, numbers with leading zeros.
std::optional<KernelConfig> parse_kernel_name(std::string_view name, std::string* why_not = nullptr);

}  // namespace moetune::kernels

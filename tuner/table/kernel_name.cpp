#include "table/kernel_name.h"

#include <array>
#include <utility>

#include "table/cell_value.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

// Longer prefixes first: flydsl_moe2_layout_ must win over flydsl_moe2_.
constexpr std::array<std::pair<std::string_view, KernelFamily>, 10> kPrefixes = {{
    {"flydsl_moe1_a", KernelFamily::flydsl_stage1},
    {"flydsl_moe2_layout_a", KernelFamily::flydsl_stage2_layout},
    {"flydsl_moe2_a", KernelFamily::flydsl_stage2},
    {"flydsl_mxmoe_g1_", KernelFamily::flydsl_mxmoe},
    {"flydsl_mxmoe_g2_", KernelFamily::flydsl_mxmoe},
    {"opus_moe1_", KernelFamily::opus},
    {"opus_moe2_", KernelFamily::opus},
    {"cktile_", KernelFamily::cktile},
    {"moe_ck2stages_gemm", KernelFamily::ck_2stages},
    {"moetune_", KernelFamily::moetune},
}};

// _ZN5aiter47fmoe_stage1_bf16_pertokenFp8_g1u1_32x64_4tg_pf3E: the Itanium mangling of
// aiter::<name>, where the decimal before the name is its length. A truncated or hand-edited
// symbol fails the length check and would not load.
bool is_asm_symbol(std::string_view name) {
    constexpr std::string_view prefix = "_ZN5aiter";
    if (name.substr(0, prefix.size()) != prefix || name.size() < prefix.size() + 2 || name.back() != 'E') return false;
    std::string_view rest = name.substr(prefix.size(), name.size() - prefix.size() - 1);
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    const std::optional<long long> length = parse_integer(rest.substr(0, digits));
    if (digits == 0 || !length) return false;
    const std::string_view symbol = rest.substr(digits);
    return static_cast<long long>(symbol.size()) == *length && symbol.substr(0, 5) == "fmoe_";
}

}  // namespace

KernelFamily kernel_family(std::string_view name) {
    if (is_empty_kernel_slot(name)) return KernelFamily::none;
    for (const auto& [prefix, family] : kPrefixes)
        if (name.substr(0, prefix.size()) == prefix) return family;
    if (is_asm_symbol(name)) return KernelFamily::asm_kernel;
    return KernelFamily::unknown;
}

}  // namespace moetune::table

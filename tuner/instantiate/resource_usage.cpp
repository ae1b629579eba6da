#include "instantiate/resource_usage.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "instantiate/compile_target.h"

namespace moetune::instantiate {
namespace {

// The decimal number that ends right before text[end] (skipping spaces), or nullopt.
std::optional<long long> number_before(std::string_view text, std::size_t end) {
    while (end > 0 && text[end - 1] == ' ') --end;
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) --begin;
    if (begin == end || end - begin > 12) return std::nullopt;
    return std::stoll(std::string(text.substr(begin, end - begin)));
}

// The decimal number that starts at text[begin] and is followed by `unit`, or nullopt.
std::optional<long long> number_with_unit(std::string_view text, std::size_t begin, std::string_view unit) {
    std::size_t end = begin;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (begin == end || end - begin > 12 || text.substr(end, unit.size()) != unit) return std::nullopt;
    return std::stoll(std::string(text.substr(begin, end - begin)));
}

// ptxas -v, per entry function:
//   ptxas         .     56 bytes stack frame, 52 bytes spill stores, 52 bytes spill loads
//   ptxas info    : Used 255 registers, used 0 barriers, 56 bytes cumulative stack size
std::optional<ResourceUsage> from_ptxas_log(std::string_view log) {
    std::optional<ResourceUsage> usage;
    constexpr std::string_view kUsed = "Used ";
    for (std::size_t at = log.find(kUsed); at != std::string_view::npos; at = log.find(kUsed, at + 1)) {
        const auto registers = number_with_unit(log, at + kUsed.size(), " registers");
        if (!registers) continue;
        if (!usage) usage = ResourceUsage{};
        usage->registers = std::max(usage->registers, int(*registers));
    }
    constexpr std::string_view kSpill = " bytes spill stores";
    for (std::size_t at = log.find(kSpill); at != std::string_view::npos; at = log.find(kSpill, at + 1))
        if (const auto bytes = number_before(log, at); bytes && usage) usage->spill_bytes += int(*bytes);
    return usage;
}

// An unsigned msgpack integer at data[pos] (fixint, uint8/16/32/64), or nullopt.
std::optional<std::uint64_t> msgpack_uint(std::string_view data, std::size_t pos) {
    if (pos >= data.size()) return std::nullopt;
    const auto byte = [&](std::size_t i) { return std::uint64_t(static_cast<unsigned char>(data[i])); };
    const std::uint64_t tag = byte(pos);
    if (tag <= 0x7F) return tag;
    int width = 0;
    switch (tag) {
        case 0xCC: width = 1; break;
        case 0xCD: width = 2; break;
        case 0xCE: width = 4; break;
        case 0xCF: width = 8; break;
        default: return std::nullopt;
    }
    if (data.size() - pos - 1 < std::size_t(width)) return std::nullopt;
    std::uint64_t v = 0;
    for (int i = 1; i <= width; ++i) v = (v << 8) | byte(pos + i);  // big-endian
    return v;
}

// Every value stored under `key` in the code object's msgpack metadata (one per kernel). Keys are
// fixstr: one byte 0xA0 | length, then the characters.
std::vector<std::uint64_t> metadata_values(std::string_view code, std::string_view key) {
    std::string encoded(1, char(0xA0 | key.size()));
    encoded += key;
    std::vector<std::uint64_t> values;
    for (std::size_t at = code.find(encoded); at != std::string_view::npos; at = code.find(encoded, at + 1))
        if (const auto v = msgpack_uint(code, at + encoded.size())) values.push_back(*v);
    return values;
}

std::optional<ResourceUsage> from_amd_metadata(std::string_view code) {
    const std::vector<std::uint64_t> vgprs = metadata_values(code, ".vgpr_count");
    if (vgprs.empty()) return std::nullopt;
    ResourceUsage usage;
    for (std::uint64_t v : vgprs) usage.registers = std::max(usage.registers, int(v));
    constexpr int kBytesPerVgpr = 4;
    for (std::uint64_t v : metadata_values(code, ".vgpr_spill_count")) usage.spill_bytes += int(v) * kBytesPerVgpr;
    return usage;
}

}  // namespace

std::optional<ResourceUsage> resource_usage(const rtc::CompiledCode& code, std::string_view arch) {
    const auto vendor = target_vendor(arch);
    if (!vendor) return std::nullopt;
    return *vendor == TargetVendor::nvidia ? from_ptxas_log(code.log) : from_amd_metadata(code.code);
}

std::optional<std::string> spill_reason(const ResourceUsage& usage, const kernels::KernelConfig& config) {
    if (usage.spill_bytes == 0 || config.min_workgroups > 0) return std::nullopt;
    return "spills " + std::to_string(usage.spill_bytes) + " bytes at " + std::to_string(usage.registers) +
           " registers";
}

}  // namespace moetune::instantiate

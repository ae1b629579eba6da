#include "kernels/kernel_name.h"

#include <charconv>
#include <stdexcept>
#include <vector>

namespace moetune::kernels {
namespace {

constexpr std::string_view kPrefix = "moetune";

// The suffix tokens (the stage-2 mode, stage 1's gui and the optional ones). Declaration order is
// the one order a name spells them in, for printing and for the parser's order check.
// _kw sits where AITER's FlyDSL names put it: after _gui, before _fp8 and _sbm.
// _smem, _wgmma, _ws, _f4w, _ro, _mxr, _r8 and _gemv (moetune's) next to _nt, the other operand-loading knobs; _occ
// (moetune's) right after _w, the other knob of how many warps share an SM.
enum class Suffix : int { mode, warps, occupancy, nontemporal, smem, wgmma, ws, f4w, ro, mxr, r8, gemv, mma, gui, kw, fp8, sbm };
constexpr int kSuffixCount = static_cast<int>(Suffix::sbm) + 1;

// 0 = both stages.
int stage_of(Suffix s) {
    switch (s) {
        case Suffix::mode:
        case Suffix::sbm: return 2;
        case Suffix::gui:
        case Suffix::fp8: return 1;
        default: return 0;
    }
}

// The token a config spells for one suffix kind, or "" when the kind is absent (default value).
std::string suffix_token(const KernelConfig& c, Suffix s) {
    const KernelConfig defaults;
    const bool stage1 = c.stage == Stage::gate_up;
    switch (s) {
        case Suffix::mode:
            if (stage1) return "";
            return c.mode == Stage2Mode::atomic ? "atomic" : "reduce";
        case Suffix::warps: return c.warps == defaults.warps ? "" : "w" + std::to_string(c.warps);
        case Suffix::occupancy:
            return c.min_workgroups == defaults.min_workgroups ? "" : "occ" + std::to_string(c.min_workgroups);
        case Suffix::nontemporal: return c.nontemporal_weights ? "nt" : "";
        case Suffix::smem: return c.shared_operands ? "smem" : "";
        case Suffix::wgmma: return c.wgmma ? "wgmma" : "";
        case Suffix::ws: return c.warp_specialised ? "ws" : "";
        case Suffix::f4w: return c.fp4_weights ? "f4w" : "";
        case Suffix::ro: return c.weights_read_once ? "ro" : "";
        case Suffix::mxr: return c.mx_rows ? "mxr" : "";
        case Suffix::r8: return c.eight_rows ? "r8" : "";
        case Suffix::gemv: return c.gemv ? "gemv" : "";
        case Suffix::mma: return c.mma == defaults.mma ? "" : "m" + std::string(mma_path_token(c.mma));
        case Suffix::gui: return stage1 ? "gui" : "";
        case Suffix::kw: return c.k_warps == defaults.k_warps ? "" : "kw" + std::to_string(c.k_warps);
        case Suffix::fp8: return stage1 && c.fused_mxfp8_out ? "fp8" : "";
        case Suffix::sbm: return !stage1 && c.sort_block != 0 ? "sbm" + std::to_string(c.sort_block) : "";
    }
    return "";
}

// Decimal without sign or leading zeros (so each value has one spelling).
std::optional<int> parse_number(std::string_view s) {
    if (s.empty() || s.size() > 6 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
    int v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

struct ParsedSuffix {
    Suffix kind;
    int value = 0;  // numeric tokens; mode: the Stage2Mode; mma: the MmaPath
};

std::optional<ParsedSuffix> classify(std::string_view token) {
    if (token == "atomic") return ParsedSuffix{Suffix::mode, static_cast<int>(Stage2Mode::atomic)};
    if (token == "reduce") return ParsedSuffix{Suffix::mode, static_cast<int>(Stage2Mode::reduce)};
    if (token == "nt") return ParsedSuffix{Suffix::nontemporal};
    if (token == "smem") return ParsedSuffix{Suffix::smem};
    if (token == "wgmma") return ParsedSuffix{Suffix::wgmma};
    if (token == "ws") return ParsedSuffix{Suffix::ws};
    if (token == "f4w") return ParsedSuffix{Suffix::f4w};
    if (token == "ro") return ParsedSuffix{Suffix::ro};
    if (token == "mxr") return ParsedSuffix{Suffix::mxr};
    if (token == "r8") return ParsedSuffix{Suffix::r8};
    if (token == "gemv") return ParsedSuffix{Suffix::gemv};
    if (token == "gui") return ParsedSuffix{Suffix::gui};
    if (token == "fp8") return ParsedSuffix{Suffix::fp8};
    // m{path}: "mfp8" parses too, so that it is rejected as a default spelled out.
    if (token.substr(0, 1) == "m")
        if (auto path = mma_path_from_token(token.substr(1))) return ParsedSuffix{Suffix::mma, static_cast<int>(*path)};
    for (auto [keyword, kind] : {std::pair{std::string_view("sbm"), Suffix::sbm},
                                 std::pair{std::string_view("kw"), Suffix::kw},
                                 std::pair{std::string_view("occ"), Suffix::occupancy},
                                 std::pair{std::string_view("w"), Suffix::warps}}) {
        if (token.substr(0, keyword.size()) != keyword) continue;
        if (auto v = parse_number(token.substr(keyword.size()))) return ParsedSuffix{kind, *v};
        return std::nullopt;
    }
    return std::nullopt;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == sep) {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

std::optional<KernelConfig> reject(std::string* why_not, std::string reason) {
    if (why_not) *why_not = std::move(reason);
    return std::nullopt;
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

std::string kernel_name(const KernelConfig& c) {
    if (auto err = config_error(c)) throw std::invalid_argument("kernel config: " + *err);
    std::string name = std::string(kPrefix) + "_moe" + std::to_string(stage_number(c.stage)) + "_a" +
                       std::string(dtype_token(c.act)) + "_w" + std::string(dtype_token(c.weight)) + "_" +
                       std::string(dtype_token(c.out)) + "_t" + std::to_string(c.tile_m) + "x" +
                       std::to_string(c.tile_n) + "x" + std::to_string(c.tile_k);
    for (int s = 0; s < kSuffixCount; ++s)
        if (std::string t = suffix_token(c, static_cast<Suffix>(s)); !t.empty()) name += "_" + t;
    return name;
}

std::optional<KernelConfig> parse_kernel_name(std::string_view name, std::string* why_not) {
    const std::vector<std::string_view> tokens = split(name, '_');
    for (std::string_view t : tokens)
        if (t.empty()) return reject(why_not, "empty token (doubled, leading or trailing '_')");
    // prefix, stage, activation, weight, out, tile.
    if (tokens.size() < 6 || tokens[0] != kPrefix)
        return reject(why_not, "expected moetune_moe{1|2}_a{dtype}_w{dtype}_{out}_t{M}x{N}x{K}[_suffix...]");

    KernelConfig c;
    if (tokens[1] == "moe1") c.stage = Stage::gate_up;
    else if (tokens[1] == "moe2") c.stage = Stage::down;
    else return reject(why_not, "unknown stage " + quoted(tokens[1]) + " (moe1 or moe2)");

    const auto act = tokens[2][0] == 'a' ? dtype_from_token(tokens[2].substr(1)) : std::nullopt;
    if (!act) return reject(why_not, "bad activation dtype " + quoted(tokens[2]) + " (afp8, afp4, abf16)");
    const auto weight = tokens[3][0] == 'w' ? dtype_from_token(tokens[3].substr(1)) : std::nullopt;
    if (!weight) return reject(why_not, "bad weight dtype " + quoted(tokens[3]) + " (wfp4, wfp8, wbf16)");
    const auto out = dtype_from_token(tokens[4]);
    if (!out) return reject(why_not, "bad output dtype " + quoted(tokens[4]) + " (bf16)");
    c.act = *act;
    c.weight = *weight;
    c.out = *out;

    const std::vector<std::string_view> dims = tokens[5][0] == 't' ? split(tokens[5].substr(1), 'x')
                                                                    : std::vector<std::string_view>{};
    std::optional<int> m, n, k;
    if (dims.size() == 3) {
        m = parse_number(dims[0]);
        n = parse_number(dims[1]);
        k = parse_number(dims[2]);
    }
    if (!m || !n || !k) return reject(why_not, "bad tile " + quoted(tokens[5]) + " (t{M}x{N}x{K})");
    c.tile_m = *m;
    c.tile_n = *n;
    c.tile_k = *k;

    const int stage = stage_number(c.stage);
    bool seen[kSuffixCount] = {};
    int last = -1;
    std::string_view last_token;
    for (std::size_t i = 6; i < tokens.size(); ++i) {
        const std::string_view tok = tokens[i];
        const auto s = classify(tok);
        if (!s) return reject(why_not, "unknown token " + quoted(tok));
        const int kind = static_cast<int>(s->kind);
        if (stage_of(s->kind) != 0 && stage_of(s->kind) != stage)
            return reject(why_not, "token " + quoted(tok) + " belongs in stage-" +
                                       std::to_string(stage_of(s->kind)) + " names only");
        if (seen[kind]) return reject(why_not, "token " + quoted(tok) + " repeats an earlier token");
        if (kind < last)
            return reject(why_not, "token " + quoted(tok) + " must come before " + quoted(last_token));
        seen[kind] = true;
        last = kind;
        last_token = tok;
        switch (s->kind) {
            case Suffix::mode: c.mode = static_cast<Stage2Mode>(s->value); break;
            case Suffix::warps: c.warps = s->value; break;
            case Suffix::occupancy: c.min_workgroups = s->value; break;
            case Suffix::nontemporal: c.nontemporal_weights = true; break;
            case Suffix::smem: c.shared_operands = true; break;
            case Suffix::wgmma: c.wgmma = true; break;
            case Suffix::ws: c.warp_specialised = true; break;
            case Suffix::f4w: c.fp4_weights = true; break;
            case Suffix::ro: c.weights_read_once = true; break;
            case Suffix::mxr: c.mx_rows = true; break;
            case Suffix::r8: c.eight_rows = true; break;
            case Suffix::gemv: c.gemv = true; break;
            case Suffix::mma: c.mma = static_cast<MmaPath>(s->value); break;
            case Suffix::gui: break;  // the one W1 layout; checked below
            case Suffix::kw: c.k_warps = s->value; break;
            case Suffix::fp8: c.fused_mxfp8_out = true; break;
            case Suffix::sbm: c.sort_block = s->value; break;
        }
    }
    if (c.stage == Stage::down && !seen[static_cast<int>(Suffix::mode)])
        return reject(why_not, "stage-2 names need _atomic or _reduce after the tile");
    if (c.stage == Stage::gate_up && !seen[static_cast<int>(Suffix::gui)])
        return reject(why_not, "stage-1 names need _gui (W1 gate/up interleaved per 16 rows is the layout the "
                               "kernel reads; separated gate/up is not implemented)");
    if (auto err = config_error(c)) return reject(why_not, *err);

    // Every token is now known, in order and in range; what remains is a default spelled out
    // (e.g. _w8), which would give one config two names.
    if (std::string canonical = kernel_name(c); canonical != name)
        return reject(why_not, "not the canonical name (default values are omitted): " + canonical);
    return c;
}

}  // namespace moetune::kernels

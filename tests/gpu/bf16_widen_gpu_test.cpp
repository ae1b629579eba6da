// The bf16 path's operand widening (kernel_templates/common/mx_bf16_widen.h) on the GPU gives the
// host's bits for every e4m3 and (coded) e2m1 code at every e8m0 scale: the shifts, LOP3s and the
// packed bf16 FMA (subnormals included) behave as the host definitions that tests/formats checks
// against the values themselves.
#include <cstdint>
#include <random>
#include <vector>

#include "common/mx_bf16_widen.h"
#include "formats/e2m1_code.h"
#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "rtc/compiler.h"
#include "support/catch.hpp"
#include "support/e2m1_words.h"

namespace {
using namespace moetune;

struct WidenArgs {
    const uint32_t* words;   // four e4m3 bytes, or a coded word of eight e2m1 (mx_e2m1_code.h)
    const uint32_t* scales;  // e8m0 byte
    uint32_t* out;           // 4 words per item: e4m3 even, odd pair (then 2 unused); e2m1 b[0][0..1], b[1][0..1]
    int count;
    int e2m1;
};

constexpr const char* kSource = R"(
#include "common/mx_bf16_widen.h"
struct WidenArgs { const unsigned* words; const unsigned* scales; unsigned* out; int count; int e2m1; };
extern "C" __global__ void widen(const WidenArgs a) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.count) return;
    unsigned* out = a.out + 4 * i;
    if (a.e2m1) {
        unsigned b[2][2];
        mx_bf16_b_fragments(a.words[i], (unsigned char)a.scales[i], true, b);
        for (int r = 0; r < 4; ++r) out[r] = b[r / 2][r % 2];
    } else {
        mx_e4m3x4_to_bf16x2_scaled(a.words[i], mx_e8m0_to_bf16x2(a.scales[i]), out[0], out[1]);
    }
}
)";

// Bit-equal halves, any NaN equal to any NaN (the device's NaN is canonical, the host's quiet).
bool same_pair(uint32_t a, uint32_t b) {
    for (int i = 0; i < 2; ++i) {
        const uint16_t x = uint16_t(a >> (16 * i)), y = uint16_t(b >> (16 * i));
        const bool nan_x = mx_is_nan(mx_bf16_to_float(x)), nan_y = mx_is_nan(mx_bf16_to_float(y));
        if (nan_x || nan_y ? nan_x != nan_y : x != y) return false;
    }
    return true;
}

// Every word of `words` at every scale byte, widened on the device.
std::vector<uint32_t> widen_on_device(const std::vector<uint32_t>& words, bool e2m1, std::vector<uint32_t>& item_words,
                                      std::vector<uint32_t>& item_scales) {
    for (uint32_t w : words)
        for (uint32_t s = 0; s < 256; ++s) {
            item_words.push_back(w);
            item_scales.push_back(s);
        }
    rtc::CompileRequest r;
    r.source_name = "bf16_widen_gpu_test.hip";
    r.source = kSource;
    r.name_expressions = {"widen"};
    r.arch = gpu::device_info(gpu::current_device()).arch;
    const rtc::CompiledCode code = rtc::compile(r);
    gpu::Module module(code.code);
    gpu::DeviceBuffer<uint32_t> dw{std::span<const uint32_t>(item_words)}, ds{std::span<const uint32_t>(item_scales)};
    gpu::DeviceBuffer<uint32_t> out(4 * item_words.size());
    const int count = int(item_words.size());
    const WidenArgs args{dw.data(), ds.data(), out.data(), count, e2m1 ? 1 : 0};
    gpu::Stream stream;
    module.kernel(code.lowered_names.at(0)).launch({{unsigned((count + 255) / 256), 1, 1}, {256, 1, 1}, 0}, stream, args);
    stream.synchronize();
    return out.download();
}

}  // namespace

TEST_CASE("e4m3 and e2m1 widen to the host's bf16 bits on the device", "[gpu][kernels]") {
    for (const bool e2m1 : {false, true}) {
        // e4m3: every code in every byte position; e2m1: coded words with every code in every element
        // position (support/e2m1_words.h), and random ones.
        std::vector<uint32_t> words;
        if (e2m1) {
            std::mt19937 rng(3);
            for (uint32_t c = 0; c < 256; ++c) {
                const uint32_t w = c < test::kE2m1CoveringWords ? test::e2m1_covering_word(c) : uint32_t(rng());
                words.push_back(mx_e2m1_encode(formats::e2m1_code(), w));
            }
        } else {
            for (uint32_t c = 0; c < 256; ++c) words.push_back(c | ((c + 67) & 0xFF) << 8 | ((c + 134) & 0xFF) << 16 | ((c + 201) & 0xFF) << 24);
        }
        std::vector<uint32_t> item_words, item_scales;
        const std::vector<uint32_t> got = widen_on_device(words, e2m1, item_words, item_scales);
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < item_words.size(); ++i) {
            uint32_t want[4] = {0, 0, 0, 0};
            if (e2m1) {
                uint32_t b[2][2];
                mx_bf16_b_fragments(item_words[i], (unsigned char)item_scales[i], true, b);
                for (int r = 0; r < 4; ++r) want[r] = b[r / 2][r % 2];
            } else {
                mx_e4m3x4_to_bf16x2_scaled(item_words[i], mx_e8m0_to_bf16x2(item_scales[i]), want[0], want[1]);
            }
            bool same = true;
            for (int r = 0; r < 4; ++r) same = same && same_pair(got[4 * i + r], want[r]);
            if (!same && mismatches++ < 5)
                UNSCOPED_INFO((e2m1 ? "e2m1" : "e4m3") << " word " << std::hex << item_words[i] << " scale " << item_scales[i]
                                                     << ": device " << got[4 * i] << " " << got[4 * i + 1] << " "
                                                     << got[4 * i + 2] << " " << got[4 * i + 3] << ", host " << want[0]
                                                     << " " << want[1] << " " << want[2] << " " << want[3]);
        }
        CHECK(mismatches == 0);
    }
}

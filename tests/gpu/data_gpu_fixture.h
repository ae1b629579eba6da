#pragma once
// Shared by the data_gpu tests: the loaded data kernels, the DSv4.1-Flash shape with its weights
// (generated on the GPU once per test binary; 1.7 GB), and mismatch reports that say exactly what
// differed.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "data/moe_problem.h"
#include "data_gpu/data_kernels.h"
#include "data_gpu/device_moe_data.h"

namespace moetune::test {

inline constexpr std::uint64_t kSeed = 20261130;

const data::DataKernels& data_kernels();

// DeepSeek-V4.1-Flash, EP4: model_dim 5120, inter_dim 2304, 96 local experts, topk 5.
data::MoeShape dsv41_flash(int tokens);
// Its synthetic weights (seed kSeed) on the device, and downloaded.
const data::DeviceMoeWeights& dsv41_device_weights();
const data::MoeWeights& dsv41_host_weights();

// "" when equal; else the first differing index with both values and how many elements differ.
template <class T>
std::string first_difference(const std::vector<T>& expected, const std::vector<T>& actual, const std::string& what) {
    if (expected.size() != actual.size())
        return what + ": sizes differ, expected " + std::to_string(expected.size()) + " got " +
               std::to_string(actual.size());
    std::size_t first = expected.size(), count = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (!(expected[i] == actual[i]) && !(expected[i] != expected[i] && actual[i] != actual[i])) {  // NaN == NaN
            if (count++ == 0) first = i;
        }
    if (count == 0) return {};
    std::ostringstream s;
    s.precision(9);  // floats: enough digits to show a one-ulp difference
    s << what << "[" << first << "]: expected " << +expected[first] << " got " << +actual[first] << " (" << count
      << " of " << expected.size() << " elements differ)";
    return s.str();
}

}  // namespace moetune::test

#pragma once
// Groups items 0..count-1 by a string key in one pass (tables are small, but merge and check must
// never compare every row with every other). Groups come in order of first appearance and keep
// their items in order, which is what "first"/"earliest" in AITER's rules refers to.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace moetune::table {

template <typename KeyOf>  // std::string key_of(std::size_t index)
std::vector<std::vector<std::size_t>> group_by_key(std::size_t count, KeyOf key_of) {
    std::unordered_map<std::string, std::size_t> group_of_key;
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < count; ++i) {
        auto [it, inserted] = group_of_key.try_emplace(key_of(i), groups.size());
        if (inserted) groups.emplace_back();
        groups[it->second].push_back(i);
    }
    return groups;
}

}  // namespace moetune::table

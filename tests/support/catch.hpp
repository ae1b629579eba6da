#pragma once
// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04) behind one include.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
using Catch::Approx;  // v2 spells it unqualified
#else
#include <catch2/catch.hpp>
#include <string>
namespace Catch::Matchers {
// v3's name for v2's substring matcher, so tests spell it one way.
inline StdString::ContainsMatcher ContainsSubstring(const std::string& s) { return Contains(s); }
}  // namespace Catch::Matchers
#endif

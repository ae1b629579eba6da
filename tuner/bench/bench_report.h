#pragma once
// What `moetune bench` reports: the JSON file (schema in docs/benchmarks.md; scripts/plot_bench.py
// reads it), rewritten whole after every bucket so a killed run keeps what it measured, and the
// table printed on the console.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/peak_probes.h"
#include "bench/shape_bench.h"

namespace moetune::bench {

struct BenchHeader {
    std::string device;
    std::string gfx;
    int cu_num = 0;
    std::string command;
    std::vector<std::string> tuned_tables;
    BenchSettings settings;
    // The streams measured at start, peaks.hbm_tbps their ceiling(); none where a flag gave peaks.hbm_tbps.
    std::optional<HbmStreams> hbm_measured;
    bool tflops_measured = false;  // peaks.tflops measured at start (else given by a flag)
};

struct ShapeResults {
    data::MoeShape shape;  // tokens unused
    std::vector<BucketBench> buckets;
};

// Pure.
std::string bench_json(const BenchHeader& header, const std::vector<ShapeResults>& shapes);
// Header line and one row per bucket, fixed-width.
std::string bench_table_header();
std::string bench_table_row(const BucketBench& b);

// write_file_atomically of bench_json.
void write_bench_json(const std::filesystem::path& path, const BenchHeader& header,
                      const std::vector<ShapeResults>& shapes);

}  // namespace moetune::bench

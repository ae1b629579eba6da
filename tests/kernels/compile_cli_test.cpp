// `moetune compile` end to end in the CUDA build: the DSv4.1 shape file for sm_90a into a fresh
// cache (a cover of its candidates, every one compiles), then again (all cache hits); the refusals.
#include <cstddef>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kernel_config.h"
#include "kernels/kernel_name.h"
#include "kernels/resource_model.h"
#include "support/catch.hpp"
#include "support/test_env.h"

using namespace moetune;
using moetune::test::run_moetune;
using moetune::test::shell_quote;
using moetune::test::contains;

namespace {

std::string reference_shapes() { return test::reference_shapes_file().string(); }


nlohmann::json read_json(const std::filesystem::path& p) { return nlohmann::json::parse(test::read_text(p)); }

// The distinct kernel names `moetune candidates` lists for the file (what compile must build).
std::set<std::string> candidate_names() {
    const auto r = run_moetune("candidates --shapes " + shell_quote(reference_shapes()));
    REQUIRE(r.exit_code == 0);
    std::set<std::string> names;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("    ", 0) == 0) names.insert(line.substr(4));
    return names;
}

// The fewest kernels (greedily) that cover, on every path through the templates (stage, stage-2
// mode, MMA path, _smem, _wgmma, swapped), every tile, every warp block at every tile_k with either
// stage-1 epilogue (the fused one quantises each warp's block), and every value of each other knob
// (_w, _occ, _nt, _kw, _fp8, _sbm): 236 of the 968 candidates of the file (2026-12). All of them
// took 12-16 minutes on the 2-core CI host, almost all of the suite; the others only combine
// values compiled here. Compiling the whole file: docs/kernel-names.md, "moetune compile".
std::set<std::string> covering_kernels(const std::set<std::string>& names) {
    std::map<std::string, std::set<std::string>> covers;
    std::set<std::string> uncovered;
    for (const std::string& name : names) {
        const kernels::KernelConfig c = *kernels::parse_kernel_name(name);
        const kernels::WarpGrid grid = *kernels::warp_grid(c);
        const auto n = [](auto v) { return std::to_string(static_cast<int>(v)); };
        const std::string path = "stage " + n(c.stage) + " mode " + n(c.mode) + " mma " + n(c.mma) + " smem " +
                                 n(c.shared_operands) + " wgmma " + n(c.wgmma) + " swapped " +
                                 n(kernels::swapped_wgmma(c)) + ": ";
        covers[name] = {path + "tile " + n(c.tile_m) + "x" + n(c.tile_n) + "x" + n(c.tile_k),
                        path + "warp block " + n(c.tile_m / grid.warps_m) + "x" + n(c.tile_n / grid.warps_n) +
                            " tile_k " + n(c.tile_k) + " fp8 out " + n(c.fused_mxfp8_out),
                        path + "warps " + n(c.warps),
                        path + "occ " + n(c.min_workgroups),
                        path + "nt " + n(c.nontemporal_weights),
                        path + "kw " + n(c.k_warps),
                        path + "fp8 out " + n(c.fused_mxfp8_out),
                        path + "sbm " + n(c.sort_block != 0)};
        uncovered.insert(covers[name].begin(), covers[name].end());
    }
    std::set<std::string> chosen;
    while (!uncovered.empty()) {
        std::string best;
        std::size_t best_count = 0;
        for (const auto& [name, features] : covers) {
            std::size_t count = 0;
            for (const std::string& f : features) count += uncovered.count(f);
            if (count > best_count) {
                best = name;
                best_count = count;
            }
        }
        for (const std::string& f : covers[best]) uncovered.erase(f);
        chosen.insert(best);
    }
    return chosen;
}

// --kernels for exactly these names.
std::string names_regex(const std::set<std::string>& names) {
    std::string alternatives;
    for (const std::string& name : names) alternatives += (alternatives.empty() ? "" : "|") + name;
    return "^(" + alternatives + ")$";
}

}  // namespace

TEST_CASE("compile builds a cover of the DSv4.1 file's candidates for sm_90a; a rerun is all cache hits") {
    test::TempDir dir("compile-cli");
    const std::string cache = (dir / "cache").string();
    const std::set<std::string> candidates = candidate_names();
    const std::set<std::string> cover = covering_kernels(candidates);
    INFO(cover.size() << " of " << candidates.size() << " candidates");
    REQUIRE(cover.size() < candidates.size());
    const std::string args = "compile --shapes " + shell_quote(reference_shapes()) + " --arch sm_90a --kernels " +
                             shell_quote(names_regex(cover)) + " --cache-dir " + shell_quote(cache) + " --report ";

    const auto first = run_moetune(args + shell_quote((dir / "first.json").string()));
    {
        INFO(first.err);
        REQUIRE(first.exit_code == 0);
    }
    CHECK(contains(first.out, "sm_90a (nvrtc "));
    CHECK(contains(first.out, "kernels for 15 shapes"));
    CHECK(contains(first.out, "cache hits 0,"));
    CHECK(contains(first.out, "failed 0;"));
    CHECK(contains(first.out, "compile time per kernel: mean "));
    CHECK(contains(first.err, "ETA"));

    const nlohmann::json report = read_json(dir / "first.json");
    CHECK(report["arch"] == "sm_90a");
    const nlohmann::json& kernels = report["kernels"];
    std::set<std::string> built, spilled;
    for (const auto& k : kernels) {
        const std::string name = k["name"];
        INFO(name << " " << k.dump());
        CHECK((k["status"] == "compiled" || k["status"] == "spills"));
        CHECK(k["from_cache"] == false);
        CHECK(k["compile_seconds"].get<double>() > 0);
        CHECK(k["registers"].get<int>() <= 255);
        if (k["status"] == "spills") {
            spilled.insert(name);
            CHECK(k["spill_bytes"].get<int>() > 0);
            CHECK(contains(k["message"], "spills "));
        } else if (name.find("_occ") == std::string::npos) {
            CHECK(k["spill_bytes"] == 0);
        } else {
            CHECK(k["registers"].get<int>() <= 128);  // _occ4 of 4 warps: the bound's registers, spills allowed
        }
        CHECK(built.insert(name).second);  // each kernel once, though the 15 buckets share most
    }
    CHECK(built == cover);
    const nlohmann::json& summary = report["summary"];
    CHECK(summary["kernels"] == kernels.size());
    CHECK(summary["failed"] == 0);
    CHECK(summary["spills"] == spilled.size());
    CHECK(summary["compiled"] == kernels.size() - spilled.size());
    CHECK(summary["compile_seconds"]["count"] == kernels.size());
    CHECK(summary["pruned_before_compiling"] == report["pruned"].size());

    const auto second = run_moetune(args + shell_quote((dir / "second.json").string()));
    {
        INFO(second.err);
        REQUIRE(second.exit_code == 0);
    }
    CHECK(contains(second.out, "compiled 0, cache hits " + std::to_string(kernels.size() - spilled.size())));
    CHECK(contains(second.out, "0 built now"));
    CHECK(contains(second.out, "cache hit time per kernel: mean "));
    const nlohmann::json again = read_json(dir / "second.json");
    std::set<std::string> spilled_again;
    for (const auto& k : again["kernels"]) {
        INFO(k.dump());
        CHECK(k["from_cache"] == true);
        CHECK(k["cache_hit_seconds"].get<double>() >= 0);
        if (k["status"] == "spills") spilled_again.insert(k["name"].get<std::string>());
        else CHECK(k["status"] == "cache_hit");
    }
    CHECK(again["kernels"].size() == kernels.size());
    CHECK(spilled_again == spilled);
    CHECK(again["summary"]["cache_hit_seconds"]["count"] == kernels.size());

    // A bad row is reported and fails the run; the good rows' kernels (of the cover) still come from
    // the cache.
    const std::string file = (dir / "one_bad_row.csv").string();
    std::ofstream(file)
        << "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n"
        << "1,5120,2304,96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
           "QuantType.per_1x32,1,0\n"
        << "1,5120,2300,96,5,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float4_e2m1fn_x2,"
           "QuantType.per_1x32,1,0\n";
    const auto bad_row = run_moetune("compile --shapes " + shell_quote(file) + " --arch sm_90a --tokens 1,2 -j 1 "
                                     "--kernels " + shell_quote(names_regex(cover)) + " --cache-dir " +
                                     shell_quote(cache));
    CHECK(bad_row.exit_code == 1);
    CHECK(contains(bad_row.err, file + ":3: inter_dim 2300 is not a positive multiple of 128"));
    CHECK(contains(bad_row.err, "row skipped"));
    CHECK(contains(bad_row.out, "kernels for 2 shapes"));
    CHECK(contains(bad_row.out, "compiled 0,"));
}

TEST_CASE("compile refuses what it cannot do before compiling anything") {
    const std::string shapes = shell_quote(reference_shapes());
    test::TempDir dir("compile-cli-refusals");
    const std::string cache = " --cache-dir " + shell_quote((dir / "cache").string());

    const auto amd = run_moetune("compile --shapes " + shapes + " --arch gfx90a" + cache);
    CHECK(amd.exit_code == 2);
    CHECK(contains(amd.err, "cannot build for gfx90a"));
    CHECK(contains(amd.err, "-DMOETUNE_GPU=hip"));

    const auto no_dir = run_moetune("compile --shapes " + shapes + " --arch sm_90a" + cache +
                                    " --report /nonexistent/dir/report.json");
    CHECK(no_dir.exit_code == 4);
    CHECK(contains(no_dir.err, "/nonexistent/dir"));
    CHECK_FALSE(std::filesystem::exists(dir / "cache"));  // refused before the cache was touched
    // A report that names a directory cannot be renamed into place: refused as early.
    const auto a_directory = run_moetune("compile --shapes " + shapes + " --arch sm_90a" + cache + " --report " +
                                         shell_quote(dir.path().string()));
    CHECK(a_directory.exit_code == 4);
    CHECK_FALSE(std::filesystem::exists(dir / "cache"));
    // A shapes file without rows is an input error, as in sweep.
    const std::string empty = (dir / "no_rows.csv").string();
    std::ofstream(empty)
        << "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n";
    const auto no_rows = run_moetune("compile --shapes " + shell_quote(empty) + " --arch sm_90a" + cache);
    CHECK(no_rows.exit_code == 2);
    CHECK(contains(no_rows.err, empty + ":1: no shape rows"));

    CHECK(run_moetune("compile --shapes " + shapes).exit_code == 2);                   // no --arch
    CHECK(run_moetune("compile --shapes " + shapes + " --arch sm_80").exit_code == 2);  // no preset
    CHECK(run_moetune("compile --shapes " + shapes + " --arch sm_90a --tokens 0").exit_code == 2);
    CHECK(run_moetune("compile --shapes " + shapes + " --arch sm_90a -j 0").exit_code == 2);
    const auto missing = run_moetune("compile --shapes /nonexistent/shapes.csv --arch sm_90a" + cache);
    CHECK(missing.exit_code == 2);
    CHECK(contains(missing.err, "/nonexistent/shapes.csv"));
}

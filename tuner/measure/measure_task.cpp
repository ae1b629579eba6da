#include "measure/measure_task.h"

namespace moetune::measure {
namespace {

// Fields with a default may be left out of a task (hand-written tasks, older parents); the shape
// and the kernel name may not. nlohmann's at() throws json::out_of_range naming the missing key.
template <class T>
void read_optional(const nlohmann::json& j, const char* key, T& field) {
    if (const auto it = j.find(key); it != j.end()) it->get_to(field);
}

}  // namespace

void to_json(nlohmann::json& j, const TimingOptions& o) {
    j = {{"launches_per_graph", o.launches_per_graph},
         {"warmup_replays", o.warmup_replays},
         {"timed_replays", o.timed_replays},
         {"replay_ms", o.replay_ms},
         {"cold_l2", o.cold_l2},
         {"routings", o.routings}};
}

void from_json(const nlohmann::json& j, TimingOptions& o) {
    o = TimingOptions{};
    read_optional(j, "launches_per_graph", o.launches_per_graph);
    read_optional(j, "warmup_replays", o.warmup_replays);
    read_optional(j, "timed_replays", o.timed_replays);
    read_optional(j, "replay_ms", o.replay_ms);
    read_optional(j, "cold_l2", o.cold_l2);
    read_optional(j, "routings", o.routings);
}

void to_json(nlohmann::json& j, const MeasureTask& t) {
    j = {{"shape",
          {{"tokens", t.shape.tokens},
           {"model_dim", t.shape.model_dim},
           {"inter_dim", t.shape.inter_dim},
           {"experts", t.shape.experts},
           {"topk", t.shape.topk}}},
         {"seed", t.seed},
         {"routing", t.routing},
         {"kernel_name", t.kernel_name},
         {"arch", t.arch},
         {"cache_dir", t.cache_dir},
         {"metric", t.metric},
         {"err_ratio", t.err_ratio},
         {"timing", t.timing},
         {"test_break", t.test_break}};
}

void from_json(const nlohmann::json& j, MeasureTask& t) {
    t = MeasureTask{};
    const nlohmann::json& s = j.at("shape");
    s.at("tokens").get_to(t.shape.tokens);
    s.at("model_dim").get_to(t.shape.model_dim);
    s.at("inter_dim").get_to(t.shape.inter_dim);
    s.at("experts").get_to(t.shape.experts);
    s.at("topk").get_to(t.shape.topk);
    j.at("kernel_name").get_to(t.kernel_name);
    read_optional(j, "seed", t.seed);
    read_optional(j, "routing", t.routing);
    read_optional(j, "arch", t.arch);
    read_optional(j, "cache_dir", t.cache_dir);
    read_optional(j, "metric", t.metric);
    read_optional(j, "err_ratio", t.err_ratio);
    read_optional(j, "timing", t.timing);
    read_optional(j, "test_break", t.test_break);
}

void to_json(nlohmann::json& j, const MeasureResult& r) {
    j = {{"kernel_name", r.kernel_name}, {"stage", r.stage},   {"block_m", r.block_m},
         {"ok", r.ok},                   {"failure", r.failure}, {"us", r.us},
         {"err", r.err},                 {"spread_pct", r.spread_pct}, {"launches_per_graph", r.launches_per_graph},
         {"sm_mhz_before", r.sm_mhz_before}, {"sm_mhz_after", r.sm_mhz_after}};
}

void from_json(const nlohmann::json& j, MeasureResult& r) {
    r = MeasureResult{};
    j.at("kernel_name").get_to(r.kernel_name);
    j.at("ok").get_to(r.ok);
    read_optional(j, "stage", r.stage);
    read_optional(j, "block_m", r.block_m);
    read_optional(j, "failure", r.failure);
    read_optional(j, "us", r.us);
    read_optional(j, "err", r.err);
    read_optional(j, "spread_pct", r.spread_pct);
    read_optional(j, "launches_per_graph", r.launches_per_graph);
    read_optional(j, "sm_mhz_before", r.sm_mhz_before);
    read_optional(j, "sm_mhz_after", r.sm_mhz_after);
}

std::string timing_options_error(const TimingOptions& o) {
    if (o.launches_per_graph < 1) return "launches_per_graph must be at least 1";
    if (o.warmup_replays < 0) return "warmup_replays must not be negative";
    if (o.timed_replays < 1) return "timed_replays must be at least 1";
    if (!(o.replay_ms >= 0)) return "replay_ms must not be negative";
    if (o.routings < 1 || o.routings > kMaxTimedRoutings)
        return "routings must be 1 to " + std::to_string(kMaxTimedRoutings);
    return {};
}

}  // namespace moetune::measure

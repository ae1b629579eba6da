// moetune::TunedTables (include/moetune/tuned_tables.h): the table layer's reader, AITER merge and
// bucket rule behind the library's interface.
#include <stdexcept>
#include <unordered_map>

#include "common/input_error.h"
#include "moetune/tuned_tables.h"
#include "runtime/shape_key.h"
#include "runtime/tuned_row_check.h"
#include "table/bucket.h"
#include "table/cell_value.h"
#include "table/gfx_inference.h"
#include "table/merge.h"
#include "table/row_key.h"
#include "table/schema.h"
#include "table/table_reader.h"

namespace moetune {

struct TunedTables::Impl {
    std::vector<KernelPlan> rows;  // in merged order; `bucket` is filled in by lookup
    std::unordered_map<std::string, std::size_t> first_row;  // lookup key -> its first row

    // The first row of the key at `bucket`. A row without a gfx whose cu_num names no arch matches any
    // gfx: AITER fills in the arch of the GPU it runs on. (Where cu_num names one, such a row has it:
    // table::effective_gfx.)
    std::optional<std::size_t> find(const MoeShapeKey& shape, long long bucket, std::string_view gfx,
                                    int cu_num) const {
        std::optional<std::size_t> first;
        for (std::string_view row_gfx : {gfx, std::string_view()}) {
            if (row_gfx.empty() && table::gfx_from_cu_num(cu_num)) break;
            const auto it = first_row.find(runtime::lookup_key(shape, bucket, row_gfx, cu_num));
            if (it != first_row.end() && (!first || it->second < *first)) first = it->second;
        }
        return first;
    }
};

namespace {

std::vector<table::Table> read_tables(const std::vector<std::string>& paths) {
    std::vector<table::Table> tables;
    for (const std::string& path : paths) tables.push_back(table::read_table(path));
    return tables;
}

}  // namespace

TunedTables::TunedTables() : impl_(std::make_shared<const Impl>()) {}

TunedTables::TunedTables(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

TunedTables TunedTables::load(const std::vector<std::string>& paths) {
    auto impl = std::make_shared<Impl>();
    if (paths.empty()) return TunedTables(impl);
    table::MergeResult merged;
    try {
        const std::vector<table::Table> inputs = read_tables(paths);
        // One file is not merged by AITER (no dedup): keeping the first row per dedup key is the same,
        // as the lookup below keeps the first row of a coarser key anyway.
        merged = table::merge_tables(inputs, inputs.size() > 1 ? table::DuplicatePolicy::lowest_us
                                                               : table::DuplicatePolicy::first);
        for (const table::Table& t : inputs)
            for (const table::TableRow& r : t.rows) runtime::check_tuned_row(t, r);
    } catch (const InputError& e) {
        throw TableError(e.what());
    }
    const table::Table& t = merged.merged;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const table::TableRow& r = t.rows[i];
        if (t.cell(r, table::col::tag) == table::kFallbackTag) continue;  // AITER's loader drops these
        KernelPlan plan;
        plan.block_m = static_cast<int>(*table::parse_integer(t.cell(r, table::col::block_m)));
        plan.kernel_name1 = t.cell(r, table::col::kernel_name1);
        plan.kernel_name2 = t.cell(r, table::col::kernel_name2);
        plan.tuned = true;
        plan.source = merged.row_files[i] + ":" + std::to_string(r.line);
        impl->first_row.try_emplace(table::lookup_key_ignoring_act_type(t, r), impl->rows.size());
        impl->rows.push_back(std::move(plan));
    }
    return TunedTables(impl);
}

std::optional<KernelPlan> TunedTables::lookup(const MoeShapeKey& shape, long long tokens, std::string_view gfx,
                                              int cu_num) const {
    if (tokens < 1) throw std::invalid_argument("lookup: tokens must be >= 1, got " + std::to_string(tokens));
    const long long bucket = table::padded_m(tokens);
    std::optional<std::size_t> row = impl_->find(shape, bucket, gfx, cu_num);
    // AITER retries the smaller tier when the largest has no row.
    if (const auto retried = table::retried_bucket(bucket); !row && retried)
        row = impl_->find(shape, *retried, gfx, cu_num);
    if (!row) return std::nullopt;
    KernelPlan plan = impl_->rows[*row];
    plan.bucket = bucket;
    return plan;
}

std::size_t TunedTables::rows() const { return impl_->rows.size(); }

}  // namespace moetune

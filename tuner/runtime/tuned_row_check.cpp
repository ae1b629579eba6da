#include "runtime/tuned_row_check.h"

#include <string>

#include "common/input_error.h"
#include "kernels/kernel_name.h"
#include "kernels/moetune_kernel_rules.h"
#include "table/cell_rules.h"
#include "table/cell_value.h"
#include "table/kernel_name.h"
#include "table/schema.h"
#include "table/table_shape.h"

namespace moetune::runtime {
namespace {

[[noreturn]] void fail(const table::Table& t, const table::TableRow& r, const std::string& message) {
    throw TableError(InputError(t.file, r.line, message).what());
}

table::KernelFamily check_kernel(const table::Table& t, const table::TableRow& r, std::string_view column,
                                 kernels::Stage stage) {
    const std::string name(t.cell(r, column));
    const std::string what = std::string(column) + " '" + name + "'";
    const table::KernelFamily family = table::kernel_family(name);
    if (family == table::KernelFamily::unknown)
        fail(t, r, what + " is not a kernel name of moetune or of an AITER kernel family");
    if (family != table::KernelFamily::moetune) return family;
    const long long block_m = *table::parse_integer(t.cell(r, table::col::block_m));  // checked before
    if (auto problem = kernels::moetune_kernel_problem(name, stage, block_m)) fail(t, r, what + " " + *problem);
    return family;
}

}  // namespace

void check_tuned_row(const table::Table& t, const table::TableRow& r) {
    try {
        table::read_shape(t, r);
    } catch (const InputError& e) {
        throw TableError(e.what());
    }
    for (std::string_view column : {table::col::gfx, table::col::cu_num, table::col::block_m}) {
        if (!t.has_column(column)) {
            if (column == table::col::gfx) continue;  // legacy tables: inferred from cu_num
            throw TableError(InputError(t.file, t.header_line, "no " + std::string(column) + " column").what());
        }
        if (auto problem = table::cell_problem(column, t.cell(r, column))) fail(t, r, *problem);
    }
    const table::KernelFamily stage1 = check_kernel(t, r, table::col::kernel_name1, kernels::Stage::gate_up);
    const table::KernelFamily stage2 = check_kernel(t, r, table::col::kernel_name2, kernels::Stage::down);
    if (table::splits_moetune(stage1, stage2))
        fail(t, r, "a moetune kernel runs only with a moetune kernel in the other stage");
}

std::optional<kernels::ConfigPair> moetune_config_pair(const KernelPlan& plan) {
    auto stage1 = kernels::parse_kernel_name(plan.kernel_name1);
    auto stage2 = kernels::parse_kernel_name(plan.kernel_name2);
    if (!stage1 || !stage2) return std::nullopt;
    return kernels::ConfigPair{*stage1, *stage2};
}

}  // namespace moetune::runtime

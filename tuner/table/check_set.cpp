#include "table/check_set.h"

#include <optional>

#include "table/grouping.h"
#include "table/keeper.h"
#include "table/row_key.h"
#include "table/schema.h"

namespace moetune::table {
namespace {

struct RowRef {
    const Table* table;
    const TableRow* row;
};

// Where a row is: "b.csv:7".
std::string place(const RowRef& ref) { return ref.table->file + ":" + std::to_string(ref.row->line); }

// Where a row is, as seen from a finding in `from`'s file: "line 7" when in the same file.
std::string place(const RowRef& ref, const RowRef& from) {
    return ref.table == from.table ? "line " + std::to_string(ref.row->line) : place(ref);
}

// Why AITER keeps `kept` (keeper.h's rule), for the message.
std::string keep_reason(const std::vector<RowRef>& rows, const std::vector<std::size_t>& group, std::size_t kept) {
    const RowRef& k = rows[kept];
    const std::optional<double> kept_us = row_us(*k.table, *k.row);
    if (!kept_us) return "no row has a us value, so the first";
    std::size_t equal = 0;
    for (std::size_t i : group) equal += row_us(*rows[i].table, *rows[i].row) == kept_us;
    const std::string us_text(k.table->cell(*k.row, col::us));
    return equal > 1 ? "lowest us " + us_text + ", the earliest of equal rows" : "lowest us " + us_text;
}

void report_duplicates(const std::vector<RowRef>& rows, const std::vector<std::size_t>& group, std::size_t kept,
                       bool single_file, std::vector<Finding>& out) {
    const std::string key = describe_key(*rows[group.front()].table, *rows[group.front()].row);
    const std::string why = keep_reason(rows, group, kept);
    for (std::size_t k = 1; k < group.size(); ++k) {
        const RowRef& here = rows[group[k]];
        std::optional<std::size_t> earlier_same_file;
        for (std::size_t j = 0; j < k && !earlier_same_file; ++j)
            if (rows[group[j]].table == here.table) earlier_same_file = group[j];

        std::string message;
        if (earlier_same_file) {
            message = "same key as " + place(rows[*earlier_same_file], here) + " (" + key + "); AITER's merge keeps " +
                      place(rows[kept], here) + " (" + why + "), fails that load and rewrites the file without the others";
            if (single_file)
                message += "; used alone as AITER_CONFIG_FMOE (no merge) the first, " +
                           place(rows[group.front()], here) + ", wins the lookup";
            out.push_back(make_finding(code::duplicate_key, here.table->file, here.row->line, message));
        } else {
            message = "same key as " + place(rows[group.front()]) + " (" + key + "); AITER's merge keeps " +
                      place(rows[kept]) + " (" + why +
                      "), fails that load with 'Found N duplicate shape entries' and rewrites the losing files";
            out.push_back(make_finding(code::cross_file_duplicate, here.table->file, here.row->line, message));
        }
    }
}

// AITER's act-type-agnostic dict decides every lookup (§2.3): among rows that differ only in
// act_type, the first in `rows` order serves every activation.
void report_act_type_twins(const std::vector<RowRef>& rows, bool with_arch, std::vector<Finding>& out) {
    const auto groups = group_by_key(rows.size(), [&](std::size_t i) {
        return lookup_key_ignoring_act_type(*rows[i].table, *rows[i].row, with_arch);
    });
    for (const std::vector<std::size_t>& group : groups) {
        const RowRef& winner = rows[group.front()];
        const std::string_view winner_act = winner.table->cell(*winner.row, col::act_type);
        for (std::size_t k = 1; k < group.size(); ++k) {
            const RowRef& here = rows[group[k]];
            const std::string_view act = here.table->cell(*here.row, col::act_type);
            if (act == winner_act) continue;  // same act_type: a duplicate, reported as such
            out.push_back(make_finding(
                code::act_type_twin, here.table->file, here.row->line,
                "differs from " + place(winner, here) + " only in act_type (" + std::string(act) + " vs " +
                    std::string(winner_act) + "): AITER's lookup ignores act_type, so " + place(winner, here) +
                    " is used for both"));
        }
    }
}

std::vector<RowRef> loadable_rows(const Table& t) {
    std::vector<RowRef> rows;
    for (const TableRow& r : t.rows)
        if (!has_extra_fields(t, r)) rows.push_back({&t, &r});
    return rows;
}

}  // namespace

void check_tuned_set(const std::vector<const Table*>& tuned, std::vector<Finding>& out) {
    std::vector<RowRef> rows;
    for (const Table* t : tuned)
        for (const RowRef& r : loadable_rows(*t)) rows.push_back(r);

    const bool single_file = tuned.size() == 1;
    std::vector<bool> dropped_by_merge(rows.size(), false);
    const auto groups = group_by_key(rows.size(), [&](std::size_t i) { return dedup_key(*rows[i].table, *rows[i].row); });
    for (const std::vector<std::size_t>& group : groups) {
        if (group.size() < 2) continue;
        std::vector<std::optional<double>> us;
        for (std::size_t i : group) us.push_back(row_us(*rows[i].table, *rows[i].row));
        const std::size_t kept = group[lowest_us_index(us)];
        report_duplicates(rows, group, kept, single_file, out);
        for (std::size_t i : group) dropped_by_merge[i] = i != kept;
    }

    // What the lookup sees: a single file is used as is; several are merged (losers gone, after
    // the self-healing rewrite). The loader drops flydsl_fallback rows first.
    std::vector<RowRef> looked_up;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if ((single_file || !dropped_by_merge[i]) && rows[i].table->cell(*rows[i].row, col::tag) != kFallbackTag)
            looked_up.push_back(rows[i]);
    report_act_type_twins(looked_up, /*with_arch=*/true, out);
}

void check_untuned_table(const Table& untuned, std::vector<Finding>& out) {
    report_act_type_twins(loadable_rows(untuned), /*with_arch=*/false, out);
}

}  // namespace moetune::table

#include "table/check.h"

#include <algorithm>
#include <unordered_map>

#include "table/check_file.h"
#include "table/check_set.h"
#include "table/table_reader.h"

namespace moetune::table {

CheckResult check_files(const std::vector<std::string>& paths, const MoetuneKernelRule& moetune_rule) {
    CheckResult result;
    result.files = paths;

    std::vector<Table> tables;
    tables.reserve(paths.size());
    for (const std::string& path : paths) {
        try {
            tables.push_back(read_table(path));
        } catch (const TableReadError& e) {
            if (e.reason() == TableReadError::Reason::cannot_open) throw;
            const auto c = e.reason() == TableReadError::Reason::empty_file ? code::empty_file : code::not_a_table;
            result.findings.push_back(make_finding(c, e.file(), std::max<std::size_t>(e.line(), 1), e.message()));
        }
    }

    std::vector<const Table*> tuned;
    for (const Table& t : tables) {
        check_table(t, result.findings, moetune_rule);
        if (t.kind() == TableKind::tuned) tuned.push_back(&t);
        else check_untuned_table(t, result.findings);
    }
    check_tuned_set(tuned, result.findings);

    std::unordered_map<std::string, std::size_t> file_order;
    for (std::size_t i = 0; i < paths.size(); ++i) file_order.try_emplace(paths[i], i);
    std::stable_sort(result.findings.begin(), result.findings.end(), [&](const Finding& a, const Finding& b) {
        const std::size_t fa = file_order.at(a.file), fb = file_order.at(b.file);
        return fa != fb ? fa < fb : a.line < b.line;
    });
    for (const Finding& f : result.findings) (f.severity == Severity::error ? result.errors : result.warnings)++;
    return result;
}

}  // namespace moetune::table

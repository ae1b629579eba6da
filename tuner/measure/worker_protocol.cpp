#include "measure/worker_protocol.h"

#include <stdexcept>

#include "measure/failure.h"

namespace moetune::measure {
namespace {

void write_line(std::FILE* out, const MeasureResult& result) {
    const std::string line = nlohmann::json(result).dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), out);
    std::fflush(out);
}

}  // namespace

std::string encode_task_line(const MeasureTask& task) { return nlohmann::json(task).dump() + "\n"; }

MeasureResult decode_result_line(std::string_view line) {
    try {
        return nlohmann::json::parse(line).get<MeasureResult>();
    } catch (const nlohmann::json::exception& e) {
        const std::string shown(line.substr(0, 200));
        throw std::runtime_error("not a result line (" + std::string(e.what()) + "): '" + shown + "'");
    }
}

bool serve_worker(std::istream& in, std::FILE* out, const std::function<WorkerReply(const MeasureTask&)>& handle) {
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        MeasureTask task;
        try {
            task = nlohmann::json::parse(line).get<MeasureTask>();
        } catch (const nlohmann::json::exception& e) {
            MeasureResult bad;
            const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_object() && j.contains("kernel_name") && j["kernel_name"].is_string())
                bad.kernel_name = j["kernel_name"].get<std::string>();
            bad.failure = failure_text("input", std::string("not a task line: ") + e.what());
            write_line(out, bad);
            continue;
        }
        const WorkerReply reply = handle(task);
        write_line(out, reply.result);
        if (reply.exit_after) return true;
    }
    return false;
}

}  // namespace moetune::measure

// A stand-in for `moetune worker` in the WorkerClient tests: it speaks the real protocol (serve_worker)
// and misbehaves on command, chosen by the task's routing field (so kernel names can be real ones):
//   ok       answers ok, with us = its pid (tests tell workers apart) and err = its --gpu value
//   abort    writes a line to stderr, then abort()s (signal 6), like a crashing worker
//   exit     writes a line to stderr, then exits with status 3 without answering
//   hang     never answers, like a worker stuck in a hung kernel
//   fault    answers "fault: ..." and exits, as a worker whose GPU context is lost does
//   garbage  writes a line that is not a result
//   other    answers for another kernel name
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "measure/worker_protocol.h"

using namespace moetune::measure;

int main(int argc, char** argv) {
    if (argc != 4 || std::string(argv[1]) != "worker" || std::string(argv[2]) != "--gpu") {
        std::fprintf(stderr, "usage: fake_worker worker --gpu N\n");
        return 2;
    }
    const int gpu = std::atoi(argv[3]);
    std::fprintf(stderr, "fake worker %d: started for gpu %d\n", int(::getpid()), gpu);
    serve_worker(std::cin, stdout, [&](const MeasureTask& task) {
        const std::string& command = task.routing;
        WorkerReply reply;
        reply.result.kernel_name = task.kernel_name;
        if (command == "abort") {
            std::fprintf(stderr, "fake worker: aborting as asked\n");
            std::abort();
        }
        if (command == "exit") {
            std::fprintf(stderr, "fake worker: exiting with status 3\n");
            std::exit(3);
        }
        if (command == "hang")
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        if (command == "fault") {
            reply.result.failure = "fault: an illegal memory access was encountered";
            reply.exit_after = true;
            return reply;
        }
        if (command == "garbage") {
            std::fputs("this is not a result\n", stdout);
            std::fflush(stdout);
        }
        if (command == "other") reply.result.kernel_name = "someone_else";
        reply.result.ok = true;
        reply.result.us = ::getpid();
        reply.result.err = gpu;
        return reply;
    });
    return 0;
}

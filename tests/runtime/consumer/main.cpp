// Uses libmoetune through its installed headers only: loads the tuned table given on the command
// line, looks a shape up, makes a FusedMoe (whose symbols must link on any host; without a GPU its
// constructor says why) and catches the library's TableError by type.
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <moetune/fused_moe.h>
#include <moetune/tuned_tables.h>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: moetune_consumer TUNED.csv\n";
        return 2;
    }
    moetune::MoeShapeKey shape;
    shape.model_dim = 5120;
    shape.inter_dim = 2304;
    shape.experts = 96;
    shape.topk = 5;

    const moetune::TunedTables tables = moetune::TunedTables::load({argv[1]});
    const std::optional<moetune::KernelPlan> plan = tables.lookup(shape, 3, "sm_90", 132);
    std::cout << "rows: " << tables.rows() << "\n";
    std::cout << "lookup: " << (plan ? plan->kernel_name1 + " from " + plan->source : "no row") << "\n";

    try {
        const moetune::FusedMoe moe(shape, tables);
        std::cout << "FusedMoe on " << moe.gfx() << ": plan " << moe.plan(3).kernel_name1 << "\n";
    } catch (const std::runtime_error& e) {
        std::cout << "FusedMoe threw: " << e.what() << "\n";
    }

    try {
        moetune::TunedTables::load({"no-such-table.csv"});
        std::cout << "TableError: none\n";
    } catch (const moetune::TableError& e) {
        std::cout << "TableError: " << e.what() << "\n";
    }
    return 0;
}

// hypergl._core.Program: a verified program image built from the parts that
// hypergl_compiler records. Verification happens in the constructor.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "hypergl/errors.hpp"
#include "hypergl/program.hpp"
#include "hypergl/verifier.hpp"

namespace nb = nanobind;
using namespace hypergl;

namespace {

using ConstantPart = std::tuple<int, nb::bytes>;
using SlotPart = std::tuple<int, std::string, uint64_t>;
using SubroutinePart = std::tuple<std::string, uint32_t>;

std::vector<uint8_t> to_vector(const nb::bytes &data) {
    const auto *begin = static_cast<const uint8_t *>(data.data());
    return std::vector<uint8_t>(begin, begin + data.size());
}

ProgramImage build(const nb::bytes &code, const std::vector<ConstantPart> &constants,
                   const std::vector<SlotPart> &slots,
                   const std::vector<SubroutinePart> &subroutines) {
    std::vector<Constant> pool;
    pool.reserve(constants.size());
    for (const auto &[kind, data] : constants) {
        if (kind < 0 || kind > static_cast<int>(isa::ConstKind::UTF8))
            throw nb::value_error(("unknown constant kind " + std::to_string(kind)).c_str());
        pool.push_back(Constant{static_cast<isa::ConstKind>(kind), to_vector(data)});
    }
    std::vector<Slot> table;
    table.reserve(slots.size());
    for (const auto &[kind, name, size] : slots) {
        if (kind < 0 || kind >= static_cast<int>(isa::kNumResourceKinds))
            throw nb::value_error(("unknown resource kind " + std::to_string(kind)).c_str());
        table.push_back(Slot{static_cast<isa::ResourceKind>(kind), name, size});
    }
    std::vector<uint32_t> entries;
    std::vector<std::string> names;
    for (const auto &[name, entry] : subroutines) {
        names.push_back(name);
        entries.push_back(entry);
    }
    ProgramImage image =
        make_program(static_cast<const uint8_t *>(code.data()), code.size(), std::move(pool),
                     std::move(table), std::move(entries), std::move(names));
    {
        nb::gil_scoped_release unlocked;  // verifying a big program takes a while
        verify(image);
    }
    return image;
}

}  // namespace

void register_program(nb::module_ &m) {
    register_instruction_error<VerifyFailure>(m, "VerifyFailure");

    nb::class_<ProgramImage>(m, "Program",
                             "A verified program: bytecode, constants, slots, subroutines.")
        .def(nb::new_(&build), nb::arg("code"), nb::arg("constants"), nb::arg("slots"),
             nb::arg("subroutines"),
             "Build and verify. constants: [(kind, bytes)], slots: [(kind, name, size)], "
             "subroutines: [(name, entry)].")
        .def_prop_ro("instruction_count", &ProgramImage::instruction_count)
        .def_prop_ro("slot_count", [](const ProgramImage &p) { return p.slots.size(); });
}

// hypergl._core.Context and its resources: create, map, release, submit.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>

#include "bindings.hpp"
#include "errors.hpp"
#include "hypergl/context.hpp"
#include "hypergl/null_device.hpp"
#include "hypergl/trace_device.hpp"

namespace nb = nanobind;
using namespace hypergl;

namespace {

std::unique_ptr<Device> make_device(const std::string &name) {
    if (name == "null") return std::make_unique<NullDevice>();
    if (name == "trace") return std::make_unique<TraceDevice>();
    throw nb::value_error(("unknown device '" + name + "': expected 'trace' or 'null'").c_str());
}

// A writable 1-D uint8 NumPy array over the buffer's memory, without a copy.
// The array shares ownership of the memory (taken under the lock that release
// takes, which drops the buffer's share), so it stays valid after a release.
nb::object buffer_view(Context &context, Buffer &buffer) {
    std::shared_ptr<Memory> memory =
        guarded_with(context, [&] { return buffer.memory(); }, buffer);
    uint8_t *data = memory->data();
    const size_t shape[1] = {static_cast<size_t>(memory->size())};
    auto *holder = new std::shared_ptr<Memory>(std::move(memory));
    nb::capsule owner(holder, [](void *p) noexcept {
        delete static_cast<std::shared_ptr<Memory> *>(p);
    });
    return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(data, 1, shape, owner).cast();
}

nb::list trace_entries(Context &context) {
    auto *trace = dynamic_cast<TraceDevice *>(&context.device());
    nb::list out;
    if (!trace) return out;
    // A copy taken under the lock: another thread may be submitting.
    const std::vector<TraceEntry> entries = locked(context, [&] { return trace->entries(); });
    for (const TraceEntry &entry : entries) {
        nb::list items;
        items.append(entry.call);
        for (const TraceArg &arg : entry.args)
            std::visit([&](const auto &value) { items.append(value); }, arg);
        out.append(nb::tuple(items));
    }
    return out;
}

void clear_trace(Context &context) {
    if (auto *trace = dynamic_cast<TraceDevice *>(&context.device()))
        locked(context, [&] { trace->clear_entries(); });
}

nb::dict stats_dict(const RunStats &stats) {
    nb::dict out;
    out["instructions"] = stats.instructions;
    out["draws"] = stats.draws;
    out["dispatches"] = stats.dispatches;
    out["binds_issued"] = stats.binds_issued;
    out["binds_skipped"] = stats.binds_skipped;
    out["device_calls"] = stats.device_calls;
    out["debug_formatted"] = stats.debug_formatted;
    return out;
}

// Runs `program` with the GIL released. Ctrl+C: every ~10 ms the run takes
// the GIL to let Python check its signals; a raised KeyboardInterrupt stops
// the run and is re-raised here.
// The options of a submit that do not change between runs (budgets, debug), made
// once by the facade's SubmitOptions and passed as one argument to every run.
RunOptions run_options(std::optional<uint64_t> budget, bool debug,
                       std::optional<uint64_t> vertex_budget,
                       std::optional<uint64_t> group_budget) {
    RunOptions options;
    options.budget = budget.value_or(UINT64_MAX);
    options.vertex_budget = vertex_budget.value_or(UINT64_MAX);
    options.group_budget = group_budget.value_or(UINT64_MAX);
    options.check_each_instruction = debug;
    return options;
}

nb::tuple submit(Context &context, const ProgramImage &program,
                 const std::vector<std::shared_ptr<Resource>> &resources,
                 std::vector<uint32_t> registers, const RunOptions &prepared, float time,
                 float delta, uint64_t random_state, bool debug_output) {
    if (registers.size() != isa::kNumRegisters)
        throw nb::value_error(("registers must be 8 values, got " +
                               std::to_string(registers.size()))
                                  .c_str());
    std::optional<nb::python_error> interrupt;
    RunOptions options = prepared;  // this run's clock, generator and output below
    options.time = time;
    options.delta = delta;
    options.random_state = &random_state;
    std::string output;
    if (debug_output) options.debug_output = &output;
    options.should_stop = [&interrupt]() {
        nb::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() == 0) return false;
        interrupt.emplace();  // takes the pending Python exception
        return true;
    };
    RunStats stats;
    try {
        nb::gil_scoped_release unlocked;
        Context::Entry entry(context);
        stats = context.run(program, resources, registers.data(), options);
    } catch (const Interrupted &) {
        interrupt->restore();
        throw nb::python_error();
    }
    nb::list final_registers;
    for (uint32_t value : registers) final_registers.append(value);
    // The generator's advanced state: the caller's to keep for the next submit.
    return nb::make_tuple(stats_dict(stats), final_registers, random_state, output);
}

}  // namespace

void register_context(nb::module_ &m) {
    nb::class_<RunOptions>(m, "RunOptions",
                           "A submit's budgets and debug flag, checked and made once.")
        .def(nb::new_(&run_options), nb::arg("budget").none(), nb::arg("debug"),
             nb::arg("vertex_budget").none(), nb::arg("group_budget").none())
        .def_ro("budget", &RunOptions::budget)
        .def_ro("vertex_budget", &RunOptions::vertex_budget)
        .def_ro("group_budget", &RunOptions::group_budget)
        .def_ro("debug", &RunOptions::check_each_instruction);
    register_instruction_error<VMFailure>(m, "VMFailure");
    register_message_error<BindingError>(m, "BindingError", PyExc_ValueError);
    register_context_error<ReentryError>();
    register_context_error<ClosedError>();

    nb::class_<Resource>(m, "Resource", "A GPU resource owned by a context.")
        .def_prop_ro("kind", [](const Resource &r) { return static_cast<int>(r.kind()); })
        .def_prop_ro("name", &Resource::name)
        .def_prop_ro("released", &Resource::released);

    nb::class_<Pipeline, Resource>(m, "Pipeline")
        .def_prop_ro("vertex_inputs", [](const Pipeline &p) {
            std::vector<VertexInputPart> out;
            for (const VertexInput &in : p.vertex_inputs())
                out.emplace_back(in.binding, in.stride, in.extent, in.per_instance);
            return out;
        });

    nb::class_<Buffer, Resource>(m, "Buffer")
        .def_prop_ro("size", &Buffer::size);

    nb::class_<Context>(m, "Context", "A device, its resources and the lock around submits.")
        .def(nb::new_([](const std::string &device) {
                 return std::make_shared<Context>(make_device(device));
             }),
             nb::arg("device"))
        .def_prop_ro("device_name", [](Context &c) { return std::string(c.device().name()); })
        .def(
            "buffer",
            [](Context &c, const std::string &name, uint64_t size) {
                return locked(c, [&] { return c.create_host_buffer(name, size); });
            },
            nb::arg("name"), nb::arg("size"))
        .def(
            "resource",
            [](Context &c, int kind, const std::string &name) {
                if (kind < 0 || kind >= static_cast<int>(isa::kNumResourceKinds) ||
                    kind == static_cast<int>(isa::ResourceKind::BUFFER) ||
                    kind == static_cast<int>(isa::ResourceKind::EXTERNAL))
                    throw nb::value_error(
                        ("resource kind " + std::to_string(kind) + " cannot be created plain")
                            .c_str());
                return locked(c, [&] {
                    return c.create_plain(static_cast<isa::ResourceKind>(kind), name);
                });
            },
            nb::arg("kind"), nb::arg("name"))
        .def(
            "pipeline",
            [](Context &c, const std::string &name, const std::vector<VertexInputPart> &inputs) {
                std::vector<VertexInput> parsed = vertex_inputs(inputs);
                return locked(c, [&] { return c.create_pipeline(name, std::move(parsed)); });
            },
            nb::arg("name"), nb::arg("vertex_inputs"),
            "A pipeline of the trace or null device: (binding, stride, extent, per_instance) "
            "per vertex buffer binding.")
        .def(
            "release", [](Context &c, Resource &r) { locked(c, [&] { c.release(r); }); },
            nb::arg("resource"))
        .def("release_all", [](Context &c) { locked(c, [&] { c.release_all(); }); })
        .def("close", [](Context &c) { locked(c, [&] { c.close(); }); },
             "Release every resource and refuse new ones (ContextError).")
        .def(
            "call_current",
            [](Context &c, nb::callable action) {
                nb::object result;
                locked(c, [&] {
                    nb::gil_scoped_acquire gil;
                    result = action();
                });
                return result;
            },
            nb::arg("action"),
            "`action()`'s result, run holding the context's lock, its GL context current on "
            "this thread: what a window does beside the engine (swap, resize) with no other "
            "thread's call in between. `action` must not call into the context "
            "(ContextError).")
        .def("buffer_view", &buffer_view, nb::arg("buffer"),
             "A writable uint8 NumPy array over the buffer's memory (no copy).")
        .def("live_objects", [](Context &c) { return locked(c, [&] { return c.live_objects(); }); })
        .def("submit", &submit, nb::arg("program"), nb::arg("resources"), nb::arg("registers"),
             nb::arg("options"), nb::arg("time") = 0.0f, nb::arg("delta") = 0.0f,
             nb::arg("random_state") = 0, nb::arg("debug_output") = false)
        .def("trace_entries", &trace_entries)
        .def("clear_trace", &clear_trace);
}

// Python exception types of hypergl._core. The facade (hypergl/_vm.py) turns
// them into hypergl_compiler.VerifyError and hypergl.VMError.
#pragma once

#include <nanobind/nanobind.h>

#include "hypergl/errors.hpp"

// The exception's args: (index, mnemonic, reason), and the reason code of a
// verifier failure.
inline nanobind::object instruction_error_args(const hypergl::VMFailure &e) {
    return nanobind::make_tuple(e.index(), e.mnemonic(), e.reason());
}
inline nanobind::object instruction_error_args(const hypergl::VerifyFailure &e) {
    return nanobind::make_tuple(e.index(), e.mnemonic(), e.reason(),
                                hypergl::isa::verify_code_name(e.code()));
}

// Creates `_core.<name>(ValueError)` and translates engine exceptions of type
// E into it with instruction_error_args(e).
template <typename E>
void register_instruction_error(nanobind::module_ &m, const char *name) {
    namespace nb = nanobind;
    static PyObject *type = nullptr;
    const std::string qualified = std::string("hypergl._core.") + name;
    type = PyErr_NewException(qualified.c_str(), PyExc_ValueError, nullptr);
    m.attr(name) = nb::handle(type);
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const E &e) {
            nb::object args = instruction_error_args(e);
            PyErr_SetObject(type, args.ptr());
        }
    });
}

// Translates engine exceptions of type E into hypergl.ContextError with their
// message. The class is looked up when one is raised: importing the facade while
// this module initialises would load the extension a second time (stub generation
// imports it as a top-level `_core`), registering every type twice.
template <typename E>
void register_context_error() {
    namespace nb = nanobind;
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const E &e) {
            nb::object type = nb::module_::import_("hypergl.errors").attr("ContextError");
            PyErr_SetString(type.ptr(), e.what());
        }
    });
}

// Creates `_core.<name>(base)` and translates engine exceptions of type E
// into it with their message.
template <typename E>
void register_message_error(nanobind::module_ &m, const char *name, PyObject *base) {
    namespace nb = nanobind;
    static PyObject *type = nullptr;
    const std::string qualified = std::string("hypergl._core.") + name;
    type = PyErr_NewException(qualified.c_str(), base, nullptr);
    m.attr(name) = nb::handle(type);
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const E &e) {
            PyErr_SetString(type, e.what());
        }
    });
}

// Python exception types of hypergl._core. The facade (hypergl/_vm.py) turns
// them into hypergl_compiler.VerifyError and hypergl.VMError.
#pragma once

#include <nanobind/nanobind.h>

#include "hypergl/errors.hpp"

// Creates `_core.<name>(ValueError)` and translates engine exceptions of type
// E into it with args (index, mnemonic, reason).
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
            nb::object args = nb::make_tuple(e.index(), e.mnemonic(), e.reason());
            PyErr_SetObject(type, args.ptr());
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

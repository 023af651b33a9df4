// Registration functions of the hypergl._core module, one per binding file.
#pragma once

#include <nanobind/nanobind.h>

void register_probe(nanobind::module_ &m);
void register_program(nanobind::module_ &m);
void register_context(nanobind::module_ &m);
void register_gl(nanobind::module_ &m);
void register_external(nanobind::module_ &m);

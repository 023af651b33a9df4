// hypergl._core: thin nanobind bindings over the engine library.
#include "bindings.hpp"

NB_MODULE(_core, m) {
    m.doc() = "HyperGL engine: GL loader, capability probe, verifier and VM.";
    register_probe(m);
    register_program(m);
    register_context(m);
    register_gl(m);
    register_external(m);
    register_engine_context(m);  // before register_egl: EGLContext derives from it
    register_egl(m);
}

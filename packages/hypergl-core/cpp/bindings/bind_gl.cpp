// The gl device's part of hypergl._core: creating a GL context's device and
// the GL objects behind buffers, textures, pipelines, framebuffers, fences
// and readback rings; reading pixels into caller-owned arrays.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "hypergl/context.hpp"
#include "hypergl/engine_gl_context.hpp"
#include "hypergl/errors.hpp"
#include "hypergl/gl_device.hpp"

namespace nb = nanobind;
using namespace hypergl;

namespace {

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Output = nb::ndarray<uint8_t, nb::c_contig, nb::device::cpu>;
// (location, binding, components, GL type, normalized, integer, offset)
using AttributePart = std::tuple<uint32_t, uint32_t, int, uint32_t, bool, bool, uint32_t>;
// (binding, stride, divisor)
using BindingPart = std::tuple<uint32_t, int, uint32_t>;

GLDevice &gl_device(Context &context) {
    auto *device = dynamic_cast<GLDevice *>(&context.device());
    if (!device) throw nb::type_error("this context has no OpenGL device");
    return *device;
}

TextureFormat format_of(const std::string &name) {
    auto format = texture_format(name);
    if (!format) throw nb::value_error(("unknown texture format '" + name + "'").c_str());
    return *format;
}

template <typename T>
std::shared_ptr<T> adopted(Context &context, std::shared_ptr<T> resource) {
    context.adopt(resource);
    return resource;
}

// One of a framebuffer's colour textures (nullptr past the last), owned by the context
// from then on: kept and released as any texture it made.
std::shared_ptr<GLTexture> owned_color(Context &context,
                                       const std::vector<std::shared_ptr<GLTexture>> &colors,
                                       size_t index) {
    std::shared_ptr<GLTexture> color = index < colors.size() ? colors[index] : nullptr;
    if (color) color->set_owner(&context);
    return color;
}

// On a context the engine makes current (`engine`: EGL, or the hidden window of the
// fallback), the device is created with it current and every later call makes it
// current on the calling thread; on a window's context (`load`), the window keeps it
// current.
std::shared_ptr<Context> make_gl_context(nb::object load, bool indirect_count,
                                         bool indirect_count_arb, bool bindless,
                                         std::shared_ptr<EngineGLContext> engine,
                                         bool software) {
    GLFeatures features;
    features.indirect_count = indirect_count;
    features.indirect_count_arb = indirect_count_arb;
    features.bindless_textures = bindless;
    features.waits_in_driver = software;
    if (!engine) {
        const hypergl::GLLoader loader = python_loader(nb::cast<nb::callable>(load));
        return std::make_shared<Context>(std::make_unique<GLDevice>(loader, features));
    }
    nb::gil_scoped_release unlocked;
    engine->enter();
    std::unique_ptr<GLDevice> device;
    try {
        device = std::make_unique<GLDevice>(engine->loader(), features);
    } catch (...) {
        engine->leave();
        throw;
    }
    engine->leave();
    return std::make_shared<Context>(std::move(device), engine);
}

PipelineState pipeline_state(uint32_t topology, bool depth_test, bool depth_write,
                             uint32_t depth_func, bool blend, uint32_t cull, uint32_t front_face,
                             uint32_t clip_distances, bool multisample,
                             const std::vector<AttributePart> &attributes,
                             const std::vector<BindingPart> &bindings) {
    PipelineState state;
    state.topology = topology;
    state.depth_test = depth_test;
    state.depth_write = depth_write;
    state.depth_func = depth_func;
    state.blend = blend;
    state.cull = cull;
    state.front_face = front_face;
    state.clip_distances = clip_distances;
    state.multisample = multisample;
    for (const auto &[location, binding, components, type, normalized, integer, offset] :
         attributes)
        state.attributes.push_back(
            VertexAttribute{location, binding, components, type, normalized, integer, offset});
    for (const auto &[binding, stride, divisor] : bindings)
        state.bindings.push_back(VertexBinding{binding, stride, divisor});
    return state;
}

}  // namespace

void register_gl(nb::module_ &m) {
    register_message_error<ShaderError>(m, "ShaderError", PyExc_ValueError);

    nb::class_<GLTexture, Resource>(m, "GLTexture")
        .def_prop_ro("width", &GLTexture::width)
        .def_prop_ro("height", &GLTexture::height)
        .def_prop_ro("layers", &GLTexture::layers)
        .def_prop_ro("bindless", [](const GLTexture &t) { return bool(t.handle_buffer); });
    nb::class_<GLPipeline, Pipeline>(m, "GLPipeline")
        .def_prop_ro("compute", &GLPipeline::compute);
    nb::class_<GLFramebuffer, Resource>(m, "GLFramebuffer")
        .def_prop_ro("width", &GLFramebuffer::width)
        .def_prop_ro("height", &GLFramebuffer::height)
        .def_prop_ro("color_count", [](const GLFramebuffer &f) { return f.colors().size(); })
        .def_prop_ro("has_depth", [](const GLFramebuffer &f) { return bool(f.depth()); })
        .def("resize", &GLFramebuffer::resize);
    nb::class_<GLFence, Resource>(m, "GLFence");
    nb::class_<GLReadback, Resource>(m, "GLReadback")
        .def_prop_ro("frames_written", &GLReadback::frames_written)
        .def_prop_ro("frame_bytes", &GLReadback::frame_bytes)
        .def_prop_ro("depth", &GLReadback::depth);

    nb::class_<Context> context = nb::borrow<nb::class_<Context>>(m.attr("Context"));
    context
        .def_static("gl", &make_gl_context, nb::arg("load").none(), nb::arg("indirect_count"),
                    nb::arg("indirect_count_arb"), nb::arg("bindless"),
                    nb::arg("engine").none() = nb::none(), nb::arg("software") = false,
                    "A context on an EGLContext or ForeignGLContext (`engine`), or on the "
                    "current GL context with `load(name) -> int` resolving entry points; "
                    "`software`: the renderer draws on the CPU (llvmpipe).")
        .def_prop_ro("bindless_textures",
                     [](Context &c) { return gl_device(c).features().bindless_textures; })
        .def_prop_ro("gl_live_mappings",
                     [](Context &c) { return gl_device(c).live_mappings(); })
        .def_prop_ro("indirect_count",
                     [](Context &c) { return gl_device(c).features().indirect_count; })
        .def(
            "gl_buffer",
            [](Context &c, const std::string &name, uint64_t size, std::optional<Bytes> data) {
                const uint8_t *bytes = data ? data->data() : nullptr;
                const uint64_t count = data ? data->size() : 0;
                return locked(c, [&] {
                    return adopted(c, create_gl_buffer(gl_device(c).shared(), name, size, bytes, count));
                });
            },
            nb::arg("name"), nb::arg("size"), nb::arg("data").none())
        .def(
            "gl_texture",
            [](Context &c, const std::string &name, int width, int height, int layers,
               const std::string &format, std::optional<Bytes> pixels, bool linear,
               uint32_t wrap, bool mipmaps, bool cube, const std::vector<Bytes> &levels) {
                const TextureFormat f = format_of(format);
                const uint8_t *bytes = pixels ? pixels->data() : nullptr;
                const uint64_t count = pixels ? pixels->size() : 0;
                std::vector<GLTexture::Level> given;  // the caller's levels 1, 2, ... if any
                for (const Bytes &level : levels) given.emplace_back(level.data(), level.size());
                return locked(c, [&] {
                    return adopted(c, GLTexture::create(gl_device(c).shared(), name, width,
                                                        height, layers, f, bytes, count, linear,
                                                        wrap, mipmaps, cube, given));
                });
            },
            nb::arg("name"), nb::arg("width"), nb::arg("height"), nb::arg("layers"),
            nb::arg("format"), nb::arg("pixels").none(), nb::arg("linear"), nb::arg("wrap"),
            nb::arg("mipmaps") = false, nb::arg("cube") = false,
            nb::arg("levels") = std::vector<Bytes>())
        .def(
            "gl_texture_write",
            [](Context &c, GLTexture &texture, Bytes pixels) {
                const uint8_t *bytes = pixels.data();
                const uint64_t count = pixels.size();
                SignalCheck stop;
                try {
                    locked_with(
                        c,
                        [&] {
                            gl_device(c).before_driver_wait(stop.get());
                            texture.write(bytes, count);
                        },
                        texture);
                } catch (const Interrupted &) {
                    stop.rethrow();
                }
            },
            nb::arg("texture"), nb::arg("pixels"))
        .def(
            "gl_texture_set",
            [](Context &c, const std::string &name, int width, int height, int count,
               const std::string &format, Bytes pixels, bool linear, uint32_t wrap) {
                const TextureFormat f = format_of(format);
                const uint64_t needed =
                    uint64_t(width) * uint64_t(height) * uint64_t(count) * f.bytes_per_pixel;
                if (pixels.size() != needed)
                    throw nb::value_error(("texture set needs " + std::to_string(needed) +
                                           " bytes of pixels, got " +
                                           std::to_string(pixels.size()))
                                              .c_str());
                return locked(c, [&] {
                    GLDevice &device = gl_device(c);
                    return adopted(c, GLTexture::create_set(
                                          device.shared(), device.features().bindless_textures,
                                          name, width, height, count, f, pixels.data(), linear,
                                          wrap));
                });
            },
            nb::arg("name"), nb::arg("width"), nb::arg("height"), nb::arg("count"),
            nb::arg("format"), nb::arg("pixels"), nb::arg("linear"), nb::arg("wrap"))
        .def(
            "gl_pipeline",
            [](Context &c, const std::string &name, const std::string &vs, const std::string &fs,
               const std::string &cs, uint32_t topology, bool depth_test, bool depth_write,
               uint32_t depth_func, bool blend, uint32_t cull, uint32_t front_face,
               const std::vector<AttributePart> &attributes,
               const std::vector<BindingPart> &bindings,
               const std::vector<VertexInputPart> &inputs, uint32_t clip_distances,
               bool multisample) {
                PipelineState state =
                    pipeline_state(topology, depth_test, depth_write, depth_func, blend, cull,
                                   front_face, clip_distances, multisample, attributes,
                                   bindings);
                std::vector<VertexInput> parsed = vertex_inputs(inputs);
                return locked(c, [&] {
                    return adopted(c, GLPipeline::create(gl_device(c).shared(), name, vs, fs, cs,
                                                         std::move(state), std::move(parsed)));
                });
            },
            nb::arg("name"), nb::arg("vertex_shader"), nb::arg("fragment_shader"),
            nb::arg("compute_shader"), nb::arg("topology"), nb::arg("depth_test"),
            nb::arg("depth_write"), nb::arg("depth_func"), nb::arg("blend"), nb::arg("cull"),
            nb::arg("front_face"), nb::arg("attributes"), nb::arg("bindings"),
            nb::arg("vertex_inputs") = std::vector<VertexInputPart>{},
            nb::arg("clip_distances") = 0, nb::arg("multisample") = true)
        .def(
            "gl_framebuffer",
            [](Context &c, const std::string &name, int width, int height,
               const std::vector<std::string> &colors, std::optional<std::string> depth,
               int samples) {
                std::vector<TextureFormat> color_formats;
                for (const std::string &color : colors) color_formats.push_back(format_of(color));
                std::optional<TextureFormat> depth_format;
                if (depth) depth_format = format_of(*depth);
                return locked(c, [&] {
                    return adopted(c, GLFramebuffer::create(gl_device(c).shared(), name, width,
                                                            height, color_formats,
                                                            depth_format, samples));
                });
            },
            nb::arg("name"), nb::arg("width"), nb::arg("height"), nb::arg("colors"),
            nb::arg("depth").none(), nb::arg("samples") = 0)
        .def(
            "gl_default_framebuffer",
            [](Context &c, const std::string &name, int width, int height) {
                return locked(c, [&] {
                    return adopted(c, GLFramebuffer::create_default(gl_device(c).shared(), name,
                                                                    width, height));
                });
            },
            nb::arg("name"), nb::arg("width"), nb::arg("height"))
        .def(
            "gl_fence",
            [](Context &c, const std::string &name) {
                return locked(c, [&] {
                    return adopted(c, std::make_shared<GLFence>(name, gl_device(c).shared()));
                });
            },
            nb::arg("name"))
        .def(
            "gl_readback",
            [](Context &c, const std::string &name, int width, int height, int components,
               uint32_t attachment, int depth) {
                return locked(c, [&] {
                    return adopted(c, GLReadback::create(gl_device(c).shared(), name, width,
                                                         height, components, attachment, depth));
                });
            },
            nb::arg("name"), nb::arg("width"), nb::arg("height"), nb::arg("components"),
            nb::arg("attachment"), nb::arg("depth"))
        .def("finish",
             [](Context &c) {
                 SignalCheck stop;
                 try {
                     locked(c, [&] { gl_device(c).finish(stop.get()); });
                 } catch (const Interrupted &) {
                     stop.rethrow();
                 }
             })
        .def("flush", [](Context &c) { locked(c, [&] { gl_device(c).flush(); }); })
        // The depth attachment itself, for shaders to sample: the framebuffer keeps and
        // releases it; it belongs to the framebuffer's context, so programs may bind it.
        .def(
            "gl_depth_texture",
            [](Context &c, GLFramebuffer &framebuffer) {
                return guarded_with(
                    c,
                    [&] {
                        const std::shared_ptr<GLTexture> &depth = framebuffer.depth();
                        if (depth) depth->set_owner(&c);
                        return depth;
                    },
                    framebuffer);
            },
            nb::arg("framebuffer"))
        // A colour attachment itself (None: no such attachment), kept and released as the
        // depth one: a later pass samples what an earlier one drew (a mirror's picture).
        .def(
            "gl_color_texture",
            [](Context &c, GLFramebuffer &framebuffer, size_t index) {
                return guarded_with(
                    c,
                    [&] { return owned_color(c, framebuffer.colors(), index); },
                    framebuffer);
            },
            nb::arg("framebuffer"), nb::arg("index"))
        // A multisampled framebuffer's colour attachment itself (None: none such, or
        // single-sampled), kept and released as the others: a pass reads its samples.
        .def(
            "gl_sample_texture",
            [](Context &c, GLFramebuffer &framebuffer, size_t index) {
                return guarded_with(
                    c,
                    [&] { return owned_color(c, framebuffer.sample_colors(), index); },
                    framebuffer);
            },
            nb::arg("framebuffer"), nb::arg("index"))
        .def("collect", [](Context &c) { locked(c, [&] { gl_device(c).collect(); }); })
        .def("check_errors",
             [](Context &c) { locked(c, [&] { gl_device(c).check_errors("(checked)"); }); })
        .def(
            "fence_wait",
            [](Context &c, GLFence &fence, uint64_t timeout_ns) {
                SignalCheck stop;
                try {
                    return locked_with(
                        c, [&] { return fence.wait(timeout_ns, stop.get()); }, fence);
                } catch (const Interrupted &) {
                    stop.rethrow();
                }
            },
            nb::arg("fence"), nb::arg("timeout_ns"))
        .def(
            "read_pixels",
            [](Context &c, GLFramebuffer &framebuffer, uint32_t attachment, int components,
               bool float_pixels, std::tuple<int, int, int, int> rect, Output out) {
                uint8_t *data = out.data();
                const uint64_t size = out.nbytes();
                SignalCheck stop;
                try {
                    locked_with(
                        c,
                        [&] {
                            const auto [x, y, w, h] = rect;
                            // glReadPixels would wait for the frame inside the driver.
                            wait_idle(gl_device(c).api(), stop.get());
                            read_pixels(gl_device(c).api(), framebuffer, attachment, components,
                                        float_pixels, PixelRect{x, y, w, h}, data, size);
                            gl_device(c).check_errors("reading pixels");
                        },
                        framebuffer);
                } catch (const Interrupted &) {
                    stop.rethrow();
                }
            },
            nb::arg("framebuffer"), nb::arg("attachment"), nb::arg("components"),
            nb::arg("float_pixels"), nb::arg("rect"), nb::arg("out"))
        .def(
            "readback_frame",
            [](Context &c, GLReadback &readback, uint64_t lag, uint64_t timeout_ns,
               Output out) {
                // frame_bytes is fixed at creation; the ring itself is looked at
                // only under the lock, after the check that it is live. The frame
                // `lag` captures before the newest is found under it too: a submit on
                // another thread between a count read outside and this read would
                // move the ring on.
                if (out.nbytes() != readback.frame_bytes())
                    throw nb::value_error(("the output holds " + std::to_string(out.nbytes()) +
                                           " bytes, a frame of readback '" + readback.name() +
                                           "' has " + std::to_string(readback.frame_bytes()))
                                              .c_str());
                uint8_t *data = out.data();
                SignalCheck stop;
                try {
                    locked_with(
                        c,
                        [&] {
                            const uint64_t written = readback.frames_written();
                            if (lag >= written)
                                throw BindingError("readback '" + readback.name() + "' has "
                                                   "captured " + std::to_string(written) +
                                                   " frame(s); lag " + std::to_string(lag) +
                                                   " needs at least " +
                                                   std::to_string(lag + 1));
                            const uint8_t *bytes =
                                readback.frame(written - 1 - lag, timeout_ns, stop.get());
                            std::memcpy(data, bytes, readback.frame_bytes());
                        },
                        readback);
                } catch (const Interrupted &) {
                    stop.rethrow();
                }
            },
            nb::arg("readback"), nb::arg("lag"), nb::arg("timeout_ns"), nb::arg("out"));
}

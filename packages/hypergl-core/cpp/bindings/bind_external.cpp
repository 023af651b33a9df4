// External sources whose arrays come from Python objects with the buffer
// protocol (e.g. Culverin's position and rotation views, MuJoCo's mjData
// arrays). The views are acquired under the GIL at each upload, converted in
// C++ without it, and released right after unless an attribute source keeps
// them (keep_views).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "hypergl/context.hpp"
#include "hypergl/conversion_source.hpp"

namespace nb = nanobind;
using namespace hypergl;

namespace {

// The element type of a buffer-protocol view, as (kind 'f'/'u'/'i', bytes), or
// kind 0 for untyped memory (bytes, structured records) that any field may read.
std::pair<char, uint64_t> element_type(const Py_buffer &view) {
    const char *format = view.format ? view.format : "B";
    if (*format == '@' || *format == '=' || *format == '<') ++format;
    if (format[0] == '\0' || format[1] != '\0') return {0, 0};  // records, or big-endian
    switch (format[0]) {
        case 'e': case 'f': case 'd': return {'f', uint64_t(view.itemsize)};
        case 'h': case 'i': case 'l': case 'q': case 'n': return {'i', uint64_t(view.itemsize)};
        case 'H': case 'I': case 'L': case 'Q': case 'N': return {'u', uint64_t(view.itemsize)};
        default: return {0, 0};  // 'B', 'b', 'c', '?': raw bytes
    }
}

std::string element_name(char kind, uint64_t size) {
    const char *base = kind == 'f' ? "float" : kind == 'u' ? "uint" : "int";
    return base + std::to_string(8 * size);
}

// A typed array that a converting field reads as another type would be
// reinterpreted byte for byte (float32 read as f64): refused, naming both.
// A field that copies without converting (type == to, e.g. float32 pairs
// moved as u64) copies bits and may read any array; so may a field over
// untyped memory (bytes, structured records).
void check_element_type(const std::string &name, const std::vector<FieldCopy> &fields,
                        const Py_buffer &view, uint32_t source) {
    const auto [kind, size] = element_type(view);
    if (kind == 0) return;
    for (size_t i = 0; i < fields.size(); ++i) {
        const FieldCopy &field = fields[i];
        const auto from = static_cast<uint8_t>(field.from);
        if (field.source != source || field.from == field.to) continue;
        if (kScalarKind[from] == kind && kScalarSize[from] == size) continue;
        throw std::invalid_argument("external source '" + name + "': field " +
                                    std::to_string(i) + " reads source " +
                                    std::to_string(source) + " as " + kScalarName[from] +
                                    ", but that array holds " + element_name(kind, size) +
                                    " (format '" + view.format + "')");
    }
}

// (source, from type, stride, offset, components, to type, at)
using FieldPart = std::tuple<uint32_t, int, uint32_t, uint32_t, uint32_t, int, uint32_t>;

class PythonSource final : public ConversionSource {
  public:
    PythonSource(std::string name, std::vector<FieldCopy> fields, uint32_t record_size,
                 std::shared_ptr<Buffer> count_buffer, uint32_t count_offset,
                 nb::callable acquire_views, nb::object after)
        : ConversionSource(std::move(name), std::move(fields), record_size,
                           std::move(count_buffer), count_offset),
          acquire_(std::move(acquire_views)), after_(std::move(after)) {}

    ~PythonSource() override {
        nb::gil_scoped_acquire gil;
        acquire_.reset();
        after_.reset();
    }

    void release() override {
        Resource::release();
        nb::gil_scoped_acquire gil;
        acquire_.reset();
        after_.reset();
    }

  protected:
    SourceViews acquire() override {
        nb::gil_scoped_acquire gil;
        if (!acquire_.is_valid()) throw std::runtime_error("external source has been released");
        try {
            nb::object result = acquire_();
            nb::sequence items = nb::borrow<nb::sequence>(result);
            std::vector<SourceView> views;
            for (nb::handle item : items) {
                Py_buffer buffer;
                if (PyObject_GetBuffer(item.ptr(), &buffer, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) !=
                    0)
                    throw nb::python_error();
                buffers_.push_back(buffer);
                check_element_type(name(), fields(), buffer,
                                   static_cast<uint32_t>(views.size()));
                views.push_back(SourceView{static_cast<const uint8_t *>(buffer.buf),
                                           static_cast<uint64_t>(buffer.len)});
            }
            const auto count = static_cast<uint32_t>(views.size());
            return SourceViews{std::move(views), count};
        } catch (const std::invalid_argument &error) {
            release_views();  // acquire() succeeded: its release callback must run
            throw std::runtime_error(error.what());
        } catch (const nb::python_error &error) {
            drop_buffers();
            throw std::runtime_error(std::string("acquiring the arrays of '") + name() +
                                     "' failed: " + error.what());
        } catch (const nb::cast_error &) {
            drop_buffers();
            throw std::runtime_error("the acquire function of '" + name() +
                                     "' must return a sequence of buffer-protocol objects");
        }
    }

    void release_views() noexcept override {
        nb::gil_scoped_acquire gil;
        drop_buffers();
        if (after_.is_valid() && !after_.is_none()) {
            try {
                after_();
            } catch (nb::python_error &error) {
                error.discard_as_unraisable(nb::str("hypergl external source release"));
            }
        }
    }

  private:
    void drop_buffers() noexcept {
        for (Py_buffer &buffer : buffers_) PyBuffer_Release(&buffer);
        buffers_.clear();
    }

    nb::callable acquire_;
    nb::object after_;
    std::vector<Py_buffer> buffers_;
};

// Views of attributes of Python objects (a Culverin world's shadow buffers,
// or one MuJoCo mjData per world), taken in C++ with no Python frame:
// `lock.acquire()` (which waits without the GIL), each owner's row count, then
// the exports, owner by owner. With `keep` the exports stay held between
// uploads (while every count is unchanged, if a count attribute is given): an
// owner that refuses to reallocate exported memory (Culverin raises
// BufferError rather than grow while a view is alive), or one whose arrays
// never move (mjData's), keeps every address valid, so a frame costs at most
// one count read per owner instead of fresh views; `drop_views()` lets go.
class AttributeSource final : public ConversionSource {
  public:
    AttributeSource(std::string name, std::vector<FieldCopy> fields, uint32_t record_size,
                    std::shared_ptr<Buffer> count_buffer, uint32_t count_offset,
                    std::vector<nb::object> owners, bool many,
                    const std::vector<std::string> &names, const std::string &count_attr,
                    nb::object lock, bool keep)
        : ConversionSource(std::move(name), std::move(fields), record_size,
                           std::move(count_buffer), count_offset),
          owners_(std::move(owners)), many_(many), keep_(keep), labels_(names) {
        for (const std::string &n : names) names_.push_back(nb::str(n.c_str()));
        if (!count_attr.empty()) count_attr_ = nb::str(count_attr.c_str());
        if (!lock.is_none()) {
            lock_acquire_ = lock.attr("acquire");
            lock_release_ = lock.attr("release");
        }
    }

    ~AttributeSource() override {
        nb::gil_scoped_acquire gil;
        drop_buffers();
        owners_.clear();
        lock_acquire_.reset();
        lock_release_.reset();
    }

    // Called with the context's lock held and the GIL released (as every release is):
    // a copy cannot be running, but a drop_views() on another thread may (it holds
    // `copying_`, not the context's lock), so the exports are let go under `copying_`,
    // once. The lock's methods stay until destruction: drop_views() reads them unlocked.
    void release() override {
        Resource::release();
        std::lock_guard<std::mutex> copying(copying_);
        nb::gil_scoped_acquire gil;
        drop_buffers();
        owners_.clear();
    }

    // Releases the held exports, never under a running copy: it takes the
    // lock, then waits for `copying_` without the GIL (the order acquire()
    // takes them in, so that a thread holding the lock, e.g. Culverin's
    // stepping(), may call it).
    void drop_views() {
        const nb::object acquire = lock_acquire_, release = lock_release_;
        if (acquire.is_valid()) acquire();
        wait_for_copy();
        drop_buffers();
        copying_.unlock();
        if (release.is_valid()) release();
    }

    bool views_held() const { return !buffers_.empty(); }

  protected:
    SourceViews acquire() override {
        nb::gil_scoped_acquire gil;
        if (owners_.empty()) throw std::runtime_error("external source has been released");
        try {
            if (lock_acquire_.is_valid()) lock_acquire_();
        } catch (nb::python_error &error) {
            throw std::runtime_error(std::string("taking the lock of '") + name() +
                                     "' failed: " + error.what());
        }
        wait_for_copy();  // held until release_views(): the views stay valid meanwhile
        size_t owner = 0;
        try {
            std::vector<uint64_t> counts;
            if (count_attr_.is_valid())
                for (owner = 0; owner < owners_.size(); ++owner)
                    counts.push_back(nb::cast<uint64_t>(owners_[owner].attr(count_attr_)));
            if (keep_ && !buffers_.empty() && counts == held_counts_)
                return SourceViews{views_, static_cast<uint32_t>(names_.size())};
            drop_buffers();
            for (owner = 0; owner < owners_.size(); ++owner)
                for (const nb::str &attribute : names_) {
                    nb::object item = owners_[owner].attr(attribute);
                    Py_buffer buffer;
                    if (PyObject_GetBuffer(item.ptr(), &buffer,
                                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
                        throw nb::python_error();
                    buffers_.push_back(buffer);
                    check_element_type(name(), fields(), buffer,
                                       static_cast<uint32_t>(views_.size() % names_.size()));
                    views_.push_back(SourceView{static_cast<const uint8_t *>(buffer.buf),
                                                static_cast<uint64_t>(buffer.len)});
                }
            held_counts_ = std::move(counts);
            return SourceViews{views_, static_cast<uint32_t>(names_.size())};
        } catch (nb::python_error &error) {
            fail();
            throw std::runtime_error(std::string("acquiring the arrays of '") + name() + "'" +
                                     which(owner) + " failed: " + error.what());
        } catch (const nb::cast_error &) {
            fail();
            throw std::runtime_error("the row count of '" + name() + "'" + which(owner) +
                                     " is not a non-negative int");
        } catch (const std::invalid_argument &error) {
            fail();
            throw std::runtime_error(std::string(error.what()) + which(owner));
        }
    }

    void release_views() noexcept override {
        {
            nb::gil_scoped_acquire gil;
            if (!keep_) drop_buffers();
            unlock();
        }
        copying_.unlock();
    }

    std::string array_label(uint32_t source) const override {
        return source < labels_.size() ? "'" + labels_[source] + "'"
                                       : ConversionSource::array_label(source);
    }

  private:
    // Takes `copying_`, waiting without the GIL (whoever holds it may need the
    // GIL to let go). Called with the GIL and, if there is one, the lock held.
    void wait_for_copy() {
        nb::gil_scoped_release unlocked;
        copying_.lock();
    }

    // " (owner 3)" for a source over many owners: which one failed.
    std::string which(size_t owner) const {
        return many_ ? " (owner " + std::to_string(owner) + ")" : "";
    }

    // A failed acquire(): nothing stays held, the locks are given back.
    void fail() noexcept {
        drop_buffers();
        unlock();
        copying_.unlock();
    }

    void unlock() noexcept {
        if (!lock_release_.is_valid()) return;
        try {
            lock_release_();
        } catch (nb::python_error &error) {
            error.discard_as_unraisable(nb::str("hypergl external source unlock"));
        }
    }

    void drop_buffers() noexcept {
        for (Py_buffer &buffer : buffers_) PyBuffer_Release(&buffer);
        buffers_.clear();
        views_.clear();
        held_counts_.clear();
    }

    std::vector<nb::object> owners_;
    bool many_;
    std::vector<nb::str> names_;
    nb::str count_attr_;
    nb::object lock_acquire_, lock_release_;
    bool keep_;
    std::vector<std::string> labels_;
    std::vector<Py_buffer> buffers_;
    std::vector<SourceView> views_;
    std::vector<uint64_t> held_counts_;
    std::mutex copying_;  // held from acquire() to release_views(), taken after the lock
};

}  // namespace

void register_external(nb::module_ &m) {
    nb::class_<ExternalSource, Resource>(m, "ExternalSource");
    nb::class_<ConversionSource, ExternalSource>(m, "ConversionSource")
        .def_prop_ro("rows_uploaded", &ConversionSource::rows_uploaded)
        .def_prop_ro("record_size", &ConversionSource::record_size);
    nb::class_<AttributeSource, ConversionSource>(m, "AttributeSource")
        .def("drop_views", &AttributeSource::drop_views)
        .def_prop_ro("views_held", &AttributeSource::views_held);

    nb::class_<Context> context = nb::borrow<nb::class_<Context>>(m.attr("Context"));
    context
        .def(
            "external_source",
            [](Context &c, const std::string &name, nb::callable acquire_views, nb::object after,
               const std::vector<FieldPart> &fields, uint32_t record_size,
               std::shared_ptr<Buffer> count_buffer, uint32_t count_offset) {
                std::vector<FieldCopy> copies;
                for (const auto &[source, from, stride, offset, components, to, at] : fields)
                    copies.push_back(FieldCopy{source, static_cast<ScalarType>(from), stride,
                                               offset, components, static_cast<ScalarType>(to),
                                               at});
                auto source = std::make_shared<PythonSource>(
                    name, std::move(copies), record_size, std::move(count_buffer), count_offset,
                    std::move(acquire_views), std::move(after));
                locked(c, [&] { c.adopt(source); });
                return std::static_pointer_cast<ConversionSource>(source);
            },
            nb::arg("name"), nb::arg("acquire"), nb::arg("after").none(), nb::arg("fields"),
            nb::arg("record_size"), nb::arg("count_buffer").none(), nb::arg("count_offset"))
        .def(
            "attribute_source",
            [](Context &c, const std::string &name, std::vector<nb::object> owners, bool many,
               const std::vector<std::string> &names, const std::string &count_attr,
               nb::object lock, bool keep, const std::vector<FieldPart> &fields,
               uint32_t record_size, std::shared_ptr<Buffer> count_buffer, uint32_t count_offset) {
                std::vector<FieldCopy> copies;
                for (const auto &[source, from, stride, offset, components, to, at] : fields)
                    copies.push_back(FieldCopy{source, static_cast<ScalarType>(from), stride,
                                               offset, components, static_cast<ScalarType>(to),
                                               at});
                auto source = std::make_shared<AttributeSource>(
                    name, std::move(copies), record_size, std::move(count_buffer), count_offset,
                    std::move(owners), many, names, count_attr, std::move(lock), keep);
                locked(c, [&] { c.adopt(source); });
                return source;
            },
            nb::arg("name"), nb::arg("owners"), nb::arg("many"), nb::arg("names"),
            nb::arg("count_attr"),
            nb::arg("lock").none(), nb::arg("keep"), nb::arg("fields"), nb::arg("record_size"),
            nb::arg("count_buffer").none(), nb::arg("count_offset"))
        .def(
            "upload",
            [](Context &c, ExternalSource &source, Buffer &destination) {
                locked_with(
                    c, [&] { c.device().upload(source, destination); }, source, destination);
            },
            nb::arg("source"), nb::arg("destination"));
}

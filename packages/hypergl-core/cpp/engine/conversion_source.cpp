#include "hypergl/conversion_source.hpp"

#include <cstring>
#include <functional>
#include <stdexcept>

namespace hypergl {
namespace {

template <typename From, typename To>
void convert_rows(const uint8_t *source, uint64_t stride, uint8_t *destination,
                  uint64_t record_size, uint64_t rows, uint32_t components) {
    for (uint64_t row = 0; row < rows; ++row) {
        const uint8_t *in = source + row * stride;
        uint8_t *out = destination + row * record_size;
        for (uint32_t c = 0; c < components; ++c) {
            From value;
            std::memcpy(&value, in + c * sizeof(From), sizeof(From));
            const To converted = static_cast<To>(value);
            std::memcpy(out + c * sizeof(To), &converted, sizeof(To));
        }
    }
}

template <typename From>
void convert_from(ScalarType to, const uint8_t *source, uint64_t stride, uint8_t *destination,
                  uint64_t record_size, uint64_t rows, uint32_t components) {
    switch (to) {
        case ScalarType::F32:
            convert_rows<From, float>(source, stride, destination, record_size, rows, components);
            break;
        case ScalarType::F64:
            convert_rows<From, double>(source, stride, destination, record_size, rows, components);
            break;
        case ScalarType::U32:
            convert_rows<From, uint32_t>(source, stride, destination, record_size, rows,
                                         components);
            break;
        case ScalarType::U64:
            convert_rows<From, uint64_t>(source, stride, destination, record_size, rows,
                                         components);
            break;
        case ScalarType::I32:
            convert_rows<From, int32_t>(source, stride, destination, record_size, rows,
                                        components);
            break;
    }
}

void convert(const FieldCopy &f, const uint8_t *source, uint8_t *destination,
             uint64_t record_size, uint64_t rows) {
    const uint8_t *in = source + f.offset;
    uint8_t *out = destination + f.at;
    switch (f.from) {
        case ScalarType::F32:
            convert_from<float>(f.to, in, f.stride, out, record_size, rows, f.components);
            break;
        case ScalarType::F64:
            convert_from<double>(f.to, in, f.stride, out, record_size, rows, f.components);
            break;
        case ScalarType::U32:
            convert_from<uint32_t>(f.to, in, f.stride, out, record_size, rows, f.components);
            break;
        case ScalarType::U64:
            convert_from<uint64_t>(f.to, in, f.stride, out, record_size, rows, f.components);
            break;
        case ScalarType::I32:
            convert_from<int32_t>(f.to, in, f.stride, out, record_size, rows, f.components);
            break;
    }
}

// Releases the views however upload() leaves.
struct ViewGuard {
    std::vector<SourceView> views;
    std::function<void()> release;
    ~ViewGuard() { release(); }
};

}  // namespace

uint32_t scalar_size(ScalarType type) {
    switch (type) {
        case ScalarType::F64:
        case ScalarType::U64: return 8;
        default: return 4;
    }
}

ConversionSource::ConversionSource(std::string name, std::vector<FieldCopy> fields,
                                   uint32_t record_size, std::shared_ptr<Buffer> count_buffer,
                                   uint32_t count_offset)
    : ExternalSource(std::move(name)), fields_(std::move(fields)), record_size_(record_size),
      count_buffer_(std::move(count_buffer)), count_offset_(count_offset) {}

void ConversionSource::upload(Buffer &destination) {
    ViewGuard guard{acquire(), [this] { release_views(); }};
    const std::vector<SourceView> &views = guard.views;
    // Every field's source must hold the same number of rows.
    bool known = false;
    uint64_t rows = 0;
    for (const FieldCopy &f : fields_) {
        if (f.source >= views.size())
            throw std::runtime_error("external source '" + name() + "' returned " +
                                     std::to_string(views.size()) + " arrays, field needs #" +
                                     std::to_string(f.source));
        const uint64_t size = views[f.source].size;
        const uint64_t field_rows = size / f.stride;
        if (size % f.stride != 0)
            throw std::runtime_error("array #" + std::to_string(f.source) + " of '" + name() +
                                     "' has " + std::to_string(size) +
                                     " bytes, not a whole number of " + std::to_string(f.stride) +
                                     "-byte rows");
        if (known && field_rows != rows)
            throw std::runtime_error("the arrays of '" + name() + "' disagree on their rows (" +
                                     std::to_string(rows) + " and " + std::to_string(field_rows) +
                                     ")");
        rows = field_rows;
        known = true;
    }
    const uint64_t capacity = destination.size() / record_size_;
    if (rows > capacity)
        throw std::runtime_error("external source '" + name() + "' has " + std::to_string(rows) +
                                 " rows, more than the " + std::to_string(capacity) +
                                 " records buffer '" + destination.name() + "' holds");
    for (const FieldCopy &f : fields_)
        convert(f, views[f.source].data, destination.data(), record_size_, rows);
    if (count_buffer_) {
        if (count_buffer_->released())
            throw std::runtime_error("the count buffer of '" + name() + "' has been released");
        const auto count = static_cast<uint32_t>(rows);
        std::memcpy(count_buffer_->data() + count_offset_, &count, 4);
    }
    rows_ = rows;
}

}  // namespace hypergl

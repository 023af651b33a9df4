#include "hypergl/conversion_source.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>

namespace hypergl {
namespace {

// Converts `rows` rows of N scalars, From -> To. N is a template argument so
// that the inner loop and its copies unroll into plain loads and stores (a
// run-time size would call memcpy for every row).
template <typename From, typename To, uint32_t N>
void convert_rows(const uint8_t *in, uint64_t stride, uint8_t *out, uint64_t record_size,
                  uint64_t rows) {
    for (uint64_t row = 0; row < rows; ++row, in += stride, out += record_size) {
        From values[N];
        To converted[N];
        std::memcpy(values, in, sizeof values);
        for (uint32_t c = 0; c < N; ++c) converted[c] = static_cast<To>(values[c]);
        std::memcpy(out, converted, sizeof converted);
    }
}

using RowsConverter = void (*)(const uint8_t *, uint64_t, uint8_t *, uint64_t, uint64_t);

template <typename From, typename To>
RowsConverter with_components(uint32_t components) {
    switch (components) {
        case 1: return &convert_rows<From, To, 1>;
        case 2: return &convert_rows<From, To, 2>;
        case 3: return &convert_rows<From, To, 3>;
        case 4: return &convert_rows<From, To, 4>;
        case 9: return &convert_rows<From, To, 9>;  // a 3x3 matrix (MuJoCo's xmat)
        default: return nullptr;
    }
}

template <typename From>
RowsConverter converter_to(ScalarType to, uint32_t components) {
    switch (to) {
#define HYPERGL_CASE(NAME, TYPE) \
    case ScalarType::NAME: return with_components<From, TYPE>(components);
        HYPERGL_SCALAR_TYPES(HYPERGL_CASE)
#undef HYPERGL_CASE
    }
    return nullptr;
}

// The typed loop of a field with 1..4 or 9 components (nullptr: use the generic one).
RowsConverter converter(ScalarType from, ScalarType to, uint32_t components) {
    switch (from) {
#define HYPERGL_CASE(NAME, TYPE) \
    case ScalarType::NAME: return converter_to<TYPE>(to, components);
        HYPERGL_SCALAR_TYPES(HYPERGL_CASE)
#undef HYPERGL_CASE
    }
    return nullptr;
}

// A scalar widened for the generic path: reals as double, integers as int64.
struct Wide {
    bool real;
    double d;
    int64_t i;
};

template <typename T>
T load_as(const uint8_t *p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

template <typename T>
void store_as(uint8_t *p, T value) {
    std::memcpy(p, &value, sizeof(T));
}

template <typename T>
Wide widen(const uint8_t *p) {
    const T value = load_as<T>(p);
    if constexpr (std::is_floating_point_v<T>) return {true, static_cast<double>(value), 0};
    else return {false, 0, static_cast<int64_t>(value)};
}

template <typename T>
T narrow(Wide w) {
    if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(w.real ? w.d : static_cast<double>(w.i));
    else return static_cast<T>(w.real ? static_cast<int64_t>(w.d) : w.i);
}

Wide load(ScalarType type, const uint8_t *p) {
    switch (type) {
#define HYPERGL_CASE(NAME, TYPE) \
    case ScalarType::NAME: return widen<TYPE>(p);
        HYPERGL_SCALAR_TYPES(HYPERGL_CASE)
#undef HYPERGL_CASE
    }
    return {false, 0, 0};
}

void store(ScalarType type, uint8_t *p, Wide w) {
    switch (type) {
#define HYPERGL_CASE(NAME, TYPE) \
    case ScalarType::NAME: store_as(p, narrow<TYPE>(w)); break;
        HYPERGL_SCALAR_TYPES(HYPERGL_CASE)
#undef HYPERGL_CASE
    }
}

// Any other field: element by element, through Wide.
void convert_generic(const FieldCopy &f, const uint8_t *in, uint8_t *out, uint64_t record_size,
                     uint64_t rows) {
    const uint32_t from_size = scalar_size(f.from), to_size = scalar_size(f.to);
    for (uint64_t row = 0; row < rows; ++row, in += f.stride, out += record_size)
        for (uint32_t c = 0; c < f.components; ++c)
            store(f.to, out + c * to_size, load(f.from, in + c * from_size));
}

// Rows per block: every field of a block is written while its records are in cache.
constexpr uint64_t kBlockRows = 512;

// Many owners (a list of MjData) keep each owner's arrays in memory of its own, which the
// hardware prefetcher does not follow from one owner to the next: cold, every cache line
// would be a miss in series (256 humanoid worlds: 450 us instead of 50 us warm). The
// owners this far ahead are touched while one converts; at most this many bytes of each
// of their arrays (beyond it the prefetcher follows the stream).
constexpr uint64_t kPrefetchOwners = 4;
constexpr uint64_t kPrefetchBytes = 16384;

void prefetch(const SourceView &view) {
#if defined(__GNUC__) || defined(__clang__)
    const uint64_t end = view.size < kPrefetchBytes ? view.size : kPrefetchBytes;
    for (uint64_t at = 0; at < end; at += 64) __builtin_prefetch(view.data + at);
#else
    (void)view;  // a hint only: compilers without the builtin skip it
#endif
}

// Releases the views however upload() leaves.
struct ViewGuard {
    SourceViews acquired;
    std::function<void()> release;
    ~ViewGuard() { release(); }
};

}  // namespace

ConversionSource::ConversionSource(std::string name, std::vector<FieldCopy> fields,
                                   uint32_t record_size, std::shared_ptr<Buffer> count_buffer,
                                   uint32_t count_offset)
    : ExternalSource(std::move(name)), fields_(std::move(fields)), record_size_(record_size),
      count_buffer_(std::move(count_buffer)), count_offset_(count_offset) {
    // The Python facade checks all of this with friendlier messages; the engine
    // checks again because every copy below trusts these numbers.
    if (record_size_ == 0) throw std::invalid_argument("record size must be positive");
    for (const FieldCopy &f : fields_) {
        if (static_cast<uint8_t>(f.from) >= kNumScalarTypes ||
            static_cast<uint8_t>(f.to) >= kNumScalarTypes)
            throw std::invalid_argument("unknown scalar type in external source '" +
                                        this->name() + "'");
        const uint64_t in = uint64_t(f.offset) + uint64_t(f.components) * scalar_size(f.from);
        const uint64_t out = uint64_t(f.at) + uint64_t(f.components) * scalar_size(f.to);
        if (f.stride == 0 || f.components == 0 || in > f.stride || out > record_size_)
            throw std::invalid_argument("a field of external source '" + this->name() +
                                        "' does not fit its source row or record");
    }
    if (count_buffer_ &&
        (count_offset_ % 4 != 0 || uint64_t(count_offset_) + 4 > count_buffer_->size()))
        throw std::invalid_argument("the count offset of external source '" + this->name() +
                                    "' is not an aligned u32 inside its buffer");
}

void ConversionSource::upload(Buffer &destination) {
    ViewGuard guard{acquire(), [this] { release_views(); }};
    const std::vector<SourceView> &views = guard.acquired.views;
    const uint64_t per_owner = guard.acquired.per_owner;
    const uint64_t owners = per_owner == 0 ? 1 : views.size() / per_owner;
    // Every field's source must hold the same number of rows (owner 0's
    // arrays decide; every other owner's must be the same size).
    bool known = false;
    uint64_t rows = 0;
    for (const FieldCopy &f : fields_) {
        if (f.source >= per_owner)
            throw std::runtime_error("external source '" + name() + "' returned " +
                                     std::to_string(per_owner) + " arrays, field needs #" +
                                     std::to_string(f.source));
        const uint64_t size = views[f.source].size;
        const uint64_t field_rows = size / f.stride;
        if (size % f.stride != 0)
            throw std::runtime_error("array " + array_label(f.source) + " of '" + name() +
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
    for (uint64_t owner = 1; owner < owners; ++owner)
        for (uint64_t s = 0; s < per_owner; ++s)
            if (views[owner * per_owner + s].size != views[s].size)
                throw std::runtime_error(
                    "owner " + std::to_string(owner) + " of '" + name() + "' gives array " +
                    array_label(static_cast<uint32_t>(s)) + " of " +
                    std::to_string(views[owner * per_owner + s].size) + " bytes, owner 0 " +
                    std::to_string(views[s].size) + ": every owner must give the same-shaped arrays");
    const uint64_t owner_rows = rows;
    rows *= owners;
    const uint64_t capacity = destination.size() / record_size_;
    if (rows > capacity)
        throw std::runtime_error("external source '" + name() + "' has " + std::to_string(rows) +
                                 " rows, more than the " + std::to_string(capacity) +
                                 " records buffer '" + destination.name() +
                                 "' holds: give it room for them (e.g. a bridge's capacity=)");
    // Owner by owner, blocks of rows, field by field within a block: tight
    // typed loops, and each block of records is still in cache when its next
    // field is written.
    if (owners > 1)
        for (uint64_t ahead = 0; ahead < std::min(owners, kPrefetchOwners); ++ahead)
            for (uint64_t s = 0; s < per_owner; ++s) prefetch(views[ahead * per_owner + s]);
    for (uint64_t owner = 0; owner < owners; ++owner) {
        const SourceView *owner_views = views.data() + owner * per_owner;
        if (owners > 1 && owner + kPrefetchOwners < owners)
            for (uint64_t s = 0; s < per_owner; ++s)
                prefetch(views[(owner + kPrefetchOwners) * per_owner + s]);
        uint8_t *owner_out = destination.data() + owner * owner_rows * record_size_;
        for (uint64_t first = 0; first < owner_rows; first += kBlockRows) {
            const uint64_t count = std::min(owner_rows - first, kBlockRows);
            uint8_t *out = owner_out + first * record_size_;
            for (const FieldCopy &f : fields_) {
                const uint8_t *in = owner_views[f.source].data + f.offset + first * f.stride;
                if (RowsConverter convert = converter(f.from, f.to, f.components))
                    convert(in, f.stride, out + f.at, record_size_, count);
                else
                    convert_generic(f, in, out + f.at, record_size_, count);
            }
        }
    }
    if (count_buffer_) {
        if (count_buffer_->released())
            throw std::runtime_error("the count buffer of '" + name() + "' has been released");
        const auto count = static_cast<uint32_t>(rows);
        std::memcpy(count_buffer_->data() + count_offset_, &count, 4);
    }
    rows_ = rows;
}

}  // namespace hypergl

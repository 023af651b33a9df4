// An external source made of strided arrays outside HyperGL (e.g. a physics
// engine's position and rotation arrays): each upload acquires views,
// converts every row into fixed-size records of the destination buffer
// (float64 -> float32 included) and releases the views, all in C++ with no
// per-row Python. The views may come from many owners (e.g. one MuJoCo
// mjData per world), each giving the same-sized arrays: owner o's rows follow
// owner o-1's in the destination. Optionally writes the row count as a u32
// into another buffer (e.g. the instance count of an indirect draw command).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hypergl/formats_generated.hpp"
#include "hypergl/resources.hpp"

namespace hypergl {

// Size in bytes of one scalar.
inline uint32_t scalar_size(ScalarType type) { return kScalarSize[static_cast<uint8_t>(type)]; }

struct FieldCopy {
    uint32_t source;      // index of the view acquire() returns
    ScalarType from;      // element type in the source
    uint32_t stride;      // bytes between rows of the source
    uint32_t offset;      // bytes from a row's start to the field
    uint32_t components;  // scalars per row
    ScalarType to;        // element type in the destination record
    uint32_t at;          // bytes from a record's start to the field
};

struct SourceView {
    const uint8_t *data = nullptr;
    uint64_t size = 0;
};

// The arrays of one upload, owner by owner: owner o's array s is
// views[o * per_owner + s] (one owner: per_owner == views.size()).
struct SourceViews {
    std::vector<SourceView> views;
    uint32_t per_owner = 0;
};

class ConversionSource : public ExternalSource {
  public:
    ConversionSource(std::string name, std::vector<FieldCopy> fields, uint32_t record_size,
                     std::shared_ptr<Buffer> count_buffer, uint32_t count_offset);

    // Copies every row into `destination`; throws std::runtime_error when the
    // arrays disagree on their row count, an owner's arrays differ in size from
    // owner 0's, or the rows exceed its capacity.
    void upload(Buffer &destination) override;
    uint64_t rows_uploaded() const { return rows_; }
    uint32_t record_size() const { return record_size_; }

  protected:
    const std::vector<FieldCopy> &fields() const { return fields_; }
    // Views of the sources, valid until release_views(); may block (e.g. while
    // a physics step runs). Throw std::runtime_error on failure.
    virtual SourceViews acquire() = 0;
    virtual void release_views() noexcept = 0;
    // How errors name array `source` of an owner (an attribute name, say).
    virtual std::string array_label(uint32_t source) const { return "#" + std::to_string(source); }

  private:
    std::vector<FieldCopy> fields_;
    uint32_t record_size_;
    std::shared_ptr<Buffer> count_buffer_;
    uint32_t count_offset_;
    uint64_t rows_ = 0;
};

}  // namespace hypergl

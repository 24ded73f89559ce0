// warpmatch._core — what the binding files share: bytes in (buffer protocol, str as UTF-8),
// NumPy arrays out, the Python exception types. A thin layer: every rule about matching lives
// in the C++ library; this layer converts, releases the GIL around compile and scan, and
// converts back.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::python {

namespace nb = nanobind;

/// A read-only view of one Python argument, held for the duration of a call (the GIL may be
/// released while it lives): anything with the buffer protocol whose items are single bytes
/// and which is C-contiguous (bytes, bytearray, memoryview, mmap, NumPy uint8/int8 arrays)
/// without a copy, or a str as its UTF-8 bytes (the str caches them). Throws TypeError for
/// anything else, naming `what` (GPU arrays: not supported yet, with the reason).
class BytesArg {
 public:
  BytesArg(nb::handle obj, const char* what);
  BytesArg(BytesArg&&) noexcept = default;
  BytesArg& operator=(BytesArg&&) noexcept = default;
  ~BytesArg();

  ByteSpan span() const { return {data_, size_}; }
  std::string str() const { return {reinterpret_cast<const char*>(data_), size_}; }

 private:
  std::unique_ptr<Py_buffer> view_;  // address-stable: released in the destructor
  nb::object keep_;                  // the bytes, or the str whose UTF-8 bytes, data_ points into
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

/// The `text` of a scan: host bytes as BytesArg takes them, or GPU-resident bytes without a
/// host round trip — an object exposing __cuda_array_interface__ (CuPy, Numba, PyTorch CUDA
/// tensors) or DLPack on a CUDA device (__dlpack__ / __dlpack_device__), C-contiguous with
/// single-byte items. Holds what keeps the device memory alive for the call.
class TextArg {
 public:
  TextArg(nb::handle obj, const char* what);

  bool on_device() const { return !host_.has_value(); }
  ByteSpan host() const { return host_->span(); }
  DeviceSpan device() const { return device_; }

 private:
  std::optional<BytesArg> host_;
  DeviceSpan device_{};
  nb::object keep_;  // the array (or the DLPack import) owning the device memory
};

/// True for a str or an object with the buffer protocol (one text, not a sequence of them).
bool is_single_text(nb::handle obj);
/// One text or a sequence of texts → views (`multi` tells which it was).
std::vector<BytesArg> texts_arg(nb::handle obj, const char* what, bool& multi);

/// Loads NumPy's C API (at import; numpy_array needs it).
void init_numpy_api();
/// A new NumPy array of `count` items of `dtype` holding a copy of `data` (count * itemsize
/// bytes), over memory that a capsule, the array's base, frees with it; the GIL must be held.
nb::object numpy_array(nb::handle dtype, const void* data, std::size_t count);
/// numpy_array of the items held in consecutive blocks, copied once: one growing vector of
/// millions of hits would fault in fresh pages at every doubling and copy them again.
nb::object numpy_array(nb::handle dtype, std::span<const std::span<const std::byte>> blocks, std::size_t count);
/// Rows appended one at a time into blocks of kRows (for numpy_array of blocks).
template <class T>
class RowBlocks {
 public:
  static constexpr std::size_t kRows = std::size_t{1} << 15;
  void push_back(const T& row) {
    if (blocks_.empty() || blocks_.back().size() == kRows) blocks_.emplace_back().reserve(kRows);
    blocks_.back().push_back(row);
  }
  const std::vector<std::vector<T>>& blocks() const { return blocks_; }

 private:
  std::vector<std::vector<T>> blocks_;
};
template <class T>
nb::object numpy_array(nb::handle dtype, const std::vector<std::vector<T>>& blocks) {
  std::vector<std::span<const std::byte>> bytes;
  std::size_t count = 0;
  for (const auto& b : blocks) bytes.push_back(std::as_bytes(std::span<const T>(b))), count += b.size();
  return numpy_array(dtype, bytes, count);
}
/// numpy.dtype(spec) for a list of (name, format, offset) fields and an item size.
nb::object struct_dtype(std::initializer_list<std::tuple<const char*, const char*, int>> fields,
                        int itemsize);
/// numpy.dtype(name), e.g. "<u8", made once per name (NumPy's parse of the name was half of
/// `counts` on a short text).
nb::handle plain_dtype(const char* name);
/// `array` viewed as warpmatch.Hits (an ndarray subclass; see _hits.py) with attributes.
nb::object as_hits(nb::object array, nb::object records, nb::object cigars);

/// Backend from "auto" / "cpu" / "cuda" (InvalidArgument otherwise).
Backend backend_arg(const std::string& name);
/// Execution::devices from the `devices` keyword: None -> {} (`device` alone), "all" -> every
/// GPU the runtime lists, or a sequence of ints. InvalidArgument for another string, an empty
/// sequence, a negative ordinal, "all" with backend "cpu" or devices with device != 0;
/// TypeError for other types. Ordinals the runtime does not list and a list with backend
/// "cpu" are the library's InvalidArgument at compile.
std::vector<int> devices_arg(nb::handle devices, const std::string& backend, int device);
/// A non-negative count from an optional Python int: -1 for None; InvalidArgument when negative.
std::int64_t optional_bound(const nb::object& value, const char* name);

void bind_errors(nb::module_& m);
void bind_matchers(nb::module_& m);
void bind_sequences(nb::module_& m);
void bind_records(nb::module_& m);

}  // namespace warpmatch::python

// Bytes in, NumPy out (see binding.hpp).
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>  // nb::cast<std::string>: the same caster as every other file (ODR)

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"

// NumPy's C API, used by this file alone: results are made as arrays directly, not through
// calls of numpy.empty. init_numpy_api() loads its table when the module is imported.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace warpmatch::python {

using namespace nb::literals;

namespace {

// A module attribute looked up once and kept for the life of the process (never released:
// a static nb::object would be released after the interpreter has shut down).
nb::handle cached(const char* module, const char* attr) {
  return nb::object(nb::module_::import_(module).attr(attr)).release();
}

// Whether no object of type t (one with the buffer protocol) can be a GPU array: the type has
// neither GPU attribute
// (warpmatch.Record, mmap.mmap, array.array, ...). Looked up once per type and remembered
// (the GIL guards the list; a type kept is held, so its address is never reused). A type
// with the attributes (CuPy's, PyTorch's, whose instances may be either) is asked per object.
bool host_only_type(PyTypeObject* t) {
  static std::vector<PyTypeObject*> known;
  for (PyTypeObject* k : known)
    if (k == t) return true;
  const nb::handle type(reinterpret_cast<PyObject*>(t));
  if (known.size() >= 64 || nb::hasattr(type, "__cuda_array_interface__") || nb::hasattr(type, "__dlpack_device__"))
    return false;
  Py_INCREF(t);
  known.push_back(t);
  return true;
}

// Host bytes for certain, known without looking for GPU attributes on the object: bytes,
// bytearray, str, memoryview (its buffer was got), NumPy arrays (host memory by
// construction) and buffer-protocol types without them. Each attribute that is missing costs an exception;
// four such lookups per call were most of a 150-byte read's count() (0.82 us against
// bytes.count's 0.32, development machine), and 3/4 of count_many over warpmatch.Records.
bool surely_host_bytes(nb::handle obj) {
  PyObject* o = obj.ptr();
  if (PyBytes_CheckExact(o) || PyByteArray_CheckExact(o) || PyUnicode_Check(o) || PyMemoryView_Check(o)) return true;
  static nb::handle ndarray = cached("numpy", "ndarray");
  return Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(ndarray.ptr()) ||
         (PyObject_CheckBuffer(o) && host_only_type(Py_TYPE(o)));
}

bool is_gpu_array(nb::handle obj) {
  if (nb::hasattr(obj, "__cuda_array_interface__")) return true;
  if (!nb::hasattr(obj, "__dlpack_device__")) return false;
  try {  // DLPack: CUDA (2) or CUDA managed (13) memory; a host array (NumPy: 1) is not one
    const int type = nb::cast<int>(nb::borrow<nb::tuple>(obj.attr("__dlpack_device__")())[0]);
    return type == 2 || type == 13;
  } catch (const nb::python_error&) {
    return !PyObject_CheckBuffer(obj.ptr());
  }
}

}  // namespace

BytesArg::BytesArg(nb::handle obj, const char* what) {
  // bytes is immutable: its storage read directly, without a buffer view (a heap-allocated
  // Py_buffer got and released: most of the per-text cost of find_many over short reads).
  if (PyBytes_CheckExact(obj.ptr())) {
    keep_ = nb::borrow(obj);
    data_ = reinterpret_cast<const std::uint8_t*>(PyBytes_AS_STRING(obj.ptr()));
    size_ = static_cast<std::size_t>(PyBytes_GET_SIZE(obj.ptr()));
    return;
  }
  if (PyUnicode_Check(obj.ptr())) {
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
    if (!p) throw nb::python_error();
    keep_ = nb::borrow(obj);
    data_ = reinterpret_cast<const std::uint8_t*>(p);
    size_ = static_cast<std::size_t>(n);
    return;
  }
  // Before the buffer protocol: CuPy's ndarray has it too, and it raises for device memory.
  if (!surely_host_bytes(obj) && is_gpu_array(obj))
    throw nb::type_error((std::string(what) + ": GPU-resident arrays (" + nb::type_name(obj.type()).c_str() +
                          ") are accepted only as the text of ExactMatcher.count/counts/find and ApproxMatcher.find; "
                          "copy it to host memory here (e.g. cupy.asnumpy(x))")
                             .c_str());
  if (PyObject_CheckBuffer(obj.ptr())) {
    auto view = std::make_unique<Py_buffer>();
    if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      // A strided view (e.g. a[::2]) or an exporter refusing read access.
      nb::python_error e;
      throw nb::type_error((std::string(what) + ": expected a C-contiguous bytes-like object (" +
                            e.what() + ")").c_str());
    }
    if (view->itemsize != 1) {
      const std::string fmt = view->format ? view->format : "?";
      const Py_ssize_t itemsize = view->itemsize;
      PyBuffer_Release(view.get());
      throw nb::type_error((std::string(what) + ": expected single-byte items (bytes, bytearray, "
                            "memoryview, mmap, numpy uint8), got format '" + fmt + "' of " +
                            std::to_string(itemsize) + " bytes per item")
                               .c_str());
    }
    data_ = static_cast<const std::uint8_t*>(view->buf);
    size_ = static_cast<std::size_t>(view->len);
    view_ = std::move(view);
    return;
  }
  const std::string type = nb::type_name(obj.type()).c_str();
  throw nb::type_error((std::string(what) + ": expected str or a bytes-like object (bytes, bytearray, "
                        "memoryview, mmap, numpy uint8 array), got " + type)
                           .c_str());
}

BytesArg::~BytesArg() {
  if (view_) PyBuffer_Release(view_.get());
}

namespace {

// __cuda_array_interface__ (versions 2 and 3): a C-contiguous array of one-byte items.
DeviceSpan cuda_array_interface_span(nb::handle obj, const char* what) {
  const nb::object cai = obj.attr("__cuda_array_interface__");
  const auto fail = [&](const std::string& why) {
    return nb::type_error((std::string(what) + ": __cuda_array_interface__ of " +
                           nb::type_name(obj.type()).c_str() + ": " + why)
                              .c_str());
  };
  if (!nb::isinstance<nb::dict>(cai)) throw fail("not a dict");
  const nb::dict d = nb::borrow<nb::dict>(cai);
  if (!d.contains("shape") || !d.contains("typestr") || !d.contains("data")) throw fail("shape, typestr or data missing");
  const std::string typestr = nb::cast<std::string>(d["typestr"]);
  if (typestr.size() < 3 || typestr.substr(2) != "1" || (typestr[1] != 'u' && typestr[1] != 'i'))
    throw fail("expected single-byte items (typestr |u1 or |i1), got '" + typestr + "'");
  std::uint64_t size = 1;
  for (nb::handle extent : nb::borrow<nb::tuple>(d["shape"])) size *= nb::cast<std::uint64_t>(extent);
  if (d.contains("strides") && !d["strides"].is_none()) {
    // C-contiguous byte arrays may still list their strides: the last must be 1, each other
    // the product of the extents after it.
    const nb::tuple shape = nb::borrow<nb::tuple>(d["shape"]);
    const nb::tuple strides = nb::borrow<nb::tuple>(d["strides"]);
    std::uint64_t expected = 1;
    for (std::size_t i = strides.size(); i-- > 0;) {
      const std::uint64_t extent = nb::cast<std::uint64_t>(shape[i]);
      if (extent > 1 && nb::cast<std::int64_t>(strides[i]) != static_cast<std::int64_t>(expected))
        throw fail("expected a C-contiguous array (strides " + nb::cast<std::string>(nb::str(strides)) + ")");
      expected *= extent;
    }
  }
  const nb::tuple data = nb::borrow<nb::tuple>(d["data"]);
  DeviceSpan span;
  span.data = reinterpret_cast<const std::uint8_t*>(nb::cast<std::uintptr_t>(data[0]));
  span.size = size;
  // Version 3: the stream whose queued work produces the array; the scan waits for it.
  // Absent (version 2): the legacy default stream; None: nothing to wait for.
  if (d.contains("stream") && !d["stream"].is_none()) span.stream = nb::cast<std::uintptr_t>(d["stream"]);
  return span;
}

}  // namespace

TextArg::TextArg(nb::handle obj, const char* what) {
  // A GPU array before the buffer protocol: CuPy's ndarray has both, and its getbuffer raises
  // for device memory (found on the H200 machine, where CuPy is installed).
  if (!surely_host_bytes(obj)) {
    if (nb::hasattr(obj, "__cuda_array_interface__")) {
      device_ = cuda_array_interface_span(obj, what);
      keep_ = nb::borrow(obj);
      return;
    }
    if (nb::hasattr(obj, "__dlpack_device__")) {
      // DLPack on a CUDA device (or CUDA managed memory); its producer makes pending work
      // visible on the legacy default stream (no stream passed to __dlpack__).
      const nb::tuple dev = nb::borrow<nb::tuple>(obj.attr("__dlpack_device__")());
      const int device_type = nb::cast<int>(dev[0]);
      constexpr int kDLCUDA = 2, kDLCUDAManaged = 13;
      if (device_type == kDLCUDA || device_type == kDLCUDAManaged) {
        nb::ndarray<nb::ro, nb::c_contig> array;
        if (!nb::try_cast(obj, array, /*convert=*/false))
          throw nb::type_error((std::string(what) + ": DLPack array of " + nb::type_name(obj.type()).c_str() +
                                " is not C-contiguous")
                                   .c_str());
        if (array.itemsize() != 1)
          throw nb::type_error((std::string(what) + ": expected a DLPack array of single-byte items, got " +
                                std::to_string(array.itemsize()) + " bytes per item")
                                   .c_str());
        device_.data = static_cast<const std::uint8_t*>(array.data());
        device_.size = array.size();
        keep_ = nb::borrow(obj);  // the producer owns the memory; it outlives the call
        return;
      }
    }
  }
  host_.emplace(obj, what);
}

bool is_single_text(nb::handle obj) {
  return PyUnicode_Check(obj.ptr()) || PyObject_CheckBuffer(obj.ptr());
}

std::vector<BytesArg> texts_arg(nb::handle obj, const char* what, bool& multi) {
  std::vector<BytesArg> out;
  multi = !is_single_text(obj);
  if (!multi) {
    out.emplace_back(obj, what);
    return out;
  }
  if (!PySequence_Check(obj.ptr()) && !nb::hasattr(obj, "__iter__"))
    throw nb::type_error((std::string(what) + ": expected str, a bytes-like object or a sequence of them, got " +
                          nb::type_name(obj.type()).c_str())
                             .c_str());
  const Py_ssize_t hint = PyObject_LengthHint(obj.ptr(), 0);
  if (hint < 0) throw nb::python_error();
  out.reserve(static_cast<std::size_t>(hint));
  const auto add = [&](nb::handle item, std::size_t i) {
    // The item's name (for messages) only where a message may need it.
    if (surely_host_bytes(item)) out.emplace_back(item, what);
    else out.emplace_back(item, (std::string(what) + "[" + std::to_string(i) + "]").c_str());
  };
  PyObject* o = obj.ptr();
  if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
    // Lists and tuples by index, without the iterator protocol (a third of count_many's cost
    // per read). The size is read again each time and each item held while it is converted:
    // a buffer export may run Python code that edits the list.
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
      const nb::object item = nb::borrow(PySequence_Fast_GET_ITEM(o, i));
      add(item, static_cast<std::size_t>(i));
    }
    return out;
  }
  std::size_t i = 0;
  for (nb::handle item : obj) add(item, i++);
  return out;
}

nb::handle plain_dtype(const char* name) {
  static nb::handle dtype_fn = cached("numpy", "dtype");
  // A handful of names, each kept for the process's life; read and filled with the GIL held.
  static std::vector<std::pair<std::string, nb::handle>> made;
  for (const auto& [n, d] : made)
    if (n == name) return d;
  made.emplace_back(name, dtype_fn(name).release());
  return made.back().second;
}

nb::object struct_dtype(std::initializer_list<std::tuple<const char*, const char*, int>> fields, int itemsize) {
  static nb::handle dtype_fn = cached("numpy", "dtype");
  nb::list names, formats, offsets;
  for (const auto& [name, format, offset] : fields) {
    names.append(nb::str(name));
    formats.append(nb::str(format));
    offsets.append(nb::int_(offset));
  }
  nb::dict spec;
  spec["names"] = names;
  spec["formats"] = formats;
  spec["offsets"] = offsets;
  spec["itemsize"] = nb::int_(itemsize);
  return dtype_fn(spec);
}

namespace {

// An uninitialised array of `count` items of `dtype` over memory of our own, owned by a capsule
// set as the array's base. np.empty of a structured dtype looked, in every call, for fields
// that hold Python objects to zero (a PyArg_ParseTuple per field): 0.4-0.65 us of a find() on
// a 150-byte read whose scan takes 0.2-1.
nb::object new_array(nb::handle dtype, std::size_t count, void** data) {
  auto* descr = reinterpret_cast<PyArray_Descr*>(dtype.ptr());
  const std::size_t bytes = count * static_cast<std::size_t>(PyDataType_ELSIZE(descr));
  void* memory = std::malloc(std::max<std::size_t>(bytes, 1));
  if (!memory) throw std::bad_alloc();
  PyObject* owner = PyCapsule_New(memory, nullptr, [](PyObject* capsule) { std::free(PyCapsule_GetPointer(capsule, nullptr)); });
  if (!owner) {
    std::free(memory);
    throw nb::python_error();
  }
  npy_intp dims[1] = {static_cast<npy_intp>(count)};
  Py_INCREF(descr);  // PyArray_NewFromDescr steals a reference
  PyObject* array = PyArray_NewFromDescr(&PyArray_Type, descr, 1, dims, nullptr, memory, NPY_ARRAY_CARRAY, nullptr);
  if (!array) {
    Py_DECREF(owner);
    throw nb::python_error();
  }
  // Steals `owner`, also when it fails.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), owner) != 0) {
    Py_DECREF(array);
    throw nb::python_error();
  }
  *data = memory;
  return nb::steal(array);
}

}  // namespace

void init_numpy_api() {
  if (_import_array() < 0) throw nb::python_error();
}

nb::object numpy_array(nb::handle dtype, const void* data, std::size_t count) {
  const std::size_t bytes = count * static_cast<std::size_t>(PyDataType_ELSIZE(reinterpret_cast<PyArray_Descr*>(dtype.ptr())));
  const std::span<const std::byte> one(static_cast<const std::byte*>(data), bytes);
  return numpy_array(dtype, std::span<const std::span<const std::byte>>(&one, 1), count);
}

nb::object numpy_array(nb::handle dtype, std::span<const std::span<const std::byte>> blocks, std::size_t count) {
  void* memory = nullptr;
  nb::object array = new_array(dtype, count, &memory);
  auto* out = static_cast<std::byte*>(memory);
  for (const auto& b : blocks) {
    std::memcpy(out, b.data(), b.size());
    out += b.size();
  }
  return array;
}

nb::object as_hits(nb::object array, nb::object records, nb::object cigars) {
  static nb::handle hits_type = cached("warpmatch._hits", "Hits");
  nb::object hits = array.attr("view")(hits_type);
  hits.attr("records") = records;
  hits.attr("cigars") = cigars;
  return hits;
}

Backend backend_arg(const std::string& name) { return parse_backend(name); }

std::vector<int> devices_arg(nb::handle devices, const std::string& backend, int device) {
  if (devices.is_none()) return {};
  const bool cpu = backend_arg(backend) == Backend::cpu;
  if (device != 0)
    throw InvalidArgument("devices and device = " + std::to_string(device) +
                          " were both given: devices lists every GPU of the call (device is for one GPU)");
  if (PyUnicode_Check(devices.ptr())) {
    if (nb::cast<std::string>(devices) != "all")
      throw InvalidArgument("devices = '" + nb::cast<std::string>(devices) +
                            "': expected None, 'all' or a sequence of GPU ordinals");
    if (cpu)
      throw InvalidArgument("devices = 'all' was given with backend 'cpu', which runs on CPU threads instead "
                            "(use threads=, or backend 'auto' or 'cuda')");
    // Every GPU the runtime lists; none on a machine without one, where 'auto' then runs on
    // the CPU and 'cuda' reports BackendUnavailable as without devices.
    std::vector<int> all;
    for (const DeviceInfo& d : cuda_devices()) all.push_back(d.ordinal);
    return all;
  }
  if (!PySequence_Check(devices.ptr()) || PyBytes_Check(devices.ptr()) || PyByteArray_Check(devices.ptr()))
    throw nb::type_error((std::string("devices: expected None, 'all' or a sequence of GPU ordinals, got ") +
                          nb::type_name(devices.type()).c_str()).c_str());
  std::vector<int> out;
  for (nb::handle item : nb::borrow<nb::sequence>(devices)) {
    if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr()))
      throw nb::type_error((std::string("devices: GPU ordinals are ints, got ") + nb::type_name(item.type()).c_str())
                               .c_str());
    const long v = PyLong_AsLong(item.ptr());
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    if (v < 0 || v > 0x7fffffff) throw InvalidArgument("devices: GPU ordinal " + std::to_string(v) + " is out of range");
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw InvalidArgument("devices: an empty sequence (None runs on `device` alone)");
  // The library rejects a list with the cpu backend and ordinals the runtime does not list.
  return out;
}

std::int64_t optional_bound(const nb::object& value, const char* name) {
  if (value.is_none()) return -1;
  if (!PyIndex_Check(value.ptr()) || PyBool_Check(value.ptr()))
    throw nb::type_error((std::string(name) + ": expected an int or None, got " +
                          nb::type_name(value.type()).c_str()).c_str());
  const long long v = PyLong_AsLongLong(nb::object(nb::steal(PyNumber_Index(value.ptr()))).ptr());
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  if (v < 0)
    throw InvalidArgument(std::string(name) + " = " + std::to_string(v) +
                          ": must be >= 0 (None for no bound)");
  return v;
}

}  // namespace warpmatch::python

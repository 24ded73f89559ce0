// warpmatch.open(): a file's records through the library's input layer (io::Input: plain files
// mapped, gzip/BGZF/zstd decompressed, FASTA/FASTQ parsed). Each Record exports its bytes
// through the buffer protocol, read-only and without a copy, and keeps the input alive.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "binding.hpp"
#include "io/byte_source.hpp"
#include "io/decompress.hpp"
#include "io/input.hpp"

namespace warpmatch::python {

using namespace nb::literals;

namespace {

struct PyRecord {
  std::shared_ptr<const io::Input> input;
  std::size_t index = 0;
  const io::Record& record() const { return input->records()[index]; }
};

int record_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  const PyRecord* r = nb::inst_ptr<PyRecord>(self);
  const ByteSpan s = r->record().sequence;
  // Read-only: a request for a writable buffer fails with BufferError.
  return PyBuffer_FillInfo(view, self, const_cast<std::uint8_t*>(s.data()), static_cast<Py_ssize_t>(s.size()), 1,
                           flags);
}

PyType_Slot record_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(record_getbuffer)}, {0, nullptr}};

struct PyInput {
  std::shared_ptr<const io::Input> input;
  std::size_t size() const { return input->records().size(); }
  PyRecord at(std::int64_t i) const {
    const auto n = static_cast<std::int64_t>(size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw nb::index_error("record index out of range");
    return PyRecord{input, static_cast<std::size_t>(i)};
  }
};

PyInput open_py(nb::handle path_obj, const std::string& format) {
  nb::object p = nb::steal(PyOS_FSPath(path_obj.ptr()));
  if (!p.is_valid()) throw nb::python_error();
  if (!PyUnicode_Check(p.ptr())) throw nb::type_error("open: a bytes path is not supported; pass str");
  const std::string path = nb::cast<std::string>(p);
  const io::Format f = io::parse_format(format);
  nb::gil_scoped_release release;
  return PyInput{std::make_shared<const io::Input>(io::Input::open(path, f))};
}

// warpmatch.dask's planning and tasks: a zstd file's frames from its headers, and the
// decompression of a run of whole frames (or gzip members) with the library's decoders.
nb::list zstd_frames_py(nb::handle data_obj, std::size_t max_frames) {
  const BytesArg data(data_obj, "data");
  std::vector<io::ZstdFrame> frames;
  {
    nb::gil_scoped_release release;
    frames = io::zstd_frames("(zstd data)", data.span(), max_frames);
  }
  nb::list out;
  for (const auto& f : frames)
    out.append(nb::make_tuple(f.offset, f.compressed_size,
                              f.content_size == io::ZstdFrame::kUnknownSize ? nb::none() : nb::cast(f.content_size),
                              f.skippable));
  return out;
}

nb::bytes decompress_py(nb::handle data_obj, int threads) {
  const BytesArg data(data_obj, "data");
  std::string out;
  {
    nb::gil_scoped_release release;
    const io::Compression kind = io::detect_compression(data.span());
    if (kind == io::Compression::none) throw InvalidArgument("decompress: the data is neither gzip nor zstd");
    auto source = io::decompressing_source("(compressed data)", kind, std::make_unique<io::MemorySource>(data.span()),
                                           threads);
    std::size_t size = 0;
    while (true) {
      if (out.size() - size < (std::size_t{1} << 20)) out.resize(std::max<std::size_t>(out.size() * 2, size + (1 << 20)));
      const std::size_t n = source->read(reinterpret_cast<std::uint8_t*>(out.data()) + size, out.size() - size);
      if (n == 0) break;
      size += n;
    }
    out.resize(size);
  }
  return nb::bytes(out.data(), out.size());
}

}  // namespace

void bind_records(nb::module_& m) {
  nb::class_<PyRecord>(m, "Record", nb::type_slots(record_slots),
                       "One record of an opened input (the whole file for plain text, one sequence for\n"
                       "FASTA/FASTQ, line breaks removed). Supports the buffer protocol (read-only, no copy):\n"
                       "pass it to any warpmatch function, memoryview(record), bytes(record), or\n"
                       "numpy.frombuffer(record, numpy.uint8). It keeps its input open.")
      .def_prop_ro("name", [](const PyRecord& r) { return r.record().name; },
                   "FASTA/FASTQ: the header's first word; plain: ''.")
      .def_prop_ro("index", [](const PyRecord& r) { return r.index; })
      .def("__len__", [](const PyRecord& r) { return r.record().sequence.size(); })
      .def("__repr__", [](const PyRecord& r) {
        return "warpmatch.Record(name='" + r.record().name + "', index=" + std::to_string(r.index) +
               ", length=" + std::to_string(r.record().sequence.size()) + ")";
      });

  nb::class_<PyInput>(m, "Input",
                      "The records of an input opened by warpmatch.open(): a sequence of Record objects.")
      .def_prop_ro("name", [](const PyInput& x) { return x.input->name(); })
      .def_prop_ro("format", [](const PyInput& x) { return std::string(io::format_name(x.input->format())); },
                   "'plain', 'fasta' or 'fastq' (resolved).")
      .def_prop_ro("compressed", [](const PyInput& x) { return x.input->was_gzip(); },
                   "Whether it was decompressed (gzip, BGZF or zstd).")
      .def_prop_ro("records", [](const PyInput& x) {
        nb::list out;
        for (std::size_t i = 0; i < x.size(); ++i) out.append(nb::cast(PyRecord{x.input, i}));
        return out;
      })
      .def("__len__", &PyInput::size)
      .def("__getitem__", &PyInput::at)
      .def("__iter__", [](nb::handle self) { return nb::iter(self.attr("records")); })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](nb::handle, nb::args) { return false; })
      .def("__repr__", [](const PyInput& x) {
        return "warpmatch.Input(name='" + x.input->name() + "', format='" +
               std::string(io::format_name(x.input->format())) + "', records=" + std::to_string(x.size()) + ")";
      });

  m.def("_zstd_frames", &zstd_frames_py, "data"_a, "max_frames"_a = 0,
        "Internal (warpmatch.dask): the zstd frames of data from its first byte, as (offset,\n"
        "compressed_size, content_size or None when the header omits it, skippable) tuples.");
  m.def("_decompress", &decompress_py, "data"_a, "threads"_a = 1,
        "Internal (warpmatch.dask): gzip, BGZF or zstd data decompressed whole by the input layer.");
  m.def("open", &open_py, "path"_a, "format"_a = "auto",
        "Opens a file (path '-' is standard input) through warpmatch's input layer and returns its\n"
        "records: plain text is one record (a regular file is memory-mapped, not read), FASTA and\n"
        "FASTQ one record per sequence with line breaks removed; gzip, BGZF and zstd are detected\n"
        "by content. format: 'auto', 'plain', 'fasta' or 'fastq'. Raises InputError (an OSError)\n"
        "naming the path for missing, unreadable or malformed input.\n\n"
        ">>> for rec in warpmatch.open('reads.fa.gz'):          # doctest: +SKIP\n"
        "...     print(rec.name, m.count(rec))");
}

}  // namespace warpmatch::python

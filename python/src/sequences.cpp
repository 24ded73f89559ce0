// Whole-sequence operations: edit_distance, edit_distances (pairs or their cross product) and
// lcs (longest common substring, or maximal exact matches).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>

#include "auto_backend.hpp"
#include "binding.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/lcs.hpp"

namespace warpmatch::python {

using namespace nb::literals;

namespace {

struct PyDistance {
  std::optional<std::int64_t> distance;  // None: over k
  std::optional<std::string> cigar;      // None: not asked for, or over k
};

struct PyLcs {
  std::uint64_t length = 0, count = 0, total_pairs = 0;
  nb::object positions;
  std::string backend;
};

struct PyMems {
  std::uint64_t total = 0;
  nb::object mems;
  std::string backend;
};

DistanceOptions distance_options(const nb::object& k, bool align, const std::string& backend, int threads,
                                 int device) {
  DistanceOptions o;
  o.max_distance = optional_bound(k, "k");
  o.report = align ? Report::cigar : Report::ends;
  o.backend = backend_arg(backend);
  o.threads = threads;
  o.device = device;
  return o;
}

// backend "auto" (no device list, a GPU present): the cost model's choice for `cells` DP
// cells, as the command line's `distance` makes it (auto_backend.hpp).
void choose_distance_backend(DistanceOptions& o, const std::string& backend, double cells) {
  if (!chooses_per_call(backend, o.devices)) return;
  JobShape job;
  job.operation = Operation::distance;
  job.cells = static_cast<std::uint64_t>(cells);
  job.threads = o.threads;
  o.backend = choose_per_call(job);
}

// After a call: a GPU run means CUDA now runs in the process.
void note_backend(Backend ran) {
  if (ran == Backend::cuda) note_cuda_running();
}

PyDistance edit_distance_py(nb::handle a, nb::handle b, nb::object k, bool align, const std::string& backend,
                            int threads, int device) {
  const BytesArg x(a, "a"), y(b, "b");
  DistanceOptions o = distance_options(k, align, backend, threads, device);
  choose_distance_backend(o, backend, double(x.span().size()) * double(y.span().size()));
  DistanceResult r;
  {
    nb::gil_scoped_release release;
    r = edit_distance(x.span(), y.span(), o);
  }
  note_backend(o.backend);
  PyDistance out;
  if (!r.over_k()) {
    out.distance = r.distance;
    if (align) out.cigar = r.cigar;
  }
  return out;
}

nb::object edit_distances_py(nb::handle seqs_a, nb::handle seqs_b, nb::object k, bool cross,
                             const std::string& backend, int threads, int device, nb::handle devices) {
  bool multi_a = false, multi_b = false;
  const std::vector<BytesArg> a = texts_arg(seqs_a, "seqs_a", multi_a);
  const std::vector<BytesArg> b = texts_arg(seqs_b, "seqs_b", multi_b);
  if (!multi_a || !multi_b)
    throw nb::type_error("edit_distances: seqs_a and seqs_b must be sequences of texts (use edit_distance for one pair)");
  if (!cross && a.size() != b.size())
    throw InvalidArgument("edit_distances: " + std::to_string(a.size()) + " sequences in seqs_a but " +
                          std::to_string(b.size()) + " in seqs_b (pairs need equal lengths; cross=True pairs every a with every b)");
  DistanceOptions o = distance_options(k, false, backend, threads, device);
  o.devices = devices_arg(devices, backend, device);
  if (cross) {
    // The library's matrix: on CUDA each string is uploaded once and the pairs are formed on
    // the device, instead of |a| x |b| pairs crossing the bus.
    std::vector<ByteSpan> sa, sb;
    sa.reserve(a.size());
    sb.reserve(b.size());
    double bytes_a = 0, bytes_b = 0;
    for (const auto& x : a) sa.push_back(x.span()), bytes_a += double(x.span().size());
    for (const auto& y : b) sb.push_back(y.span()), bytes_b += double(y.span().size());
    choose_distance_backend(o, backend, bytes_a * bytes_b);
    std::vector<std::int64_t> d;
    {
      nb::gil_scoped_release release;
      d = edit_distance_matrix(sa, sb, o);
    }
    note_backend(o.backend);
    return numpy_array(plain_dtype("<i8"), d.data(), d.size()).attr("reshape")(nb::make_tuple(a.size(), b.size()));
  }
  std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
  pairs.reserve(a.size());
  double cells = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    pairs.emplace_back(a[i].span(), b[i].span());
    cells += double(a[i].span().size()) * double(b[i].span().size());
  }
  choose_distance_backend(o, backend, cells);
  std::vector<std::int64_t> d;
  {
    nb::gil_scoped_release release;
    d = edit_distances(pairs, o);
  }
  note_backend(o.backend);
  return numpy_array(plain_dtype("<i8"), d.data(), d.size());
}

nb::object lcs_py(nb::handle a, nb::handle b, nb::object min_length, std::uint64_t max_matches,
                  const std::string& backend, int threads, int device) {
  const BytesArg x(a, "a"), y(b, "b");
  LcsOptions o;
  o.backend = backend_arg(backend);
  o.threads = threads;
  o.device = device;
  o.max_matches = max_matches;
  const std::int64_t min_len = optional_bound(min_length, "min_length");
  if (min_len < 0) {
    LcsResult r;
    {
      nb::gil_scoped_release release;
      r = longest_common_substring(x.span(), y.span(), o);
    }
    static nb::handle dtype = struct_dtype({{"a", "<u8", 0}, {"b", "<u8", 8}}, 16).release();
    static_assert(sizeof(LcsPair) == 16);
    return nb::cast(PyLcs{r.length, r.count, r.total_pairs, numpy_array(dtype, r.pairs.data(), r.pairs.size()),
                          std::string(backend_name(r.stats.backend))});
  }
  MemResult r;
  {
    nb::gil_scoped_release release;
    r = maximal_exact_matches(x.span(), y.span(), static_cast<std::uint64_t>(min_len), o);
  }
  static nb::handle dtype = struct_dtype({{"a", "<u8", 0}, {"b", "<u8", 8}, {"length", "<u8", 16}}, 24).release();
  static_assert(sizeof(Mem) == 24);
  return nb::cast(PyMems{r.total, numpy_array(dtype, r.mems.data(), r.mems.size()),
                         std::string(backend_name(r.stats.backend))});
}

}  // namespace

void bind_sequences(nb::module_& m) {
  nb::class_<PyDistance>(m, "EditDistance", "The result of edit_distance().")
      .def_ro("distance", &PyDistance::distance, "The Levenshtein distance; None when it exceeds k.")
      .def_ro("cigar", &PyDistance::cigar,
              "With align=True (and within k): run-length pairs over '=XID' turning a into b ('=' keep,\n"
              "'X' replace, 'I' a byte of a absent from b, 'D' a byte of b absent from a: SAM's convention, a the query); else None.")
      .def("__eq__", [](const PyDistance& x, const PyDistance& y) { return x.distance == y.distance && x.cigar == y.cigar; })
      .def("__repr__", [](const PyDistance& x) {
        return "EditDistance(distance=" + (x.distance ? std::to_string(*x.distance) : std::string("None")) +
               ", cigar=" + (x.cigar ? "'" + *x.cigar + "'" : std::string("None")) + ")";
      });

  nb::class_<PyLcs>(m, "LcsResult", "The result of lcs() without min_length.")
      .def_ro("length", &PyLcs::length, "L, the longest common substring's length (0 if none).")
      .def_ro("count", &PyLcs::count, "Distinct common substrings of length L (exact).")
      .def_ro("total_pairs", &PyLcs::total_pairs, "All occurrence pairs (a, b) of them (exact).")
      .def_ro("positions", &PyLcs::positions,
              "The first max_matches pairs in (a, b) order: a structured array with fields a, b (u8),\n"
              "a[a:a+L] == b[b:b+L].")
      .def_ro("backend", &PyLcs::backend)
      .def("__repr__", [](const PyLcs& r) {
        return "LcsResult(length=" + std::to_string(r.length) + ", count=" + std::to_string(r.count) +
               ", total_pairs=" + std::to_string(r.total_pairs) + ")";
      });

  nb::class_<PyMems>(m, "MemResult", "The result of lcs() with min_length: maximal exact matches.")
      .def_ro("total", &PyMems::total, "All MEMs of length >= min_length (exact).")
      .def_ro("mems", &PyMems::mems,
              "The first max_matches MEMs in (a, b) order: a structured array with fields a, b, length (u8).")
      .def_ro("backend", &PyMems::backend)
      .def("__repr__", [](const PyMems& r) { return "MemResult(total=" + std::to_string(r.total) + ")"; });

  m.def("edit_distance", &edit_distance_py, "a"_a, "b"_a, "k"_a = nb::none(), "align"_a = false,
        "backend"_a = "auto", "threads"_a = 0, "device"_a = 0,
        "Global edit (Levenshtein) distance of a and b (str as UTF-8 or bytes-like), with an\n"
        "optional bound k (distance None beyond it, found faster) and an optimal alignment.\n\n"
        ">>> warpmatch.edit_distance('kitten', 'sitting', align=True)\n"
        "EditDistance(distance=3, cigar='1X3=1X1=1D')\n"
        ">>> warpmatch.edit_distance('kitten', 'sitting', k=2).distance is None\nTrue");
  m.def("edit_distances", &edit_distances_py, "seqs_a"_a, "seqs_b"_a, "k"_a = nb::none(), "cross"_a = false,
        "backend"_a = "auto", "threads"_a = 0, "device"_a = 0, "devices"_a.none() = nb::none(),
        "Edit distances of many pairs at once (all threads, or the GPU), as an int64 array:\n"
        "distance(seqs_a[i], seqs_b[i]) for equal-length sequences, or with cross=True the\n"
        "len(seqs_a) x len(seqs_b) matrix of every a against every b. -1 where a distance exceeds k.\n"
        "devices: None (device alone), 'all' or a sequence of GPU ordinals: the pairs (or the\n"
        "matrix's rows) are split over those GPUs, results identical to one GPU's (see\n"
        "ExactMatcher for the rules; with backend 'cpu' an InvalidArgument).\n\n"
        ">>> warpmatch.edit_distances(['abc', 'kitten'], ['abd', 'sitting']).tolist()\n[1, 3]\n"
        ">>> warpmatch.edit_distances(['a', 'ab'], ['b', 'ab', 'abc'], cross=True).tolist()\n"
        "[[1, 1, 2], [1, 0, 1]]");
  m.def("lcs", &lcs_py, "a"_a, "b"_a, "min_length"_a = nb::none(), "max_matches"_a = 1000, "backend"_a = "auto",
        "threads"_a = 0, "device"_a = 0,
        "Longest common substring of a and b (an LcsResult: length, count, total_pairs,\n"
        "positions), or with min_length every maximal exact match of at least that length (a\n"
        "MemResult: total, mems). At most max_matches positions are returned; counts stay exact.\n\n"
        ">>> r = warpmatch.lcs('xabcy', 'abcab')\n>>> r.length, r.positions.tolist()\n(3, [(1, 0)])\n"
        ">>> warpmatch.lcs('xabcy', 'abcab', min_length=2).mems.tolist()\n[(1, 0, 3), (1, 3, 2)]");
}

}  // namespace warpmatch::python

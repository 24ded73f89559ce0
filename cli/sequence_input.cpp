#include "sequence_input.hpp"

namespace warpmatch::cli {

SequenceInput load_sequence(const std::string& arg, bool literal,
                            const std::optional<std::string>& record) {
  if (literal) {
    io::Input in = io::Input::from_bytes("literal", std::vector<std::uint8_t>(arg.begin(), arg.end()),
                                         io::Format::plain);
    const ByteSpan seq = in.records().front().sequence;
    return {std::move(in), seq, "literal"};
  }
  io::Input in = io::Input::open(arg);
  const auto& records = in.records();
  if (records.empty()) throw io::InputError(in.name() + ": no sequence records");
  const io::Record* chosen = &records.front();
  if (record) {
    chosen = nullptr;
    for (const auto& r : records)
      if (r.name == *record) {
        chosen = &r;
        break;
      }
    if (!chosen) throw io::InputError(in.name() + ": no record named '" + *record + "'");
  }
  const ByteSpan seq = chosen->sequence;
  std::string name = in.format() == io::Format::plain ? in.name() : chosen->name;
  return {std::move(in), seq, std::move(name)};
}

}  // namespace warpmatch::cli

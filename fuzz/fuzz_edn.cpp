// The EDN reader on any bytes: forms or a positioned error, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/edn_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<datalog::edn::Node> forms;
  (void)datalog::edn::read_forms(text, &forms);
  return 0;
}

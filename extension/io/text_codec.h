// extension/io/text_codec.h: the small text conversions the readers and writers share: numbers
// read exactly (the whole text or nothing), hex bytes, a code point as UTF-8.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace datalog::ext::io {

// The whole of text as a number (a leading '+' allowed); false when any of it is not.
template <typename Number>
bool parse_number(std::string_view text, Number* out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

std::string hex_encode(std::string_view bytes);            // lowercase
std::optional<std::string> hex_decode(std::string_view hex);  // either case
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace datalog::ext::io

#include "engine/uuid_text.h"

namespace datalog {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_dash_position(std::size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

}  // namespace

std::optional<Uuid> parse_uuid(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid uuid;
  std::size_t out = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (is_dash_position(i)) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    const int hi = hex_digit(text[i]);
    const int lo = hex_digit(text[i + 1]);
    if (hi < 0 || lo < 0 || is_dash_position(i + 1)) return std::nullopt;
    uuid.bytes[out++] = static_cast<std::uint8_t>(hi * 16 + lo);
    i += 2;
  }
  return uuid;
}

std::string format_uuid(const Uuid& uuid) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  for (std::size_t i = 0; i < uuid.bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kHex[uuid.bytes[i] >> 4];
    text += kHex[uuid.bytes[i] & 0xF];
  }
  return text;
}

}  // namespace datalog

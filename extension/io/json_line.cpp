#include "extension/io/json_line.h"

#include <fmt/format.h>

#include "engine/eval/json_text.h"
#include "extension/io/text_codec.h"

namespace datalog::ext::io {

namespace {

class JsonParser {
 public:
  JsonParser(std::string_view s, std::string* error) : s_(s), error_(error) {}

  bool document(Json* out) {
    if (!value(out, 0)) return false;
    space();
    if (i_ != s_.size()) return fail("text after the JSON value");
    return true;
  }

 private:
  bool fail(std::string_view message) {
    *error_ = fmt::format("{} (column {})", message, i_ + 1);
    return false;
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool value(Json* out, int depth) {
    if (depth > kMaxJsonDepth) return fail("JSON nested too deep");
    space();
    if (i_ >= s_.size()) return fail("expected a JSON value");
    const char c = s_[i_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out->kind = Json::Kind::String;
      return string(&out->text);
    }
    if (literal("true")) { out->kind = Json::Kind::Boolean; out->boolean = true; return true; }
    if (literal("false")) { out->kind = Json::Kind::Boolean; out->boolean = false; return true; }
    if (literal("null")) { out->kind = Json::Kind::Null; return true; }
    if (c == '-' || (c >= '0' && c <= '9')) return number(out);
    return fail(fmt::format("unexpected character '{}'", c));
  }

  bool number(Json* out) {
    const std::size_t start = i_;
    if (s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-')) {
      ++i_;
    }
    out->kind = Json::Kind::Number;
    out->text = std::string(s_.substr(start, i_ - start));
    return true;
  }

  bool hex4(std::uint32_t* out) {
    if (s_.size() - i_ < 4) return fail("truncated \\u escape");
    *out = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      *out <<= 4;
      if (h >= '0' && h <= '9') *out |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') *out |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') *out |= static_cast<std::uint32_t>(h - 'A' + 10);
      else return fail("bad \\u escape");
    }
    return true;
  }

  bool string(std::string* out) {
    ++i_;  // '"'
    for (;;) {
      if (i_ >= s_.size()) return fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (i_ >= s_.size()) return fail("unterminated string");
      const char e = s_[i_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a surrogate pair
            std::uint32_t low = 0;
            if (s_.substr(i_, 2) != "\\u") return fail("lone surrogate in \\u escape");
            i_ += 2;
            if (!hex4(&low) || low < 0xDC00 || low > 0xDFFF) return fail("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("lone surrogate in \\u escape");
          }
          append_utf8(*out, cp);
          break;
        }
        default: return fail(fmt::format("bad escape '\\{}'", e));
      }
    }
  }

  bool array(Json* out, int depth) {
    out->kind = Json::Kind::Array;
    ++i_;
    space();
    if (i_ < s_.size() && s_[i_] == ']') { ++i_; return true; }
    for (;;) {
      out->items.emplace_back();
      if (!value(&out->items.back(), depth + 1)) return false;
      space();
      if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
      if (i_ < s_.size() && s_[i_] == ']') { ++i_; return true; }
      return fail("expected ',' or ']' in an array");
    }
  }

  bool object(Json* out, int depth) {
    out->kind = Json::Kind::Object;
    ++i_;
    space();
    if (i_ < s_.size() && s_[i_] == '}') { ++i_; return true; }
    for (;;) {
      space();
      if (i_ >= s_.size() || s_[i_] != '"') return fail("expected a string key in an object");
      std::string key;
      if (!string(&key)) return false;
      space();
      if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':' after an object key");
      ++i_;
      out->members.push_back(JsonMember{std::move(key), Json{}});
      if (!value(&out->members.back().value, depth + 1)) return false;
      space();
      if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
      if (i_ < s_.size() && s_[i_] == '}') { ++i_; return true; }
      return fail("expected ',' or '}' in an object");
    }
  }

  std::string_view s_;
  std::string* error_;
  std::size_t i_ = 0;
};

}  // namespace

bool parse_json(std::string_view text, Json* out, std::string* error) {
  *out = Json{};
  return JsonParser(text, error).document(out);
}

std::string json_string(std::string_view s) {
  std::string out;
  eval::append_json_string(out, s);
  return out;
}

}  // namespace datalog::ext::io

// extension/text_cache.h: what one connection parsed, kept per distinct text.
//
// datalog_q's queries (parsed_queries.h) and datalog_exec's scripts (parsed_scripts.h) are
// parsed once per text: an application that steps one prepared statement in a loop sends the
// same text again and again. Parsing depends on the text alone, so a parse is as good the next
// time. The cache keeps texts of up to max_text_bytes (a bulk load's text is read once and
// dropped), at most max_total_bytes of text and max_entries texts in all, and starts over when
// full: a parse takes more memory than its text, and the bound on text bounds that too. Entries
// are shared, so a caller keeps its parse while a later call starts the cache over. Lookups go
// by the argument's bytes as they are (a transparent hash): a hit copies nothing.
// Thread safety: none; one connection's calls come one at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace datalog::ext {

struct TextCacheBounds {
  std::size_t max_text_bytes;
  std::size_t max_total_bytes;
  std::size_t max_entries;
};

template <typename Parsed>
class TextCache {
 public:
  explicit TextCache(TextCacheBounds bounds) : bounds_(bounds) {}

  // The parse kept for text, or null.
  std::shared_ptr<const Parsed> find(std::string_view text) const {
    const auto it = entries_.find(text);
    return it == entries_.end() ? nullptr : it->second;
  }

  // Keeps parsed for text when text is small enough; makes room by starting over.
  void keep(std::string_view text, std::shared_ptr<const Parsed> parsed) {
    if (text.size() > bounds_.max_text_bytes) return;
    if (total_bytes_ + text.size() > bounds_.max_total_bytes || entries_.size() >= bounds_.max_entries) {
      entries_.clear();
      total_bytes_ = 0;
    }
    if (entries_.emplace(text, std::move(parsed)).second) total_bytes_ += text.size();
  }

 private:
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };

  TextCacheBounds bounds_;
  std::unordered_map<std::string, std::shared_ptr<const Parsed>, TextHash, std::equal_to<>> entries_;
  std::size_t total_bytes_ = 0;
};

}  // namespace datalog::ext

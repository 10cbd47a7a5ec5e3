#include "extension/parsed_scripts.h"

#include "engine/parser.h"

namespace datalog::ext {

Status ParsedScripts::get(std::string_view text, const std::function<bool()>& interrupted,
                          std::shared_ptr<const Commands>* out) {
  if (auto it = entries_.find(text); it != entries_.end()) {
    *out = it->second;
    return Status::OK();
  }
  auto commands = std::make_shared<Commands>();
  DATALOG_RETURN_IF_ERROR(parse_script(text, commands.get(), interrupted));
  if (text.size() <= kMaxTextBytes) {
    if (total_bytes_ + text.size() > kMaxTotalBytes) {
      entries_.clear();
      total_bytes_ = 0;
    }
    entries_.emplace(text, commands);
    total_bytes_ += text.size();
  }
  *out = std::move(commands);
  return Status::OK();
}

}  // namespace datalog::ext

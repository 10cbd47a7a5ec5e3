#include "extension/parsed_scripts.h"

#include "engine/parser.h"

namespace datalog::ext {

Status ParsedScripts::get(std::string_view text, const std::function<bool()>& interrupted,
                          std::shared_ptr<const Commands>* out) {
  if ((*out = cache_.find(text))) return Status::OK();
  auto commands = std::make_shared<Commands>();
  DATALOG_RETURN_IF_ERROR(parse_script(text, commands.get(), interrupted));
  cache_.keep(text, commands);
  *out = std::move(commands);
  return Status::OK();
}

}  // namespace datalog::ext

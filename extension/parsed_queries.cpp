#include "extension/parsed_queries.h"

#include "engine/analyzer.h"
#include "engine/script_runner.h"
#include "extension/query_arguments.h"

namespace datalog::ext {

Status ParsedQueries::get(std::string_view text, std::shared_ptr<const ParsedQuery>* out) {
  auto it = entries_.find(text);
  if (it != entries_.end()) {
    *out = it->second;
    return Status::OK();
  }
  auto parsed = std::make_shared<ParsedQuery>();
  DATALOG_RETURN_IF_ERROR(parse_query(text, &parsed->query));
  DATALOG_RETURN_IF_ERROR(check_query(parsed->query));
  parsed->slots = query_slots(parsed->query);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_.emplace(text, parsed);
  *out = std::move(parsed);
  return Status::OK();
}

}  // namespace datalog::ext

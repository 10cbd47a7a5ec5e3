#include "extension/parsed_queries.h"

#include "engine/analyzer.h"
#include "engine/script_runner.h"
#include "extension/query_arguments.h"

namespace datalog::ext {

Status ParsedQueries::get(std::string_view text, std::shared_ptr<const ParsedQuery>* out) {
  if ((*out = cache_.find(text))) return Status::OK();
  auto parsed = std::make_shared<ParsedQuery>();
  DATALOG_RETURN_IF_ERROR(parse_query(text, &parsed->query));
  DATALOG_RETURN_IF_ERROR(check_query(parsed->query));
  parsed->slots = query_slots(parsed->query);
  cache_.keep(text, parsed);
  *out = std::move(parsed);
  return Status::OK();
}

}  // namespace datalog::ext

#include "engine/parse_error.h"

#include <fmt/format.h>

namespace datalog {

Status parse_error(ast::SourcePos pos, std::string_view message) {
  return Status(StatusCode::InvalidArgument, fmt::format("parse error at line {}, column {}: {}",
                                                         pos.line, pos.column, message));
}

}  // namespace datalog

#include "extension/io/import_edn.h"

#include <fmt/format.h>

#include "engine/parser.h"
#include "extension/io/edn_pieces.h"

namespace datalog::ext::io {

Status import_edn_transactions(ImportTarget& target) {
  InputFile& file = target.file();
  bool wrote = false;
  EdnPieceHandler handler;
  handler.map = [&](const std::string&, std::uint64_t line) {
    return file.error_at(line, "a map at the top level of transaction data (a history file begins "
                               "with {:datalog/history ...})");
  };
  handler.elements = [&](const std::string& text, std::uint64_t line) -> Status {
    std::vector<ast::Command> commands;
    const Status parsed = parse_script("(transact [" + text + "])", &commands);
    if (!parsed.ok()) return edn_error_in_file(file, line, parsed);
    auto& t = std::get<ast::Transact>(commands.front());
    for (ast::Fact& f : t.facts) f.pos.line = static_cast<int>(line) + f.pos.line - 1;
    wrote = true;
    return target.transact(t);
  };
  handler.vector_end = [&]() -> Status {
    if (!wrote) return Status::OK();
    wrote = false;
    return target.next_transaction();
  };
  return split_edn(file, handler);
}

}  // namespace datalog::ext::io

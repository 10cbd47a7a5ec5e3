// engine/eval/term_role.h: how one position of a pattern or rule call relates to the relation
// it joins: a constant, a variable bound by a column, a variable it binds (or binds again,
// repeated within the clause), or nothing (a wildcard).
#pragma once

#include "engine/value.h"

namespace datalog::eval {

struct TermRole {
  enum class Kind { Ignore, Constant, Bound, Free, Repeat } kind = Kind::Ignore;
  int column = -1;  // Bound: input column; Free/Repeat: output column
  Value constant;
};

}  // namespace datalog::eval

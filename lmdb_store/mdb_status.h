// lmdb_store/mdb_status.h: LMDB's return codes as a Status (the one Status is engine/status.h).
#pragma once

#include <string_view>

#include "engine/status.h"

namespace datalog::store {

using datalog::Status;
using datalog::StatusCode;

// Maps an LMDB or errno return code to a Status whose message names the operation.
Status status_from_mdb(int rc, std::string_view what);

}  // namespace datalog::store

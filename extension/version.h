// extension/version.h: the version datalog_version() reports: the project's version, set in
// CMakeLists.txt and published in datalog.h.
#pragma once

#include "datalog_version.h"

namespace datalog::ext {
inline constexpr const char* kVersion = DATALOG_VERSION;
}

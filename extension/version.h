// extension/version.h: the version datalog_version() reports.
#pragma once

namespace datalog::ext {
inline constexpr const char* kVersion = "0.1.0";
}

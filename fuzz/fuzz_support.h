// fuzz/fuzz_support.h: a private graph for the fuzz targets that need one, made once per process
// in a temporary folder and removed when the process ends.
#pragma once

#include <stdlib.h>

#include <chrono>
#include <memory>
#include <string>

#include "lmdb_store/graph_env.h"
#include "lmdb_store/write_txn.h"

namespace datalog::fuzz {

inline std::shared_ptr<store::GraphEnv> private_graph() {
  char folder[] = "/tmp/datalog-fuzz-XXXXXX";
  if (!::mkdtemp(folder)) ::abort();
  store::OpenOptions options;
  options.create = true;
  options.delete_on_close = true;
  std::shared_ptr<store::GraphEnv> env;
  if (!store::GraphEnv::open(std::string(folder) + "/g.graph", options, &env).ok()) ::abort();
  return env;
}

inline constexpr auto kTimeout = std::chrono::milliseconds(1000);

}  // namespace datalog::fuzz

#include "extension/connection_context.h"

namespace datalog::ext {

std::shared_ptr<GraphSession> ConnectionContext::session_for(
    const std::shared_ptr<store::GraphEnv>& env, std::chrono::milliseconds busy_timeout) {
  auto& slot = sessions_[env.get()];
  if (auto existing = slot.lock()) return existing;
  auto session = std::make_shared<GraphSession>(env, busy_timeout);
  slot = session;
  return session;
}

std::string ConnectionContext::temp_graph_path(const std::string& qualified_table) const {
  auto it = temp_graphs_.find(qualified_table);
  return it == temp_graphs_.end() ? std::string() : it->second->path();
}

void ConnectionContext::keep_temp_graph(const std::string& qualified_table,
                                        std::shared_ptr<store::GraphEnv> env) {
  temp_graphs_[qualified_table] = std::move(env);
}

void ConnectionContext::forget_temp_graph(const std::string& qualified_table) {
  temp_graphs_.erase(qualified_table);
}

}  // namespace datalog::ext

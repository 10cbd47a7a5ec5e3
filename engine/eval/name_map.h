// engine/eval/name_map.h: names mapped to values, cheap while there are few.
//
// The planner and the body's split into parts build one per step or per body. A body names a
// handful of variables, so a vector searched in order beats a hash map (no allocation per name);
// past kLinear names it indexes them in a hash map, so a body of thousands of variables stays
// linear. Names are views: the strings must outlive the map.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace datalog::eval {

template <typename T>
class NameMap {
 public:
  // The value of name, or null.
  const T* find(std::string_view name) const {
    if (!index_.empty()) {
      auto it = index_.find(name);
      return it == index_.end() ? nullptr : &entries_[it->second].second;
    }
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == name; });
    return it == entries_.end() ? nullptr : &it->second;
  }
  std::size_t count(std::string_view name) const { return find(name) ? 1 : 0; }
  // Adds name with value unless it is there; true when added.
  bool insert(std::string_view name, T value) {
    if (find(name)) return false;
    entries_.emplace_back(name, std::move(value));
    if (!index_.empty()) {
      index_.emplace(name, entries_.size() - 1);
    } else if (entries_.size() > kLinear) {
      for (std::size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
    }
    return true;
  }

 private:
  static constexpr std::size_t kLinear = 16;
  std::vector<std::pair<std::string_view, T>> entries_;
  std::unordered_map<std::string_view, std::size_t> index_;
};

}  // namespace datalog::eval

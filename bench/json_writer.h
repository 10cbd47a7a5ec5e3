// bench/json_writer.h: builds the run's JSON by hand (the project takes no JSON dependency).
//
// JsonObject keeps its fields in insertion order; values are numbers, strings, booleans, nested
// objects or arrays of objects. Non-finite numbers become null so the output always parses.
#pragma once

#include <string>
#include <vector>

namespace bench {

class JsonObject {
 public:
  JsonObject& add(const std::string& key, double value);
  JsonObject& add(const std::string& key, long long value);
  JsonObject& add(const std::string& key, int value) { return add(key, static_cast<long long>(value)); }
  JsonObject& add(const std::string& key, const std::string& value);
  JsonObject& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
  JsonObject& add(const std::string& key, bool value);
  JsonObject& add(const std::string& key, const JsonObject& value);
  JsonObject& add(const std::string& key, const std::vector<JsonObject>& values);
  std::string text() const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;  // key, serialized value
};

std::string json_string(const std::string& text);

}  // namespace bench

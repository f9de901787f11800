// A small streaming JSON writer: objects, arrays, strings and numbers, with commas and
// indentation handled, and NaN or infinity written as null.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coz::output {

class JsonWriter {
 public:
  JsonWriter& begin_object(std::string_view key = {});
  JsonWriter& end_object();
  JsonWriter& begin_array(std::string_view key = {});
  JsonWriter& end_array();
  JsonWriter& value(std::string_view key, std::string_view text);
  JsonWriter& value(std::string_view key, const char* text) {
    return value(key, std::string_view(text));
  }
  JsonWriter& value(std::string_view key, double number);
  JsonWriter& value(std::string_view key, bool flag);
  JsonWriter& value(std::string_view key, size_t count);
  JsonWriter& null(std::string_view key);

  // The document, ending in a newline once every object and array is closed.
  const std::string& text() const { return out_; }

 private:
  void item(std::string_view key);
  void open(std::string_view key, char bracket);
  void close(char bracket);
  void string(std::string_view s);

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
};

}  // namespace coz::output

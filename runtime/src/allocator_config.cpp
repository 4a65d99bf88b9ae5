#include "allocator_config.h"

#include <c10/util/Exception.h>

#include <cstdlib>
#include <sstream>

namespace torch_fl {
namespace {

double parse_number(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  TORCH_CHECK_VALUE(!value.empty() && end && *end == '\0', "TORCH_FL_ALLOC_CONF: '", key, "' needs a number, got '",
                    value, "'");
  return number;
}

}  // namespace

AllocatorConfig parse_allocator_config(const std::string& text) {
  AllocatorConfig config;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    const size_t colon = item.find(':');
    TORCH_CHECK_VALUE(colon != std::string::npos, "TORCH_FL_ALLOC_CONF: expected key:value, got '", item,
                      "' (e.g. max_split_size_mb:256,garbage_collection_threshold:0.8)");
    const std::string key = item.substr(0, colon), value = item.substr(colon + 1);
    if (key == "max_split_size_mb") {
      const double mb = parse_number(key, value);
      TORCH_CHECK_VALUE(mb >= 1, "TORCH_FL_ALLOC_CONF: max_split_size_mb must be at least 1, got ", value);
      config.max_split_size = static_cast<size_t>(mb) << 20;
    } else if (key == "garbage_collection_threshold") {
      const double fraction = parse_number(key, value);
      TORCH_CHECK_VALUE(fraction > 0.0 && fraction < 1.0,
                        "TORCH_FL_ALLOC_CONF: garbage_collection_threshold must be in (0, 1), got ", value);
      config.garbage_collection_threshold = fraction;
    } else {
      TORCH_CHECK_VALUE(false, "TORCH_FL_ALLOC_CONF: unknown key '", key,
                        "' (known: max_split_size_mb, garbage_collection_threshold)");
    }
  }
  return config;
}

const AllocatorConfig& allocator_config() {
  static const AllocatorConfig config = [] {
    const char* text = std::getenv("TORCH_FL_ALLOC_CONF");
    return parse_allocator_config(text ? text : "");
  }();
  return config;
}

}  // namespace torch_fl

#include "error_detail.h"

namespace torch_fl::sim {
namespace {
thread_local std::string last_detail;
}  // namespace

void set_error_detail(std::string detail) { last_detail = std::move(detail); }

const char* error_detail() { return last_detail.c_str(); }

}  // namespace torch_fl::sim

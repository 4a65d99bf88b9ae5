// Degradation without a rebuild: named native ops are sent to the CPU fallback
// (reason "forced") until the list changes. A vendor kernel that misbehaves in
// production can be switched off at once (TORCH_FL_FORCE_FALLBACK,
// torch_fl.force_fallback()).
//
// Each forced op gets a PrivateUse1 kernel registered over the generated one;
// dropping the registration restores it. The dispatcher does the routing, so a
// kernel that is not forced pays nothing per call.
#pragma once

#include <string>
#include <vector>

namespace torch_fl {

// Replaces the forced set by `ops` ("aten::name" or "aten::name.overload"),
// all of which must exist; an empty list restores every generated kernel.
void set_forced_fallbacks(const std::vector<std::string>& ops);
std::vector<std::string> forced_fallbacks();

}  // namespace torch_fl

// Where compiled programs are kept: an unwritable directory is a clear error
// naming its variable, never PoCL's silent CL_DEVICE_NOT_FOUND.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "ocl_cache_dir.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

// Sets an environment variable for one scope, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_;
  std::string old_;
};

// /proc refuses new directories even to root, unlike permission bits.
constexpr const char* kUnwritable = "/proc/torch_fl_no_such_cache";

TEST(OclCacheDir, AnUnwritableProgramCacheNamesItsVariable) {
  ScopedEnv dir("TORCH_FL_OPENCL_CACHE_DIR", kUnwritable);
  std::string chosen;
  EXPECT_EQ(prepare_cache_dirs(&chosen), kConfiguration);
  const std::string detail = last_detail();
  EXPECT_NE(detail.find("TORCH_FL_OPENCL_CACHE_DIR"), std::string::npos) << detail;
  EXPECT_NE(detail.find(kUnwritable), std::string::npos) << detail;
}

TEST(OclCacheDir, AnUnwritablePoclCacheIsReportedBeforePoclHidesIt) {
  ScopedEnv pocl("POCL_CACHE_DIR", kUnwritable);
  std::string chosen;
  EXPECT_EQ(prepare_cache_dirs(&chosen), kConfiguration);
  const std::string detail = last_detail();
  EXPECT_NE(detail.find("POCL_CACHE_DIR"), std::string::npos) << detail;
  EXPECT_NE(detail.find("CL_DEVICE_NOT_FOUND"), std::string::npos) << detail;
}

TEST(OclCacheDir, AWritableDirectoryIsCreatedWithItsParents) {
  const std::string root = ::testing::TempDir() + "torch_fl_cache_" + std::to_string(getpid());
  ScopedEnv dir("TORCH_FL_OPENCL_CACHE_DIR", (root + "/a/b").c_str());
  ScopedEnv pocl("POCL_CACHE_DIR", (root + "/pocl").c_str());  // left as it was for the other tests
  std::string chosen;
  ASSERT_EQ(prepare_cache_dirs(&chosen), kSuccess) << last_detail();
  EXPECT_EQ(chosen, root + "/a/b");
  std::string why;
  EXPECT_TRUE(is_writable_dir(chosen, &why)) << why;
  std::system(("rm -rf " + root).c_str());
}

}  // namespace
}  // namespace torch_fl::ocl

#include <torch_fl/generator.h>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/EmptyTensor.h>
#include <c10/core/GeneratorImpl.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <mutex>
#include <vector>

#include <torch_fl/device.h>

namespace torch_fl {
namespace {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default_rng_seed_val

// State layout (get_rng_state/set_rng_state): 16 bytes, seed then offset, little-endian.
class CounterGenerator final : public c10::GeneratorImpl {
 public:
  explicit CounterGenerator(c10::DeviceIndex device)
      : c10::GeneratorImpl(make_device(device), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)) {}

  void set_current_seed(uint64_t seed) override {
    seed_ = seed;
    offset_ = 0;
  }
  void set_offset(uint64_t offset) override { offset_ = offset; }
  uint64_t get_offset() const override { return offset_; }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override {
    const uint64_t s = c10::detail::getNonDeterministicRandom();
    set_current_seed(s);
    return s;
  }
  void set_state(const c10::TensorImpl& state) override {
    TORCH_CHECK(state.numel() == 16 && state.dtype() == caffe2::TypeMeta::Make<uint8_t>(),
                "RNG state must be a torch.uint8 tensor of 16 bytes (seed, offset)");
    const auto* bytes = static_cast<const uint8_t*>(state.data());
    std::memcpy(&seed_, bytes, 8);
    std::memcpy(&offset_, bytes + 8, 8);
  }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    auto state = at::detail::empty_cpu({16}, c10::ScalarType::Byte, std::nullopt, std::nullopt, std::nullopt,
                                       std::nullopt);
    auto* bytes = static_cast<uint8_t*>(state.data_ptr());
    std::memcpy(bytes, &seed_, 8);
    std::memcpy(bytes + 8, &offset_, 8);
    return state.getIntrusivePtr();
  }
  RngState reserve(uint64_t increment) {
    const RngState state{seed_, offset_};
    offset_ += increment;
    return state;
  }

 private:
  CounterGenerator* clone_impl() const override {
    auto* copy = new CounterGenerator(device().index());
    copy->seed_ = seed_;
    copy->offset_ = offset_;
    return copy;
  }

  uint64_t seed_ = kDefaultSeed;
  uint64_t offset_ = 0;
};

}  // namespace

at::Generator make_generator(c10::DeviceIndex device) {
  check_device_index(device);
  return at::make_generator<CounterGenerator>(device);
}

const at::Generator& default_generator(c10::DeviceIndex device) {
  static std::once_flag once;
  static std::vector<at::Generator>* generators = nullptr;  // never destroyed, like the devices
  std::call_once(once, [] {
    generators = new std::vector<at::Generator>();
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) generators->push_back(make_generator(d));
  });
  if (device < 0) device = current_device();
  check_device_index(device);
  return (*generators)[device];
}

RngState next_rng_state(const std::optional<at::Generator>& gen, uint64_t increment) {
  at::Generator g = gen.has_value() && gen->defined() ? *gen : default_generator(current_device());
  auto* impl = dynamic_cast<CounterGenerator*>(g.unsafeGetGeneratorImpl());
  TORCH_CHECK(impl != nullptr, "expected a generator of the device, got one of ", g.device());
  std::lock_guard<std::mutex> lock(g.mutex());
  return impl->reserve(increment);
}

at::Generator cpu_generator_from(const at::Generator& device_generator) {
  const RngState state = next_rng_state(device_generator);
  // splitmix64 of the pair: neighbouring offsets give unrelated CPU streams.
  uint64_t z = state.seed + (state.offset + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return at::detail::createCPUGenerator(z ^ (z >> 31));
}

}  // namespace torch_fl

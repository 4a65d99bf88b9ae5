#!/usr/bin/env bash
# `make gpu-check`: the nvidia vendor on a machine with an NVIDIA GPU, offline.
#
# The lent machine has no network: its own python3 with torch (2.11.0+cu130 there),
# nvcc, CMake, ninja, pytest and the nvidia-cublas and nvidia-nccl wheels, but no expecttest and no
# GoogleTest. So this script installs nothing from the network and runs no
# `make setup`; what is missing travels in build/gpu-deps/ (`make gpu-deps` fills it
# here; name it in the device tool's `carry`): the expecttest wheel and GoogleTest's
# source, built here in seconds.
#
# Steps: generate for the installed torch, build with CMAKE_CUDA_ARCHITECTURES=90 and
# TORCH_CUDA_ARCH_LIST=9.0, CTest, the Python suite, conformance, and the comparison with
# torch.cuda. A device call runs at most 10 minutes and a session has 15 in all, so the
# steps share one deadline (TORCH_FL_GPU_DEADLINE seconds, default 540: each step gets
# what is left, up to its own cap), and STAGE=build or STAGE=test runs half of them (one
# call each, in the same warm machine). Logs stay in build/gpu-check/; $OUT gets three
# files, as a device call brings back only a few: summary.txt (each step's status and
# seconds), logs.tar.gz and gpu.json (the torch.cuda comparison).
#
#   TORCH_FL_GPU_PYTHON   the interpreter (default python3)
#   TORCH_FL_CUBLAS_ROOT  cuBLAS (default: the nvidia-cublas wheel beside torch, else build/cublas)
#   TORCH_FL_NCCL_ROOT    NCCL (default: the nvidia-nccl wheel beside torch, else build/nccl)
#   TORCH_FL_USE_CARRIED=1  use build/gpu-deps/ even where expecttest or GoogleTest is installed
# Without a GPU the device steps run and skip, saying why: the dry run here
# (docs/bring-up.md, "A real vendor: nvidia") shows that no step needs the network.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
logs=$repo/build/gpu-check
deps=$repo/build/gpu-deps
python=$(command -v "${TORCH_FL_GPU_PYTHON:-python3}") && python=$(realpath -s "$python")
stage=${STAGE:-all}
jobs=$(nproc)
deadline=$(( $(date +%s) + ${TORCH_FL_GPU_DEADLINE:-540} ))
mkdir -p "$logs"
[ "$stage" = test ] || : > "$logs/summary.txt"
failed=0

finish() {  # what comes back from a device call: three files under $OUT
  [ -n "${OUT:-}" ] || return 0
  mkdir -p "$OUT"
  cp "$logs/summary.txt" "$OUT/summary.txt"
  tar -czf "$OUT/logs.tar.gz" -C "$logs" . 2>/dev/null
  [ -f "$logs/gpu.json" ] && cp "$logs/gpu.json" "$OUT/gpu.json"
  return 0
}
trap finish EXIT

step() {  # step NAME CAP COMMAND...: runs it within min(CAP, time left), logs to $logs/NAME.log
  local name=$1 cap=$2 start rc limit
  shift 2
  limit=$(( deadline - $(date +%s) ))
  [ "$limit" -gt "$cap" ] && limit=$cap
  if [ "$limit" -le 5 ]; then
    echo "$name skipped: the deadline has passed" | tee -a "$logs/summary.txt"
    failed=1
    return 1
  fi
  start=$(date +%s)
  timeout "$limit" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc $(( $(date +%s) - start ))s (limit ${limit}s)" | tee -a "$logs/summary.txt"
  [ $rc -eq 0 ] || failed=1
  return $rc
}

torch_version=$("$python" -c "import torch; print(torch.__version__.split('+')[0])") \
  || { echo "gpu-check: $python has no torch" | tee -a "$logs/summary.txt"; exit 1; }
build_root=$(python3 "$repo/codegen/torch_versions.py" build-root "$torch_version") || exit 1
build=$build_root/nvidia
generated=$(python3 "$repo/codegen/torch_versions.py" generated-dir "$torch_version") || exit 1
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
export PYTHONPATH=$repo/runtime/python:$repo${PYTHONPATH:+:$PYTHONPATH}
echo "gpu-check: stage $stage, torch $torch_version ($python), $jobs cores, logs in $logs" | tee -a "$logs/summary.txt"

# What the machine lacks, from build/gpu-deps/ (never the network).
# TORCH_FL_USE_CARRIED=1 takes the carried ones even where they are installed (the dry run here).
if [ "${TORCH_FL_USE_CARRIED:-0}" = 1 ] || ! "$python" -c "import expecttest" 2>/dev/null; then
  step expecttest 60 "$python" -m pip install -q --no-index --no-deps --target "$deps/site" "$deps"/expecttest-*.whl
  export PYTHONPATH=$deps/site:$PYTHONPATH
fi
gtest_root=""
if [ "${TORCH_FL_USE_CARRIED:-0}" = 1 ] || { [ ! -f /usr/lib/x86_64-linux-gnu/libgtest.a ] && [ ! -f /usr/lib/libgtest.a ]; }; then
  gtest_root=$deps/gtest-install
  [ -f "$gtest_root/lib/libgtest.a" ] || step gtest 300 bash -c \
    "cmake -S '$deps/googletest' -B '$deps/gtest-build' -G Ninja -DCMAKE_INSTALL_PREFIX='$gtest_root' \
       -DBUILD_GMOCK=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON && cmake --build '$deps/gtest-build' -j $jobs \
       && cmake --install '$deps/gtest-build'"
fi
# A wheel's directory under the nvidia namespace package beside torch that holds a header.
nvidia_wheel_dir() {  # subdirectory, header
  "$python" -c "
import importlib.util, os
spec = importlib.util.find_spec('nvidia')
for root in (spec.submodule_search_locations if spec else []):
    if os.path.isfile(os.path.join(root, '$1', 'include', '$2')):
        print(os.path.join(root, '$1')); break
" 2>/dev/null
}
cublas=${TORCH_FL_CUBLAS_ROOT:-$(nvidia_wheel_dir cu13 cublas_v2.h)}
cublas=${cublas:-$repo/build/cublas}
nccl=${TORCH_FL_NCCL_ROOT:-$(nvidia_wheel_dir nccl nccl.h)}
nccl=${nccl:-$repo/build/nccl}

if [ "$stage" != test ]; then
  step generate 120 "$python" -m codegen generate --vendor nvidia --out "$generated/nvidia" || exit 1
  step configure 240 cmake -S "$repo" -B "$build" -G Ninja -DTORCH_FL_VENDOR=nvidia -DPython3_EXECUTABLE="$python" \
    -DTORCH_FL_GENERATED_DIR="$generated" -DCMAKE_CUDA_ARCHITECTURES=90 -DTORCH_FL_CUBLAS_ROOT="$cublas" \
    -DTORCH_FL_NCCL_ROOT="$nccl" \
    ${gtest_root:+-DGTest_ROOT="$gtest_root"} || exit 1
  step build 480 cmake --build "$build" -j "$jobs" || exit 1
fi

if [ "$stage" != build ]; then
  library=$build/vendors/nvidia/libtorch_fl_nvidia.so
  [ -f "$library" ] || { echo "gpu-check: $library is not built (STAGE=build first)" | tee -a "$logs/summary.txt"; exit 1; }
  export TORCH_FL_VENDOR=nvidia TORCH_FL_LIBRARY=$library
  rm -f "$repo/build/bench/vs_torch_cuda.json" "$logs/gpu.json"
  step ctest 120 ctest --test-dir "$build" --output-on-failure -j "$jobs"
  step pytest 300 "$python" -m pytest -q -p no:cacheprovider -x --junitxml="$logs/pytest.xml" "$repo/tests/python"
  step conformance 240 "$python" "$repo/tests/conformance_tool/run.py" --vendor nvidia --jobs "$jobs" \
    --generated "$generated" --out-dir "$logs/conformance"
  step bench 180 "$python" "$repo/bench/vs_torch_cuda.py"
  [ -f "$repo/build/bench/vs_torch_cuda.json" ] && cp "$repo/build/bench/vs_torch_cuda.json" "$logs/gpu.json"
fi
echo "gpu-check: stage $stage $([ $failed -eq 0 ] && echo passed || echo FAILED) (summary: $logs/summary.txt)" \
  | tee -a "$logs/summary.txt"
exit $failed

#!/usr/bin/env bash
# Idempotent set-up for Torch-FL (`make setup` runs this).
#
# 1. Debian packages the C++ build and tests need (chromium: the support site's
#    browser test; PoCL, CLBlast and the OpenCL headers and ICD loader: the
#    opencl vendor; prometheus: the server the exporter's test is scraped by),
#    installed only if missing.
# 2. A shared Python environment, cached outside the clone and keyed by the hash
#    of requirements.txt, so every clone of the repository (CI is a fresh clone)
#    reuses it instead of reinstalling torch.
# 3. A per-clone interpreter, build/venv, whose site-packages points at the
#    shared environment and at this clone's runtime/python (the torch_fl
#    package). `make -s python-path` prints its path.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache_root=${TORCH_FL_CACHE:-$HOME/.cache/torch_fl}
# TORCH_FL_TORCH=<version>: an environment for another torch of .ci/torch_versions
# (`make ... TORCH=<version>`); its interpreter is build/torch-<version>/venv.
# The releases and where each one's files go: codegen/torch_versions.py (stdlib only).
torch_versions=(python3 "$repo/codegen/torch_versions.py")
default_torch=$("${torch_versions[@]}" default)
torch_version=${TORCH_FL_TORCH:-$default_torch}
# check prints the listed release (2.13.0 for 2.13.0+cpu), or says what is supported.
torch_version=$("${torch_versions[@]}" check "$torch_version") || { echo "setup: see above" >&2; exit 2; }

need_apt=()
for pkg in libgtest-dev ninja-build ccache cmake g++ chromium valgrind \
           pocl-opencl-icd ocl-icd-opencl-dev opencl-headers libclblast-dev clinfo prometheus; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_apt[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# requirements.txt with torch pinned to the version asked for, plus that version's extras.
requirements=$(sed "s/^torch==.*/torch==$torch_version/" "$repo/requirements.txt")
extras=$("${torch_versions[@]}" extras "$torch_version")  # space-separated; empty for none
[ -z "$extras" ] || requirements+=$'\n'"$(echo "$extras" | tr -s ' ' '\n')"
req_hash=$(printf '%s\n' "$requirements" | sha256sum | cut -c1-12)
[ "$torch_version" = "$default_torch" ] && req_hash=$(sha256sum "$repo/requirements.txt" | cut -c1-12)
shared_env="$cache_root/env-$req_hash"
if [ ! -f "$shared_env/.complete" ]; then
  echo "setup: creating the shared Python environment $shared_env" >&2
  rm -rf "$shared_env"
  mkdir -p "$cache_root"
  python3 -m venv "$shared_env"
  printf '%s\n' "$requirements" > "$shared_env.requirements.txt"
  # A machine may cap pip at the torch releases on its disk (a constraint file in pip's
  # configuration). A listed release above the cap is installed with that file ignored,
  # for this install only; the configuration is left as it is.
  # The environment's own interpreter asks: it has pip and reads the configuration the install does.
  # Exit 1 means a cap excludes a pin; anything else (a broken check) stops here, cap kept.
  pip_cap=()
  cap_status=0
  # shellcheck disable=SC2086  # extras: space-separated pins
  capped_by=$("$shared_env/bin/python" "$repo/.ci/pip_cap.py" "torch==$torch_version" $extras) || cap_status=$?
  if [ "$cap_status" = 1 ]; then
    echo "setup: pip's configuration excludes torch $torch_version or its extras (${capped_by//$'\n'/; }):" \
         "ignored for this environment's install only (PIP_CONSTRAINT=/dev/null)" >&2
    pip_cap=(env PIP_CONSTRAINT=/dev/null)
  elif [ "$cap_status" != 0 ]; then
    echo "setup: could not read pip's configured constraints (.ci/pip_cap.py exited $cap_status; see above)" >&2
    exit 1
  fi
  # pip's own status decides (its stderr is filtered on the side): a failed install stops here.
  "${pip_cap[@]}" "$shared_env/bin/pip" install -q -r "$shared_env.requirements.txt" 2> >(grep -v "^WARNING: Location" >&2) \
    || { echo "setup: pip could not install requirements.txt (see above)" >&2; exit 1; }
  "$shared_env/bin/python" -c "import torch, jinja2, yaml, pytest, expecttest, deepspeed, transformers, accelerate, pytorch_lightning" \
    || { echo "setup: the shared environment is incomplete" >&2; exit 1; }
  "$shared_env/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" \
    || { echo "setup: the shared environment has no torch $torch_version" >&2; exit 1; }
  touch "$shared_env/.complete"
fi

clone_env="$("${torch_versions[@]}" build-root "$torch_version")/venv"
shared_site=$("$shared_env/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if [ ! -x "$clone_env/bin/python" ]; then
  mkdir -p "$(dirname "$clone_env")"
  python3 -m venv --without-pip "$clone_env"
fi
clone_site=$("$clone_env/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
pth="import site; site.addsitedir('$shared_site'); site.addsitedir('$repo/runtime/python')"
if [ "$(cat "$clone_site/torch_fl.pth" 2>/dev/null)" != "$pth" ]; then
  echo "$pth" > "$clone_site/torch_fl.pth"
fi

# 4. cuBLAS and NCCL for building the nvidia vendor, where nvcc is installed: the
#    CUDA toolkit here has the compiler and runtime, the nvidia-cublas and
#    nvidia-nccl wheels bring the rest. Shared between clones like the Python
#    environment; build/cublas and build/nccl point at them.
if command -v nvcc >/dev/null 2>&1; then
  sdk_req="$repo/vendors/nvidia/requirements.txt"
  sdk_dir="$cache_root/nvidia-sdk-$(sha256sum "$sdk_req" | cut -c1-12)"
  if [ ! -f "$sdk_dir/.complete" ]; then
    echo "setup: installing cuBLAS and NCCL into $sdk_dir" >&2
    rm -rf "$sdk_dir"
    "$shared_env/bin/pip" install -q --no-deps --target "$sdk_dir" -r "$sdk_req" 2>&1 \
      | grep -v "^WARNING: Location" >&2 || true
    [ -f "$sdk_dir/nvidia/cu13/include/cublas_v2.h" ] || { echo "setup: cuBLAS install failed" >&2; exit 1; }
    [ -f "$sdk_dir/nvidia/nccl/include/nccl.h" ] || { echo "setup: NCCL install failed" >&2; exit 1; }
    touch "$sdk_dir/.complete"
  fi
  # Only when they change: `make test` runs the vendors' suites side by side, each through setup.
  [ "$(readlink "$repo/build/cublas")" = "$sdk_dir/nvidia/cu13" ] || ln -sfn "$sdk_dir/nvidia/cu13" "$repo/build/cublas"
  [ "$(readlink "$repo/build/nccl")" = "$sdk_dir/nvidia/nccl" ] || ln -sfn "$sdk_dir/nvidia/nccl" "$repo/build/nccl"
fi

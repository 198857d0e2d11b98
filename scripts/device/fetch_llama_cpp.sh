#!/usr/bin/env bash
# Fetch llama.cpp's source for the device kit (issue 30, item 2), here, where PyPI is reachable.
#
#     bash scripts/device/fetch_llama_cpp.sh        # writes .device/llama.cpp (ignored by git)
#
# The device machine has no network, so the source travels with the working tree: `run` with
# carry [".device"]. PyPI is the one source reachable here that carries llama.cpp's C++ tree:
# llama-cpp-python's source distribution vendors it (vendor/llama.cpp) with a shallow git clone
# of one commit. The script pins the version, checks the sdist's sha256 and the vendored commit,
# records both with the build number, and unpacks a trimmed copy (what `llama-bench` needs to
# build for CPU or CUDA, plus gguf-py for the random-weight writer).
#
# The build number cannot be read from the sdist: its clone is shallow (`git rev-list --count
# HEAD` there gives 1, and llama.cpp's cmake/build-info.cmake counts commits that way). Build
# 11312 for commit 0c1e57098 is what three independent public logs print for that commit
# (`b11312-0c1e57098`; "llama.cpp server build 11312 (`0c1e57098`, ghcr.io/ggml-org/llama.cpp:server)";
# "0c1e5709 (built 0.5.0-dev build 11312)"), found in the code corpus by the commit's prefix; the
# device build passes it to CMake (LLAMA_BUILD_NUMBER, LLAMA_BUILD_COMMIT) so llama-bench prints it.
set -euo pipefail

VERSION=0.3.36
SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
COMMIT=0c1e57098bba43ac29e6e3b677cdceebdd22334f
BUILD_NUMBER=11312

root=$(git rev-parse --show-toplevel)
dest="$root/.device/llama.cpp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m pip download "llama-cpp-python==$VERSION" --no-binary :all: --no-deps \
    --disable-pip-version-check -q -d "$work"
sdist="$work/llama_cpp_python-$VERSION.tar.gz"
echo "$SHA256  $sdist" | sha256sum -c --quiet - || { echo "sha256 of $sdist differs" >&2; exit 1; }

tar xzf "$sdist" -C "$work"
src="$work/llama_cpp_python-$VERSION/vendor/llama.cpp"
# the vendored commit, from the sdist's own git metadata (a shallow clone of one commit)
head=$(git -C "$src" rev-parse HEAD)
date=$(git -C "$src" log -1 --format=%cI)
[ "$head" = "$COMMIT" ] || { echo "vendored commit $head is not the pinned $COMMIT" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest"
# what llama-bench's build reads (top-level CMake, ggml, src, include, common, vendor, the tools
# that tools/CMakeLists.txt adds) and gguf-py; left out: .git, models/ (vocabulary files),
# docs, media, examples, tests, benches, the web UI and server, and ggml backends not built here
tar -C "$src" -cf - --exclude=.git --exclude='*.gguf' \
    CMakeLists.txt CMakePresets.json LICENSE cmake ggml src include common vendor tools gguf-py \
    | tar -C "$dest" -xf -
rm -rf "$dest"/tools/ui "$dest"/tools/server
for b in cann et hexagon hip metal musa opencl openvino sycl virtgpu vulkan webgpu zdnn zendnn; do
    rm -rf "$dest/ggml/src/ggml-$b"
done
cat > "$dest/SOURCE_INFO" <<INFO
# written by scripts/device/fetch_llama_cpp.sh
LLAMA_CPP_PYTHON_VERSION=$VERSION
SDIST_SHA256=$SHA256
LLAMA_CPP_COMMIT=$COMMIT
LLAMA_CPP_COMMIT_DATE=$date
LLAMA_CPP_BUILD_NUMBER=$BUILD_NUMBER
INFO
echo "llama.cpp $COMMIT ($date, build $BUILD_NUMBER) in $dest: $(du -sb "$dest" | cut -f1) bytes"

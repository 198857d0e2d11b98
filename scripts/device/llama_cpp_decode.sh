#!/usr/bin/env bash
# First-hand llama.cpp decode runs on a lent GPU, as ONE command (issue 30, item 2; the rule is
# runtime_README.md's "First-hand llama.cpp runs on a lent GPU").
#
# On the device machine, from the repository root, after scripts/device/fetch_llama_cpp.sh has
# written .device/llama.cpp here:   run  command "bash scripts/device/llama_cpp_decode.sh"
#                                        carry [".device"]  timeout_s 600
# Here, to test the kit on the CPU:  bash scripts/device/llama_cpp_decode.sh --cpu --tiny
#
# Builds llama-bench (CUDA for sm_90, or CPU), records the device, the build and a torch
# device-to-device copy, then for each (model, file type) in a fixed order writes a random GGUF
# of the model's shapes to /tmp, runs llama-bench (JSONL appended to $OUT/llama-bench.jsonl,
# flushed test by test) and deletes the file. A time guard starts no new model when less than
# KIT_GUARD_S seconds of KIT_TOTAL_S remain, and bounds every step by the time left, so the
# files in $OUT are written before the command's limit. Knobs (environment): KIT_TOTAL_S,
# KIT_GUARD_S, KIT_MODELS ("key:TYPE ..."), KIT_BENCH_ARGS, KIT_BUILD_DIR (an existing build is
# reused), KIT_JOBS, KIT_PYTHON. Everything goes to $OUT (7 files; the tool returns at most 8):
#   kit.log            every phase with its elapsed time, commands, errors
#   device.txt         nvidia-smi (or lscpu), the driver, the GPU's clocks and memory
#   build.txt          SOURCE_INFO, the CMake cache's GGML_* lines, compiler versions
#   copy_bandwidth.json  the torch device-to-device copy (bytes read + written over time)
#   models.tsv         per model: key, file type, file bytes, seconds to write, llama-bench status
#   llama-bench.jsonl  one line per completed test
#   llama-bench.stderr llama-bench's log (devices found, model loading, CUDA graphs warnings)
set -uo pipefail

cpu=0; tiny=0
for a in "$@"; do
    case "$a" in
        --cpu) cpu=1 ;;
        --tiny) tiny=1 ;;
        *) echo "llama_cpp_decode.sh: unknown argument $a (known: --cpu, --tiny)" >&2; exit 2 ;;
    esac
done

T0=$(date +%s)
TOTAL_S=${KIT_TOTAL_S:-590}     # the run's timeout_s (600) less a margin
GUARD_S=${KIT_GUARD_S:-60}      # start no new model with less than this left
OUT=${OUT:-/tmp/kit-out}
SRC=${KIT_SRC:-.device/llama.cpp}
JOBS=${KIT_JOBS:-$(nproc)}
PY=${KIT_PYTHON:-python3}
if [ $cpu = 1 ]; then BUILD=${KIT_BUILD_DIR:-/tmp/llama-build-cpu}; else BUILD=${KIT_BUILD_DIR:-/tmp/llama-build-cuda}; fi
GGUF_DIR=${KIT_GGUF_DIR:-/tmp}
mkdir -p "$OUT"
LOG="$OUT/kit.log"

if [ -n "${KIT_MODELS:-}" ]; then
    read -r -a MODELS <<< "$KIT_MODELS"          # "key:TYPE key:TYPE ..."
elif [ $tiny = 1 ]; then
    MODELS=(qwen3-0.6b:Q4_0)
else
    # the order of the rule: most valuable first
    MODELS=(llama-2-7b:Q4_0 llama-3.1-8b:Q4_0 qwen3-8b:Q4_0 qwen3-14b:Q4_0 qwen3-32b:Q4_0
            llama-2-7b:Q8_0 llama-2-7b:Q4_K llama-2-7b:F16 qwen3-8b:Q4_K)
fi
if [ -n "${KIT_BENCH_ARGS:-}" ]; then
    read -r -a BENCH_ARGS <<< "$KIT_BENCH_ARGS"
elif [ $tiny = 1 ]; then
    BENCH_ARGS=(-p 64 -n 16 -r 2 -fa 0,1 -d 0,256 -ngl 0 -t "$JOBS")
else
    # pp512 and tg128 (the rule, with its prefill amendment)
    BENCH_ARGS=(-p 512 -n 128 -r 3 -fa 0,1 -d 0,4096 -ngl 99)
fi

now() { date +%s; }
elapsed() { echo $(( $(now) - T0 )); }
left() { echo $(( TOTAL_S - $(now) + T0 )); }
log() { echo "[$(elapsed) s] $*" | tee -a "$LOG"; }
phase_start() { PHASE=$1; PHASE_T=$(now); log "phase $PHASE: start"; }
phase_end() { log "phase $PHASE: $1 after $(( $(now) - PHASE_T )) s (elapsed $(elapsed) s, $(left) s left)"; }

log "llama_cpp_decode.sh cpu=$cpu tiny=$tiny total=${TOTAL_S}s guard=${GUARD_S}s jobs=$JOBS out=$OUT build=$BUILD"
log "models: ${MODELS[*]}"
log "llama-bench args: ${BENCH_ARGS[*]}"
[ -f "$SRC/SOURCE_INFO" ] || { log "no $SRC/SOURCE_INFO: run scripts/device/fetch_llama_cpp.sh here first, and carry .device"; exit 1; }
# shellcheck disable=SC1090,SC1091
. "$SRC/SOURCE_INFO"

# --- the device -------------------------------------------------------------------------
phase_start device
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# uname: $(uname -a)"
    if [ $cpu = 0 ]; then
        echo "# gpu: $(nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader,nounits 2>&1 | head -1)"
        nvidia-smi 2>&1
        nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,power.max_limit,compute_cap --format=csv 2>&1
        nvidia-smi -q -d CLOCK,POWER,PERFORMANCE 2>&1
    fi
    echo "# lscpu"; lscpu 2>&1 | head -20
    echo "# env GGML_CUDA_DISABLE_GRAPHS=${GGML_CUDA_DISABLE_GRAPHS:-<unset>}"
} > "$OUT/device.txt"
phase_end done

# --- the build ----------------------------------------------------------------------------
phase_start build
if [ $cpu = 0 ] && ! command -v nvcc > /dev/null; then
    # a system toolkit, else the pip one (nvidia-cuda-nvcc: site-packages/nvidia/cu*/bin)
    for d in /usr/local/cuda/bin $("$PY" -c 'import glob, nvidia
print(" ".join(sorted(glob.glob(nvidia.__path__[0] + "/cu*/bin"))))' 2>/dev/null); do
        if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
    done
fi
# Where the toolkit's libraries are not on the linker's default path (a pip toolkit, or
# /usr/local/cuda without an ld.so.conf entry), CMake links libggml-cuda to them by full path
# without an RPATH, and linking llama-bench then fails on libcublas.so.13's symbols: name the
# folder to the linker (rpath-link) and to the loader (rpath). A pip toolkit ships only the
# versioned files (libcublas.so.13): FindCUDAToolkit looks for libcublas.so, so the cache
# variables point at them, and -L names the folder for the static libcudadevrt / libcudart_static
# nvcc links (nvcc.profile says lib64, which a pip toolkit lacks). Tested here with pip's nvcc 13.0.88 (no GPU: compile and link).
cuda_args=()
if [ $cpu = 0 ] && command -v nvcc > /dev/null; then
    root=$(dirname "$(dirname "$(command -v nvcc)")")
    for d in "$root/lib64" "$root/lib" "$root/targets/x86_64-linux/lib"; do
        if compgen -G "$d/libcublas.so*" > /dev/null; then
            cuda_args+=("-DCMAKE_EXE_LINKER_FLAGS=-L$d -Wl,-rpath-link,$d -Wl,-rpath,$d"
                        "-DCMAKE_SHARED_LINKER_FLAGS=-L$d -Wl,-rpath-link,$d -Wl,-rpath,$d")
            for lib in cublas cublasLt cudart; do
                if [ ! -e "$d/lib$lib.so" ]; then
                    f=$(compgen -G "$d/lib$lib.so.*" | sort | head -1)
                    [ -n "$f" ] && cuda_args+=("-DCUDA_${lib}_LIBRARY=$f")
                fi
            done
            break
        fi
    done
fi
log "tools: cmake $(cmake --version | head -1 | cut -d' ' -f3), ninja $(ninja --version 2>/dev/null || echo absent), $(c++ --version | head -1)$([ $cpu = 0 ] && echo ", nvcc $(command -v nvcc) $(nvcc --version 2>&1 | grep -o 'release [0-9.]*')")"
GENERATOR=Ninja
command -v ninja > /dev/null || GENERATOR="Unix Makefiles"
if [ -x "$BUILD/bin/llama-bench" ]; then
    log "reusing $BUILD/bin/llama-bench"
else
    cmake_args=(-S "$SRC" -B "$BUILD" -G "$GENERATOR" -DCMAKE_BUILD_TYPE=Release
                -DLLAMA_BUILD_NUMBER="$LLAMA_CPP_BUILD_NUMBER" -DLLAMA_BUILD_COMMIT="${LLAMA_CPP_COMMIT:0:9}"
                -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF
                -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DGGML_CCACHE=OFF)
    if [ $cpu = 0 ]; then
        # KV cache f16 only: the flash-attention vector kernels for f16 alone (fewer to compile)
        cmake_args+=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_GRAPHS=ON -DGGML_CUDA_NCCL=OFF
                     -DGGML_CUDA_FA_QUANTS=f16-f16 "${cuda_args[@]}")
    fi
    log "cmake ${cmake_args[*]}"
    if ! cmake "${cmake_args[@]}" > "$OUT/cmake.tmp" 2>&1; then
        tail -40 "$OUT/cmake.tmp" >> "$LOG"; rm -f "$OUT/cmake.tmp"; phase_end FAILED; exit 1
    fi
    rm -f "$OUT/cmake.tmp"
    if ! timeout "$(left)" cmake --build "$BUILD" --target llama-bench -j "$JOBS" > "$BUILD/build.log" 2>&1; then
        tail -60 "$BUILD/build.log" >> "$LOG"; phase_end FAILED; exit 1
    fi
    log "$(grep -c 'Building' "$BUILD/build.log") compile steps; the build log ends:"
    tail -3 "$BUILD/build.log" >> "$LOG"
fi
{
    cat "$SRC/SOURCE_INFO"
    echo "# CMake cache (GGML_*, LLAMA_BUILD_*, CMAKE_CUDA_*, CMAKE_BUILD_TYPE)"
    grep -E '^(GGML_[A-Z_]*|LLAMA_BUILD_[A-Z_]*|CMAKE_CUDA_ARCHITECTURES|CMAKE_CUDA_COMPILER|CMAKE_BUILD_TYPE|CMAKE_C_COMPILER|CMAKE_CXX_COMPILER):' "$BUILD/CMakeCache.txt"
    echo "# compilers"
    c++ --version 2>&1 | head -1
    [ $cpu = 0 ] && nvcc --version 2>&1 | tail -2
    echo "# llama-bench --help (first lines)"
    "$BUILD/bin/llama-bench" --help 2>&1 | head -5
} > "$OUT/build.txt" 2>&1
phase_end done

# --- the copy bandwidth ---------------------------------------------------------------------
phase_start copy-bandwidth
if [ $cpu = 0 ]; then
    timeout 60 "$PY" - > "$OUT/copy_bandwidth.json" 2>> "$LOG" <<'PYEOF'
import json, torch
n = 4 * 2**30                                   # bytes per buffer, several times the 60 MB L2
a = torch.empty(n, dtype=torch.uint8, device="cuda"); b = torch.empty_like(a)
a.fill_(1)
for _ in range(3):
    b.copy_(a)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
reps = 20
s.record()
for _ in range(reps):
    b.copy_(a)
e.record(); torch.cuda.synchronize()
sec = s.elapsed_time(e) / 1e3 / reps
print(json.dumps({"what": "torch device-to-device copy, bytes read + written over time",
                  "bytes_per_copy": n, "bytes_moved_per_copy": 2 * n, "reps": reps,
                  "seconds_per_copy": sec, "bytes_moved_per_second": 2 * n / sec,
                  "device": torch.cuda.get_device_name(0), "torch": torch.__version__}))
PYEOF
    log "$(cat "$OUT/copy_bandwidth.json")"
else
    echo '{"what": "skipped: --cpu"}' > "$OUT/copy_bandwidth.json"
fi
phase_end done

# --- the models -----------------------------------------------------------------------------
printf 'model_key\tfile_type\tfile_bytes\twrite_s\tbench_s\tbench_rc\n' > "$OUT/models.tsv"
touch "$OUT/llama-bench.jsonl"
for m in "${MODELS[@]}"; do
    key=${m%%:*}; ftype=${m##*:}
    if [ "$(left)" -lt "$GUARD_S" ]; then
        log "time guard: $(left) s left (< $GUARD_S s): not starting $key $ftype or any later model"
        break
    fi
    phase_start "$key:$ftype"
    GGUF="$GGUF_DIR/kit-$key-$ftype.gguf"   # llama-bench's model_filename names the model
    t=$(now)
    if ! PYTHONPATH="$SRC/gguf-py" timeout "$(left)" "$PY" scripts/device/random_gguf.py "$key" "$ftype" "$GGUF" >> "$LOG" 2>&1; then
        log "writing $GGUF failed or was cut: no rows for $key $ftype"
        printf '%s\t%s\t\t%s\t\twrite-failed\n' "$key" "$ftype" "$(( $(now) - t ))" >> "$OUT/models.tsv"
        rm -f "$GGUF"; phase_end FAILED; continue
    fi
    write_s=$(( $(now) - t )); bytes=$(stat -c %s "$GGUF"); t=$(now)
    budget=$(( $(left) - 5 ))
    if [ "$budget" -lt 5 ]; then
        log "no time left to run llama-bench"
        printf '%s\t%s\t%s\t%s\t\tnot-run\n' "$key" "$ftype" "$bytes" "$write_s" >> "$OUT/models.tsv"
        rm -f "$GGUF"; phase_end CUT; break
    fi
    timeout "$budget" "$BUILD/bin/llama-bench" -m "$GGUF" "${BENCH_ARGS[@]}" -o jsonl \
        >> "$OUT/llama-bench.jsonl" 2>> "$OUT/llama-bench.stderr"
    rc=$?
    [ $rc = 0 ] || { log "llama-bench exited $rc (124: cut by the time limit); stderr tail:"; tail -15 "$OUT/llama-bench.stderr" >> "$LOG"; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$ftype" "$bytes" "$write_s" "$(( $(now) - t ))" "$rc" >> "$OUT/models.tsv"
    rm -f "$GGUF"
    phase_end "done (file $bytes bytes written in $write_s s, llama-bench rc $rc)"
done
log "llama-bench.jsonl: $(wc -l < "$OUT/llama-bench.jsonl") tests; total $(elapsed) s"

#!/usr/bin/env bash
# The GPU check, prepared here and run on the GPU machine in one call:
#
#   python3 tools/dev.py device-prepare            # here, once: fills .device/
#   bash tools/device_check.sh OUTDIR              # there, with .device carried along
#   bash tools/device_check.sh OUTDIR --local      # here, on llvmpipe, with .venv
#
# Steps: unpack the GL loaders from .device/debs into / (the machine has none),
# install .device/wheels with --no-index into a venv over the image's packages,
# build and install the four distributions (the C++ extension included), print
# `python -m hypergl info`, run the GL test suites, then every benchmark at sizes
# that fit about 8 minutes in all. OUTDIR gets device_check.log (everything
# printed), device_check.json (machine, GL, each step's status and time, test
# counts and failures, every benchmark's JSON and the headline ratios), tests.xml
# and bench/NAME.json.
#
# --local skips the loaders and the install (this machine's .venv is used as it
# is) and runs the rest on llvmpipe. --smallest runs the smallest sizes and one
# GL test file (the test suite does that, so the script cannot rot).
# --only NAME[,NAME] limits the benchmarks.
set -uo pipefail

usage() {
    echo "usage: bash tools/device_check.sh OUTDIR [--local] [--smallest] [--only NAME,...]" >&2
}
if [ $# -lt 1 ] || [[ "$1" == -* ]]; then usage; exit 2; fi
OUT=$(realpath -m "$1"); shift
LOCAL=0; SMALLEST=0; ONLY=""
while [ $# -gt 0 ]; do
    case "$1" in
        --local) LOCAL=1 ;;
        --smallest) SMALLEST=1 ;;
        --only) ONLY="${2:-}"; shift ;;
        *) usage; exit 2 ;;
    esac
    shift
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
mkdir -p "$OUT/bench" || exit 2
rm -f "$OUT"/bench/*.json "$OUT/steps.tsv" "$OUT/tests.xml"
exec > >(tee "$OUT/device_check.log") 2>&1
export PYTHONUNBUFFERED=1
STARTED=$(date +%s)
FAILED=0

# step NAME TIMEOUT_S COMMAND...: run, time, record "name rc seconds" in steps.tsv
step() {
    local name=$1 limit=$2; shift 2
    local t0 rc
    t0=$(date +%s)
    echo "== $name ($(date -u +%H:%M:%S), at most ${limit}s): $*"
    timeout --kill-after=10 "$limit" "$@"
    rc=$?
    printf '%s\t%s\t%s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" >> "$OUT/steps.tsv"
    if [ "$rc" -ne 0 ]; then
        echo "== $name failed (exit $rc)"
        FAILED=1
    fi
    return "$rc"
}

install_on_device() {
    local venv=/tmp/hypergl-device-venv
    [ -d .device/debs ] && [ -d .device/wheels ] || {
        echo "no .device/debs or .device/wheels: run python3 tools/dev.py device-prepare here" \
             "and carry .device"; return 1; }
    for deb in .device/debs/*.deb; do dpkg -x "$deb" / || return 1; done
    ldconfig
    # The NVIDIA driver's EGL vendor file, where the machine mounts the driver.
    local vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    if [ -f "$vendor" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor; fi
    rm -rf "$venv"
    python3 -m venv --system-site-packages "$venv" || return 1
    "$venv/bin/python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        .device/wheels/*.whl || return 1
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$venv/bin/python" -m pip install -q --no-index \
        --no-deps --no-build-isolation --no-cache-dir ./packages/hypergl-compiler \
        ./packages/py-gpu ./packages/hypergl-core ./packages/hypergl-culverin || return 1
    # py-gpu 0.0.1, the raster benchmark's baseline, in the venv it looks for.
    local seed=.bench-venvs/py-gpu-0.0.1
    rm -rf "$seed"
    python3 -m venv --system-site-packages "$seed" || return 1
    "$seed/bin/python" -m pip install -q --no-index --no-deps --no-cache-dir \
        .device/seed/*.whl .device/wheels/moderngl-*.whl .device/wheels/glcontext-*.whl
}

echo "device check: $(uname -srm), $(nproc) cores, $(date -u +%FT%TZ), out: $OUT"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv
if [ "$LOCAL" -eq 1 ]; then
    PY="$ROOT/.venv/bin/python"
    [ -x "$PY" ] || { echo "no .venv: run python3 tools/dev.py setup first"; exit 2; }
    echo "local: .venv as it is (the loaders and the install run on the GPU machine only)"
else
    step install 420 install_on_device || exit 1
    PY=/tmp/hypergl-device-venv/bin/python
fi

step info 60 "$PY" -m hypergl info

if [ "$SMALLEST" -eq 1 ]; then
    TESTS=(packages/hypergl-core/tests/test_gl_draw_list.py)
else  # the suites that need GL; lint and packaging need tools the machine lacks
    TESTS=(packages/hypergl-compiler/tests packages/py-gpu/tests packages/hypergl-core/tests
           packages/hypergl-culverin/tests tests --ignore=tests/integration/test_lint.py
           --ignore=tests/integration/test_packaging.py)
fi
step tests 300 "$PY" -m pytest -q -p no:cacheprovider -m "not window" \
    --junitxml="$OUT/tests.xml" "${TESTS[@]}"

# name | arguments at full size (fits ~8 minutes with the steps above) | smallest
BENCHMARKS="
vm_dispatch   | --repeat 100                          | --repeat 3
hgb_load      | --repeat 5                            | --repeat 1
draws_10k     | --repeat 10                           | --repeat 1
state_heavy   | --repeat 7                            | --repeat 1 --draws 300
culverin_sync | --repeat 15                           | --repeat 1
rl_throughput | --repeat 5                            | --quick
raster        | --repeat 20 --budget 1.5              | --repeat 2 --budget 0.2 --sizes 1000 --no-seed
"
while IFS='|' read -r name full small; do
    name=$(echo "$name" | xargs)
    [ -z "$name" ] && continue
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
    if [ "$SMALLEST" -eq 1 ]; then args=$small; else args=$full; fi
    cd "$ROOT/benchmarks" || exit 2
    # shellcheck disable=SC2086  # the arguments are words
    step "bench:$name" 150 "$PY" "$name.py" $args --json "$OUT/bench/$name.json"
    cd "$ROOT" || exit 2
    [ -f "$OUT/bench/$name.json" ] || FAILED=1
done <<< "$BENCHMARKS"

"$PY" tools/device_summary.py "$OUT" --seconds "$(( $(date +%s) - STARTED ))" || FAILED=1
echo "device check finished in $(( $(date +%s) - STARTED )) s; exit $FAILED"
exit "$FAILED"

#!/usr/bin/env bash
# The GPU check, prepared here and run on the GPU machine in one call:
#
#   python3 tools/dev.py device-prepare            # here, once: fills .device/
#   bash tools/device_check.sh OUTDIR              # there, with .device carried along
#   bash tools/device_check.sh OUTDIR --local      # here, on llvmpipe, with .venv
#
# Steps: unpack the GL loaders from .device/debs into / (the machine has none),
# install .device/wheels with --no-index into a venv over the image's packages,
# build and install the six distributions (the C++ extension included), print
# `python -m hypergl info`, run the GL test suites, then every benchmark at sizes
# that fit about 8 minutes in all. OUTDIR gets three files: device_check.log
# (everything printed), device_check.json (machine, GL, each step's status and
# time, test counts and failures, every benchmark's JSON and the headline ratios)
# and tests.xml.
#
# --local skips the loaders and the install (this machine's .venv is used as it
# is) and runs the rest on llvmpipe. --rehearse does the install here too, all but
# the loaders, with $HYPERGL_DEVICE_PYTHON (a CPython 3.12 holding the image's
# packages): it proves that the carried wheels install and build offline. --smallest runs the smallest sizes and one
# GL test file (the test suite does that, so the script cannot rot).
# --only NAME[,NAME] limits the benchmarks.
set -uo pipefail

usage() {
    echo "usage: bash tools/device_check.sh OUTDIR [--local | --rehearse] [--smallest] [--only NAME,...]" >&2
}
if [ $# -lt 1 ] || [[ "$1" == -* ]]; then usage; exit 2; fi
OUT=$(realpath -m "$1"); shift
LOCAL=0; SMALLEST=0; REHEARSE=0; ONLY=""
BASE_PYTHON=${HYPERGL_DEVICE_PYTHON:-python3}
while [ $# -gt 0 ]; do
    case "$1" in
        --local) LOCAL=1 ;;
        --smallest) SMALLEST=1 ;;
        --rehearse) REHEARSE=1 ;;
        --only) ONLY="${2:-}"; shift ;;
        *) usage; exit 2 ;;
    esac
    shift
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
# OUTDIR gets three files (the run tool brings back at most 8); the pieces are
# gathered in WORK and folded into device_check.json.
WORK=$(mktemp -d /tmp/hypergl-device-check.XXXXXX) || exit 2
mkdir -p "$OUT" "$WORK/bench" || exit 2
rm -f "$OUT/device_check.json" "$OUT/tests.xml"
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
    if declare -F "$1" >/dev/null; then  # a function of this script: no timeout(1)
        "$@"
    else
        timeout --kill-after=10 "$limit" "$@"
    fi
    rc=$?
    printf '%s\t%s\t%s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" >> "$WORK/steps.tsv"
    if [ "$rc" -ne 0 ]; then
        echo "== $name failed (exit $rc)"
        FAILED=1
    fi
    return "$rc"
}

# The image's python3 is itself a venv (/opt/torch/.venv): a venv made from it would
# not see its packages. So everything goes into one folder that a .pth file of the
# image's site-packages puts first on the path (pip's build subprocesses see it too),
# and the raster baseline gets a venv of its own that sees the image's packages but
# not ours.
SITE=/tmp/hypergl-site
install_on_device() {
    [ -d .device/debs ] && [ -d .device/wheels ] || {
        echo "no .device/debs or .device/wheels: run python3 tools/dev.py device-prepare here" \
             "and carry .device"; return 1; }
    if [ "$REHEARSE" -eq 0 ]; then
        for deb in .device/debs/*.deb; do dpkg -x "$deb" / || return 1; done
        ldconfig
    fi
    local image pip
    image=$("$BASE_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    pip=("$BASE_PYTHON" -m pip install -q --no-index --no-deps --no-cache-dir)
    rm -rf "$SITE"
    "${pip[@]}" --target "$SITE" .device/wheels/*.whl || return 1
    echo "import sys; sys.path.insert(0, '$SITE')" > "$image/zz_hypergl_device.pth" || return 1
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "${pip[@]}" --no-build-isolation --upgrade \
        --target "$SITE" ./packages/hypergl-compiler ./packages/py-gpu ./packages/hypergl-core \
        ./packages/hypergl-culverin ./packages/hypergl-mujoco ./packages/hypergl-rl || return 1
    # py-gpu 0.0.1, the raster benchmark's baseline, in the venv it looks for.
    local seed=.bench-venvs/py-gpu-0.0.1 seed_site
    rm -rf "$seed"
    "$BASE_PYTHON" -m venv --without-pip "$seed" || return 1
    seed_site=$("$seed/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$image" > "$seed_site/image.pth"  # a path line: the image's .pth files stay unread
    "${pip[@]}" --target "$seed_site" .device/seed/*.whl .device/wheels/moderngl-*.whl \
        .device/wheels/glcontext-*.whl
}

echo "device check: $(uname -srm), $(nproc) cores, $(date -u +%FT%TZ), out: $OUT"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv
if [ "$LOCAL" -eq 1 ]; then
    PY="$ROOT/.venv/bin/python"
    [ -x "$PY" ] || { echo "no .venv: run python3 tools/dev.py setup first"; exit 2; }
    echo "local: .venv as it is (the loaders and the install run on the GPU machine only)"
else
    PY=$BASE_PYTHON
    if ! step install 420 install_on_device; then
        # Nothing else can run; the summary still says what happened.
        "$PY" tools/device_summary.py "$WORK" --seconds "$(( $(date +%s) - STARTED ))"
        cp "$WORK/device_check.json" "$OUT/"
        exit 1
    fi
    # The NVIDIA driver's EGL vendor file, where the machine mounts the driver.
    vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    if [ -f "$vendor" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor; fi
fi

step info 60 "$PY" -m hypergl info

if [ "$SMALLEST" -eq 1 ]; then
    TESTS=(packages/hypergl-core/tests/test_gl_draw_list.py)
else  # the suites that need GL; lint and packaging need tools the machine lacks
    TESTS=(packages/hypergl-compiler/tests packages/py-gpu/tests packages/hypergl-core/tests
           packages/hypergl-culverin/tests packages/hypergl-mujoco/tests packages/hypergl-rl/tests
           tests
           --ignore=tests/integration/test_lint.py
           --ignore=tests/integration/test_packaging.py)
fi
# A worker per core, up to 4 (pytest-xdist, one test file each: tools/pytest_workers.py), where
# the environment has it: on 2 cores the suites take longer than the step's 300 s one by one.
WORKERS=()
if "$PY" -c "import xdist" 2>/dev/null; then
    WORKERS=(-n "$(( $(nproc) < 4 ? $(nproc) : 4 ))" --dist loadfile --no-loadscope-reorder)
fi
step tests 300 "$PY" -m pytest -q -p no:cacheprovider -m "not window" "${WORKERS[@]}" \
    --junitxml="$WORK/tests.xml" "${TESTS[@]}"

# name | arguments at full size (fits ~8 minutes with the steps above) | smallest
BENCHMARKS="
vm_dispatch   | --repeat 100                          | --repeat 3
hgb_load      | --repeat 5                            | --repeat 1
draws_10k     | --repeat 10                           | --repeat 1
state_heavy   | --repeat 7                            | --repeat 1 --draws 300
culverin_sync | --repeat 15                           | --repeat 1
rl_throughput | --repeat 5                            | --quick
mujoco_pixels | --repeat 5                            | --repeat 1 --envs 4
raster        | --repeat 20 --budget 1.5              | --repeat 2 --budget 0.2 --sizes 1000
overlap       | --repeat 2                            | --repeat 1 --bodies 500 --frames 10 --worlds 4 --mujoco-frames 5 --vector-envs 2 --vector-steps 3
"
while IFS='|' read -r name full small; do
    name=$(echo "$name" | xargs)
    [ -z "$name" ] && continue
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
    if [ "$SMALLEST" -eq 1 ]; then args=$small; else args=$full; fi
    cd "$ROOT/benchmarks" || exit 2
    # shellcheck disable=SC2086  # the arguments are words
    step "bench:$name" 150 "$PY" "$name.py" $args --json "$WORK/bench/$name.json"
    cd "$ROOT" || exit 2
    [ -f "$WORK/bench/$name.json" ] || FAILED=1
done <<< "$BENCHMARKS"

"$PY" tools/device_summary.py "$WORK" --seconds "$(( $(date +%s) - STARTED ))" || FAILED=1
cp "$WORK/device_check.json" "$OUT/" || FAILED=1
[ -f "$WORK/tests.xml" ] && cp "$WORK/tests.xml" "$OUT/"
rm -rf "$WORK"
echo "device check finished in $(( $(date +%s) - STARTED )) s; exit $FAILED"
exit "$FAILED"

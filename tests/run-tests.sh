#!/usr/bin/env bash
# tests/run-tests.sh - run every built test and print one line per test, then
# "N passed, N failed, N skipped". Exit status is non-zero if any test failed.
#
# Test binaries: build/{release,asan,tsan}/tests/{unit,stress}/*   (exit 0 pass, 77 skip)
# Build tests:   tests/build/*.sh (install, pkg-config, exports)
# Network tests: tests/net/*.sh, run as root on veth pairs they create (exit 77 = skip,
#                only for a missing optional peer or not being root; each skip is named
#                with its reason before the closing line)
# Environment:   XTX_TEST_FILTER=REGEX runs only the tests whose name matches.
#                XTX_TEST_TIMEOUT=S per-test limit (default 300).
#                XTX_TEST_VARIANTS="release asan tsan" the builds whose binaries run.
#                XTX_TEST_NET=0 skips the build and network tests (make test-quick).
set -u
cd "$(dirname "$0")/.."

pass=0 fail=0 skip=0
failed=() skipped=()
timeout_s=${XTX_TEST_TIMEOUT:-300}
filter=${XTX_TEST_FILTER:-}
variants=${XTX_TEST_VARIANTS:-release asan tsan}
net=${XTX_TEST_NET:-1}
logdir=build/test-logs
rm -rf "$logdir"; mkdir -p "$logdir"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

run_one() { # name, command...
  local name=$1; shift
  if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then return; fi
  local log="$logdir/${name//\//_}.log" t0 t1 rc
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$timeout_s" "$@" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local dt; dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1fs", b-a}')
  case $rc in
    0)  pass=$((pass+1)); printf 'ok    %-44s %s\n' "$name" "$dt" ;;
    77) skip=$((skip+1)); skipped+=("$name ($(tail -1 "$log"))")
        printf 'skip  %-44s %s\n' "$name" "$(tail -1 "$log")" ;;
    *)  fail=$((fail+1)); failed+=("$name")
        [ $rc = 124 ] && echo "timed out after ${timeout_s}s" >>"$log"
        printf 'FAIL  %-44s %s (exit %d, log %s)\n' "$name" "$dt" "$rc" "$log"
        tail -15 "$log" | sed 's/^/      | /' ;;
  esac
}

for variant in $variants; do
  for t in build/$variant/tests/unit/* build/$variant/tests/stress/*; do
    [ -x "$t" ] || continue
    name="${t#build/$variant/tests/}"
    if [ $variant = tsan ]; then
      # TSan needs a fixed address layout on kernels with high mmap entropy.
      run_one "$name [$variant]" setarch "$(uname -m)" -R "$t"
    else
      run_one "$name [$variant]" "$t"
    fi
  done
done

# Fuzz corpora (every crash a fuzzer found is kept there): replayed without libFuzzer.
for variant in $variants; do
  [ "$variant" = tsan ] && continue	# no replays are built under TSan
  for t in build/$variant/tests/fuzz/*_replay; do
    [ -x "$t" ] || continue
    n=$(basename "$t" _replay)
    run_one "fuzz/$n [$variant]" "$t" "tests/fuzz/corpus/${n#fuzz_}"
  done
done

for t in tests/build/*.sh; do
  [ "$net" = 1 ] && [ -f "$t" ] || continue
  run_one "build/$(basename "$t" .sh)" bash "$t"
done

for t in tests/net/*.sh; do
  [ "$net" = 1 ] && [ -f "$t" ] || continue
  run_one "net/$(basename "$t" .sh)" bash "$t"
done

if [ $fail -gt 0 ]; then
  echo "failed: ${failed[*]}"
fi
for s in "${skipped[@]}"; do
  echo "skipped: $s"
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

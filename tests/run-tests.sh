#!/usr/bin/env bash
# tests/run-tests.sh - run every built test and print one line per test, then
# "N passed, N failed, N skipped". Exit status is non-zero if any test failed.
#
# Test binaries: build/{release,asan,tsan}/tests/{unit,stress}/*   (exit 0 pass, 77 skip)
# Build tests:   tests/build/*.sh (install, pkg-config, exports)
# Network tests: tests/net/*.sh, run as root on veth pairs they create (exit 77 = skip,
#                only for a missing optional peer or not being root; each skip is named
#                with its reason before the closing line). A script with test functions
#                (ALL_TESTS, tests/lib/net.sh) is one result per function, read from the
#                results file it writes ($XTX_TEST_RESULTS): net/SCRIPT/FUNCTION; a
#                failure before its first function is net/SCRIPT/setup, a function that
#                did not finish (crash, timeout) a FAIL with the log's tail.
# Environment:   XTX_TEST_FILTER=REGEX runs only the tests whose name matches (a
#                script's functions too: net/engine/asan).
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
# The scripts' results files, private to this run (another run empties $logdir).
resdir=$(mktemp -d)
trap 'rm -rf "$resdir"' EXIT

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

# line STATUS NAME DETAIL: one result line; counts it.
line() {
  case $1 in
    ok)   pass=$((pass+1)) ;;
    skip) skip=$((skip+1)); skipped+=("$2 ($3)") ;;
    FAIL) fail=$((fail+1)); failed+=("$2") ;;
  esac
  printf '%-5s %-44s %s\n' "$1" "$2" "$3"
}

# script_tests FILE: the functions a test script lists in ALL_TESTS="..." (one or more lines)
script_tests() {
  awk '/^ALL_TESTS="/ { on = 1; sub(/^ALL_TESTS="/, "") }
       on { if (index($0, "\"")) { sub(/".*/, ""); on = 0 } print }' "$1" | tr -s ' \t' '\n' |
    grep -v '^$'
}

# selected NAME [FILE]: the filter matches NAME, or one of FILE's functions (NAME/FUNCTION)
selected() {
  [ -z "$filter" ] && return 0
  [[ $1 =~ $filter ]] && return 0
  [ -n "${2:-}" ] || return 1
  local f
  for f in $(script_tests "$2"); do
    [[ $1/${f#test_} =~ $filter ]] && return 0
  done
  return 1
}

# results NAME RC DT LOG RESULTS FILE: the lines of a script with test functions. A
# function started but not finished is a FAIL; so is a non-zero exit that no FAIL explains.
results() {
  local name=$1 rc=$2 dt=$3 log=$4 res=$5 file=$6 st rest pend= n=-1 nfail=0 nmiss=0 i why
  local sts=() names=() dts=() msgs=()
  while IFS=$'\t' read -r st rest; do
    case $st in
      start) pend=$rest ;;
      ok|FAIL|skip)
        n=$((n+1)); sts[n]=$st; names[n]=${rest%%$'\t'*}; dts[n]=${rest#*$'\t'}; msgs[n]=
        [ "${names[n]}" = "$pend" ] && pend=
        [ "$st" = FAIL ] && nfail=$((nfail+1)) ;;
      '#') [ $n -ge 0 ] && msgs[n]+="$rest"$'\n' ;;
    esac
  done <"$res"
  for ((i = 0; i <= n; i++)); do
    case ${sts[i]} in
      ok)   line ok "${names[i]}" "${dts[i]}s" ;;
      skip) line skip "${names[i]}" "$(printf '%s' "${msgs[i]}" | head -1)" ;;
      FAIL) line FAIL "${names[i]}" "${dts[i]}s (log $log)"
            printf '%s' "${msgs[i]}" | head -10 | sed 's/^/      | /' ;;
    esac
  done
  local f seen=" ${names[*]} "
  # Every selected function of ALL_TESTS reported (unless the setup failed: none ran).
  if [ -z "$pend" ] && [[ $seen != *" $name/setup "* ]] && [[ $seen != *" $name "* ]]; then
    for f in $(script_tests "$file"); do
      [ -z "$filter" ] || [[ $name =~ $filter ]] || [[ $name/${f#test_} =~ $filter ]] || continue
      [[ $seen == *" $name/${f#test_} "* ]] && continue
      line FAIL "$name/${f#test_}" "no result (exit $rc, log $log)"
      nmiss=$((nmiss+1))
    done
  fi
  if [ -n "$pend" ]; then
    why="exit $rc"; [ "$rc" = 124 ] && why="timed out after ${timeout_s}s"
    local left; left=$(after_pending "$name" "$pend" "$file")
    line FAIL "$pend" "did not finish: $why (log $log)${left:+; not run after it: $left}"
    tail -15 "$log" | sed 's/^/      | /'
  elif [ "$rc" != 0 ] && [ $nfail = 0 ] && [ $nmiss = 0 ]; then
    line FAIL "$name" "$dt (exit $rc after its $((n + 1)) results, log $log)"
    tail -15 "$log" | sed 's/^/      | /'
  fi
}

# after_pending NAME PENDING FILE: the listed functions after PENDING (not run)
after_pending() {
  local f seen= out=
  for f in $(script_tests "$3"); do
    [ -n "$seen" ] && out+="${out:+ }${f#test_}"
    [ "$1/${f#test_}" = "$2" ] && seen=1
  done
  echo "$out"
}

run_one() { # name, command...   (a test script: run_script)
  local name=$1; shift
  selected "$name" || return
  run "$name" "" "$@"
}

run_script() { # name file: a test script, one result per test function it reports
  selected "$1" "$2" || return
  run "$1" "$2" bash "$2"
}

run() { # name script-file-or-empty command...
  local name=$1 file=$2; shift 2
  local log="$logdir/${name//\//_}.log" res="$resdir/${name//\//_}.results" t0 t1 rc
  : >"$res"
  t0=$(date +%s.%N)
  XTX_TEST_RESULTS=$res timeout --kill-after=10 "$timeout_s" "$@" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local dt; dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1fs", b-a}')
  [ $rc = 124 ] && echo "timed out after ${timeout_s}s" >>"$log"
  if [ -s "$res" ]; then
    results "$name" "$rc" "$dt" "$log" "$res" "$file"
    return
  fi
  # No results: one line for the whole test. A script with test functions that wrote
  # none failed (or skipped) before its first one: its setup.
  local what=$name
  [ -n "$file" ] && [ $rc != 0 ] && [ $rc != 77 ] && [ -n "$(script_tests "$file")" ] &&
    what=$name/setup
  case $rc in
    0)  line ok "$what" "$dt" ;;
    77) line skip "$what" "$(tail -1 "$log")" ;;
    *)  line FAIL "$what" "$dt (exit $rc, log $log)"
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
  run_script "build/$(basename "$t" .sh)" "$t"
done

for t in tests/net/*.sh; do
  [ "$net" = 1 ] && [ -f "$t" ] || continue
  run_script "net/$(basename "$t" .sh)" "$t"
done

if [ $fail -gt 0 ]; then
  echo "failed: ${failed[*]}"
fi
for s in "${skipped[@]}"; do
  echo "skipped: $s"
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

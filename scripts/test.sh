#!/usr/bin/env bash
# Runs Earshot's full test suite on a Debian machine, installing the system
# packages it needs first (scripts/setup.sh), with a throwaway PostgreSQL and
# S3 server around the Go tests (scripts/services.sh). CI runs exactly this
# (.ci/run).
#   FUZZTIME=5s   how long each fuzz target runs after the unit tests (0 skips them)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
scripts/setup.sh test
export CGO_ENABLED=0
# Earshot is several modules in one workspace (go.work): the core, each
# storage adapter with a heavy dependency, the test services and the
# reference server. ./... covers one module only, so every command below
# names each module's tree.
modules=$(go list -m -f '{{.Dir}}' | sed "s|^$PWD|.|; s|$|/...|" | tr '\n' ' ')
echo "== build, gofmt and vet ($modules)"
go build $modules
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet $modules
echo "== services"
# A throwaway PostgreSQL cluster and an S3 server (versitygw) on loopback for
# the tests that use real servers (internal/testservices); stopped on exit,
# whatever the outcome. EARSHOT_TEST_REQUIRE_SERVICES=1 makes a test that
# finds them missing fail instead of skipping.
services_env=$(EARSHOT_SERVICES_OWNER=$$ scripts/services.sh start)
eval "$services_env"
trap 'scripts/services.sh stop "$EARSHOT_SERVICES_DIR"' EXIT
export EARSHOT_TEST_REQUIRE_SERVICES=1
echo "== tests"
# TestAdmissionRealSpeech measures how many live sessions the cores carry,
# so it runs after the others, with the machine to itself: beside the rest
# of the suite the load it measured at admission changes under it.
go test -count=1 -timeout 20m -skip '^TestAdmissionRealSpeech$' $modules
echo "== tests that need the machine to themselves"
# It measures the machine, and a shared machine's other tenants can push
# one run's latencies past its bound (seen once: every session's finals
# 0.6-4.9 s late on a machine where two reruns gave 0.1 s); a failure is
# run once more, and two in a row fail the suite.
go test -count=1 -timeout 5m -run '^TestAdmissionRealSpeech$' -v ./realtime/ ||
  { echo "TestAdmissionRealSpeech failed; running it once more" >&2
    go test -count=1 -timeout 5m -run '^TestAdmissionRealSpeech$' -v ./realtime/; }
scripts/services.sh stop "$EARSHOT_SERVICES_DIR"
trap - EXIT
fuzztime=${FUZZTIME:-5s}
if [ "$fuzztime" != "0" ]; then
  echo "== fuzz ($fuzztime each)"
  # Every Fuzz* target in the repo runs for a short time on top of its seed
  # corpus. Each package's instrumented test binary is built once, two
  # packages at a time (go test -fuzz would build and link it again for
  # every target), then its targets run from the package's directory, where
  # testdata/fuzz holds their corpus.
  fuzzbin=$(mktemp -d)
  grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u >"$fuzzbin/dirs"
  # shellcheck disable=SC2016
  xargs -P 2 -I{} sh -c 'go test -c -fuzz=. -o "$1/$(echo "$2" | tr / _).test" "$2" || { echo "building the fuzz tests of $2 failed" >&2; exit 255; }' _ "$fuzzbin" {} <"$fuzzbin/dirs"
  while read -r dir; do
    bin="$fuzzbin/$(echo "$dir" | tr / _).test"
    for target in $(grep -h '^func Fuzz' "$dir"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
      log=$(mktemp)
      tries=0
      until (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "$fuzztime" -test.fuzzcachedir "$fuzzbin/cache/$(basename "$bin")") </dev/null >"$log" 2>&1; do
        tries=$((tries + 1))
        echo "fuzz $dir $target failed (try $tries); output:" >&2; tail -40 "$log" >&2
        # A found input is saved under $dir/testdata/fuzz: a real failure,
        # which the next run replays first. A bare "context deadline
        # exceeded" with no input written is Go 1.26's fuzz-coordinator
        # race at the end of -fuzztime on a busy machine (golang/go#75804,
        # fixed in Go 1.27), not a finding: try again, up to three times.
        if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
          [ "$tries" -ge 2 ] && { rm -f "$log"; exit 1; }
        elif [ "$tries" -ge 3 ]; then
          rm -f "$log"; exit 1
        fi
      done
      rm -f "$log"
      echo "ok fuzz $dir $target"
    done
  done <"$fuzzbin/dirs"
  rm -rf "$fuzzbin"
fi
echo "== all tests passed"

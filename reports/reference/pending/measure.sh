#!/bin/bash
# The rest of the next reference (issue 38): everything still to be measured into this
# directory's store, at a commit with the same measured code as its runs, on the same machine,
# one run after another with nothing else on the machine; then the reference is made from it.
# About 2 h 10 min (robustness alone may take up to 2 h: it runs last). Usage, from the checkout:
#     reports/reference/pending/measure.sh            # measure (results/ref/), then publish
#     reports/reference/pending/measure.sh publish    # only publish what results/ref/ holds
set -u
cd "$(git rev-parse --show-toplevel)" || exit 2
P=reports/reference/pending
D=reports/reference
W=results/ref  # the stores while they are written: a tracked file changed makes the tree dirty
U=.venv/bin/uabench
MEASURED_AT=83648b0  # the commit whose measured code the pending runs were made by
FINGERPRINT=b9944d9e2cdb5ce9

fail() { echo "measure.sh: $*" >&2; exit 2; }
# one run, its output in $W/NAME.log; a run with a failed test (exit 1) is kept and said, any
# other failure (a refused command, Ctrl-C) stops here: what is measured stays in $W
step() {
  local name=$1; shift
  echo "[$(date +%T)] $name: $*" | tee -a $W/steps.log
  "$@" > $W/$name.log 2>&1; local rc=$?
  echo "[$(date +%T)] $name ended, exit $rc ($(grep -h '^== ' $W/$name.log | tail -1))" | tee -a $W/steps.log
  [ $rc -le 1 ] || fail "$name: exit $rc: $W/$name.log"
}

git diff --quiet $MEASURED_AT HEAD -- harness adapters implementations contract suites \
  || fail "the measured code differs from $MEASURED_AT's: delete $P and start over (its README)"
found=$($U --help > /dev/null && .venv/bin/python -c "from uabench.results import provenance; print(provenance.machine()['fingerprint'])")
[ "$found" = "$FINGERPRINT" ] || fail "this machine's fingerprint is $found, not $FINGERPRINT: delete $P and start over"

if [ "${1:-}" != publish ]; then
  # a run of a tree with changes is recorded as `-dirty` and cannot be a reference
  [ -z "$(git status --porcelain --untracked-files=no)" ] || fail "the work tree has changes: commit them first"
  mkdir -p $W
  [ -e $W/uabench.sqlite ] && fail "$W/uabench.sqlite exists: move it away first"
  cp $P/uabench.sqlite $W/uabench.sqlite
  bench() { make bench UABENCH="$U --store $W/$1.sqlite"; }
  step aa1 bench aa1
  step aa2 bench aa2
  step reference bench uabench
  step handicap $U --store $W/handicap.sqlite run read write subscription encryption capacity \
    --exclude capacityNOTlatency --profile quick --time-budget 14:00 --handicap asyncua=0.7
  for suite in capacity pubsub scenarios conformance profile robustness; do
    step $suite $U --store $W/uabench.sqlite run $suite --profile quick
  done
fi

# publish: the stores beside the report, in the rollback journal (reading leaves nothing beside them)
rm -f $D/uabench-run1.sqlite  # the previous reference's second store
published() { [ "$1" = uabench ] && echo $D/uabench.sqlite || echo $D/uabench-$1.sqlite; }
for name in uabench aa1 aa2 handicap; do
  cp $W/$name.sqlite "$(published $name)" && sqlite3 "$(published $name)" 'PRAGMA journal_mode=DELETE' > /dev/null
done
$U margins --out $D/margins.toml "$(published aa1)" "$(published aa2)" || fail "uabench margins failed"
for pair in "aa2 uabench compare" "uabench handicap compare-handicap"; do
  set -- $pair
  a=$(published $1) b=$(published $2)
  rm -rf $W/$3 && $U compare --margins $D/margins.toml --out $W/$3 $a $b > /dev/null || fail "compare $a $b failed"
  mv $W/$3/compare.md $D/$3.md && mv $W/$3/compare.html $D/$3.html
done
rm -rf $D/flamegraphs
$U --store $D/uabench.sqlite report --out $D || fail "uabench report failed"
rm -rf $P
$U reference --check

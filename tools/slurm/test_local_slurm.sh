#!/usr/bin/env bash
# Tests tools/slurm/ against a real Slurm on this machine: a single-node cluster (slurmctld and
# slurmd on localhost, authenticated by a private munged) that lives in a temporary folder and is
# stopped when the test ends, whatever happens.
#   tools/slurm/test_local_slurm.sh [BUILD_DIR] [PAPER] [N]      (default: build brickdl 3)
# PAPER "compare" tests repro_compare instead (a comparison over COMPARE_ARGS, default two small
# models on a100 and stcp920 with every registered scheduler), the same way.
# It installs what is missing (Debian 12: slurmctld slurmd slurm-client munge), needs root
# (munged and slurmd), and the executables repro_PAPER and repro_report built in BUILD_DIR. Then:
#   1. writes a minimal slurm.conf (its own ports 26817/26818, state and logs in the temporary
#      folder, no cgroups, no accounting) and a munge key, starts munged, slurmctld, slurmd and
#      waits for the node to be idle;
#   2. runs repro_PAPER --all unsharded (the reference);
#   3. submits the sweep with tools/slurm/submit_sweep.sh: a job array of N shards and the merge
#      job (--dependency=afterok:<array>), and waits for the merge to end (TIMEOUT_S, default 1200);
#   4. compares the merged OUT/PAPER/ with the reference: every file byte for byte, except
#      run_info.csv and the wall_s column of items.csv (reports/run_varying.csv; repro_report
#      --compare checks those outside the run-varying values).
# Prints PASS or FAIL (exit 0 or 1); the job logs are printed when it fails. KEEP=1 keeps the
# temporary folder. It takes about a minute with BrickDL (N shards run one after another on a
# 2-core machine: each asks for one CPU). Not run by CI (./build.sh test): it needs root, starts
# daemons and installs packages; run it by hand after changing tools/slurm/ or the sweep flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-$root/build}")
paper=${2:-brickdl}
shards=${3:-3}
timeout_s=${TIMEOUT_S:-1200}
repro=$build/repro_$paper
report=$build/repro_report
run_args=(--all)
if [ "$paper" = compare ]; then
  read -r -a run_args <<<"${COMPARE_ARGS:---model test_diamond --model squeezenet --hw a100 --hw stcp920}"
fi

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || fail "run as root (munged and slurmd need it)"
for exe in "$repro" "$report"; do
  [ -x "$exe" ] || fail "no $exe: build it first (cmake --build $build --target repro_$paper repro_report)"
done

missing=()
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/dgs_slurm_test.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  local rc=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -f "$work/munge/munged.pid" ]; then kill "$(cat "$work/munge/munged.pid")" 2>/dev/null || true; fi
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = "1" ]; then echo "kept $work"; else rm -rf "$work"; fi
  exit $rc
}
trap cleanup EXIT

# munge: a private key and socket (the socket's folder must be searchable by all).
mkdir -p "$work/munge" "$work/key" "$work/state" "$work/spool"
chmod 755 "$work/munge"
chmod 700 "$work/key"
dd if=/dev/urandom of="$work/key/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/key/munge.key"
munged --socket="$work/munge/munge.socket" --key-file="$work/key/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed"

host=$(hostname -s)
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=dgstest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=26817
SlurmdPort=26818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
echo "== single-node Slurm in $work (node $host)"
for _ in $(seq 1 60); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = "idle" ] && break
  sleep 1
done
[ "$state" = "idle" ] || { tail -n 20 "$work"/slurm*.log "$work"/*.out >&2 || true; fail "the node did not come up (state '$state')"; }
sinfo

echo "== reference: repro_$paper ${run_args[*]} (unsharded)"
start=$(date +%s)
"$repro" "${run_args[@]}" --quiet --out "$work/single" >"$work/single.log"
echo "   $(($(date +%s) - start)) s"

echo "== sweep: $shards shards and the merge, submitted with tools/slurm/submit_sweep.sh"
start=$(date +%s)
ids=$("$root/tools/slurm/submit_sweep.sh" "$repro" "$shards" "$work/sweep" "$work/merged" "${run_args[@]}")
read -r array merge <<<"$ids"
echo "   array job $array, merge job $merge (afterok:$array)"
squeue
merge_state=""
while true; do
  merge_state=$(scontrol show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
  case "$merge_state" in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED) break ;;
  esac
  [ $(($(date +%s) - start)) -lt "$timeout_s" ] || fail "the merge job did not end within $timeout_s s (state '$merge_state')"
  sleep 2
done
echo "   merge job $merge: $merge_state after $(($(date +%s) - start)) s"
for i in $(seq 0 $((shards - 1))); do
  echo "   shard $i: $(scontrol show job "${array}_$i" 2>/dev/null | grep -o 'JobState=[A-Z_]*\|ExitCode=[0-9:]*' | paste -sd' ')"
done
if [ "$merge_state" != "COMPLETED" ]; then
  tail -n 30 "$work"/sweep/logs/* >&2 || true
  fail "the merge job ended $merge_state"
fi
grep -E '^merged|^claims' "$work"/sweep/logs/dgs-merge-*.out

echo "== merged vs reference: $work/merged/$paper vs $work/single/$paper"
differ=0
for f in $(cd "$work/single/$paper" && ls) ; do
  case "$f" in run_info.csv | items.csv | compare.csv | plans) continue ;; esac
  if ! cmp -s "$work/single/$paper/$f" "$work/merged/$paper/$f"; then
    echo "   $f differs" >&2
    differ=1
  fi
done
extra=$(diff <(cd "$work/single/$paper" && ls) <(cd "$work/merged/$paper" && ls) || true)
[ -z "$extra" ] || { echo "   the folders hold other files: $extra" >&2; differ=1; }
"$report" --compare "$work/single/$paper" "$work/merged/$paper" || differ=1
[ $differ -eq 0 ] || fail "the merged reports differ from the unsharded run's"
n_files=$(find "$work/merged/$paper" -type f | wc -l)
echo "PASS: $shards Slurm array tasks of repro_$paper ${run_args[*]}, merged by the dependent job, equal the unsharded run ($n_files files: byte for byte but run_info.csv; items.csv and compare.csv but their wall_s and search_s)"

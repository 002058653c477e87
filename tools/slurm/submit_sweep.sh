#!/usr/bin/env bash
# Submits a sweep to Slurm: a job array of N shards and a merge job that starts when all of them
# have succeeded.
#   tools/slurm/submit_sweep.sh REPRO N SWEEP_DIR OUT [REPRO_ARGS...] [-- SBATCH_ARGS...]
# e.g.
#   tools/slurm/submit_sweep.sh ./build/repro_atomic 4 /shared/sweep /shared/reports --all --seed 1
#   tools/slurm/submit_sweep.sh ./build/repro_ios 2 "$PWD/sweep" "$PWD/out" --all -- --partition=cpu --time=1:00:00
# Shard I writes SWEEP_DIR/shard-I/ (its log: SWEEP_DIR/logs/dgs-shard-<job>_<I>.out); the merge
# writes OUT/<paper>/ (log: SWEEP_DIR/logs/dgs-merge-<job>.out). SWEEP_DIR and OUT must be on a
# file system every node sees; REPRO too (or the same path on every node). SBATCH_ARGS go to both
# submissions (partition, account, time limit, ...). Prints the two job ids, array first. If a
# shard fails, the merge is cancelled (--kill-on-invalid-dep=yes): resubmit the same command (the
# shards skip what they completed, --skip-existing) or only the failed task (sbatch --array=I).
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repro=$(realpath "$1") shards=$2 sweep=$3 out=$4
shift 4
repro_args=() sbatch_args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; sbatch_args=("$@"); break; fi
  repro_args+=("$1"); shift
done
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: N '$shards' is not a shard count (a positive integer)" >&2
  exit 2
fi
[ -x "$repro" ] || { echo "error: REPRO '$repro' is not an executable" >&2; exit 2; }
mkdir -p "$sweep/logs"
sweep=$(realpath "$sweep")
out=$(realpath -m "$out")
array=$(sbatch --parsable "${sbatch_args[@]}" --array="0-$((shards - 1))" \
  --output="$sweep/logs/dgs-shard-%A_%a.out" "$here/shard.sbatch" "$repro" "$shards" "$sweep" \
  "${repro_args[@]}")
array=${array%%;*}
merge=$(sbatch --parsable "${sbatch_args[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$sweep/logs/dgs-merge-%j.out" "$here/merge.sbatch" "$repro" "$shards" "$sweep" "$out")
merge=${merge%%;*}
echo "$array $merge"

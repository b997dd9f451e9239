#!/usr/bin/env bash
# The GPU job on a Slurm cluster (README, « Le job GPU sur un cluster Slurm »).
#
# One array task per (framework, shard), each on a GPU node, running
#     build.py eval --tab T --gpu-only --require-gpu --freeze --shard K/N
# in its own copy of the book (gpu-job/slurm-task.sbatch); then a job that starts
# once they have all ended, failed ones included (--dependency=afterany), and gathers
# their frozen results into frozen/ with one summary of the tasks, failures named
# (gpu-job/slurm-gather.sbatch, `build.py gather`). Everything of a run goes to
# _build/slurm/<date>-<time>/.
#
# Run it from a login node, in the repository (on the shared filesystem the nodes
# see); it prints the job ids. Every setting below is a variable with a default:
#     PARTITION=gpu_p13 ACCOUNT=abc@v100 QOS=qos_gpu-t3 gpu-job/submit-slurm.sh
# Compute nodes without Internet: set TABBOOK_WHEELHOUSE (README, « Sur un nœud de
# calcul sans Internet »); the tasks inherit it, like every variable set here.
set -euo pipefail
cd "$(dirname "$0")/.."

# -- what runs -------------------------------------------------------------------------
TABS=${TABS:-"pytorch mxnet tensorflow"}  # the frameworks, one block of SHARDS tasks each
SHARDS=${SHARDS:-2}                       # tasks per framework: eval --shard K/SHARDS
FORCE=${FORCE:-no}                        # yes: ignore the execution cache (eval --force)
DRY_RUN=${DRY_RUN:-no}                    # yes: only ask Slurm whether it would accept
                                          # the jobs (sbatch --test-only), submit nothing
REQUIRE_GPU=${REQUIRE_GPU:-yes}           # no: drop --require-gpu (only for a Slurm
                                          # without GPUs: the tests')
# Each framework's environment, read by the task on its node (T: the tab in capitals):
#   PYTHON_T    its interpreter: a path or a command (default .envs-gpu/<tab>/bin/python,
#               the book's GPU venv, README); with a module, PYTHON_PYTORCH=python3
#   SETUP_T     shell commands run first, e.g. SETUP_PYTORCH="module load pytorch-gpu/py3/2.1.1"
#   LAUNCHER    a prefix for build.py, e.g. LAUNCHER="apptainer exec --nv book.sif" (the
#               framework's container: PYTHON_T is then the container's interpreter)
#   BUILD_PYTHON the Python that runs build.py (default python3: it moves into .envs/tools)

# -- the resources of each task ----------------------------------------------------------
PARTITION=${PARTITION:-}       # --partition; empty: the cluster's default partition
GPUS=${GPUS-gpu:2}             # --gres; 2: what the multi-GPU sections declare (#gpus(2));
                               # empty: no GPU asked for (the tests' Slurm)
CPUS=${CPUS:-8}                # --cpus-per-task: the kernel and its data loaders
MEMORY=${MEMORY:-}             # --mem, e.g. 64G; empty: the partition's default
TIME=${TIME:-02:00:00}         # --time: the longest shard's sections, with margin
QOS=${QOS:-}                   # --qos, e.g. qos_gpu-t3 (Jean Zay); empty: the default QoS
ACCOUNT=${ACCOUNT:-}           # --account, e.g. abc@v100; empty: your default account
CONSTRAINT=${CONSTRAINT:-}     # --constraint, a node feature, e.g. v100-32g
EXTRA=${EXTRA:-}               # other sbatch options, for every job, e.g. "--hint=nomultithread"
# -- the gathering job: no GPU, a few minutes -------------------------------------------
GATHER_PARTITION=${GATHER_PARTITION:-$PARTITION}
GATHER_TIME=${GATHER_TIME:-00:15:00}

read -r -a tabs <<< "$TABS"
if [ "${#tabs[@]}" -eq 0 ] || ! [[ "$SHARDS" =~ ^[1-9][0-9]*$ ]]; then
    echo "gpu-job/submit-slurm.sh: TABS must name frameworks and SHARDS be a count (got TABS='$TABS', SHARDS='$SHARDS')" >&2
    exit 1
fi
# The book checked, and the tools environment made, once here rather than by each task.
"${BUILD_PYTHON:-python3}" build.py check

run="_build/slurm/$(date +%Y%m%d-%H%M%S)"
count=$((${#tabs[@]} * SHARDS))
common=(${ACCOUNT:+--account="$ACCOUNT"} ${QOS:+--qos="$QOS"} $EXTRA)
tasks=("${common[@]}" --job-name=gpu-job --array="0-$((count - 1))"
       ${PARTITION:+--partition="$PARTITION"} ${GPUS:+--gres="$GPUS"}
       --cpus-per-task="$CPUS" ${MEMORY:+--mem="$MEMORY"} --time="$TIME"
       ${CONSTRAINT:+--constraint="$CONSTRAINT"} --output="$run/task-%a.log")
gathering=("${common[@]}" --job-name=gpu-job-gather
           ${GATHER_PARTITION:+--partition="$GATHER_PARTITION"} --time="$GATHER_TIME"
           --output="$run/gather.log")
if [ "$DRY_RUN" = yes ]; then   # Slurm's answer only: nothing submitted, nothing written
    sbatch --test-only "${tasks[@]}" gpu-job/slurm-task.sbatch
    sbatch --test-only "${gathering[@]}" gpu-job/slurm-gather.sbatch
    exit
fi

# Task i is framework i / SHARDS, shard i % SHARDS + 1 (the task script does the same);
# its folder gets its Slurm output as slurm.log, which the summary quotes on failure.
folders=()
for ((i = 0; i < count; i++)); do
    folder="$run/${tabs[i / SHARDS]}-$((i % SHARDS + 1))of$SHARDS"
    mkdir -p "$folder"
    ln -s "../task-$i.log" "$folder/slurm.log"
    folders+=("$folder")
done
array=$(sbatch --parsable "${tasks[@]}" \
    gpu-job/slurm-task.sbatch "$run" "$SHARDS" "$REQUIRE_GPU" "$FORCE" "${tabs[@]}")
array=${array%%;*}   # --parsable: "id" or "id;cluster"
gather=$(sbatch --parsable "${gathering[@]}" --dependency="afterany:$array" \
    gpu-job/slurm-gather.sbatch "$run/summary.md" "${folders[@]}")
gather=${gather%%;*}
echo "array job $array: $count tasks (${tabs[*]} × $SHARDS shards), logs in $run/"
echo "gathering job $gather: after the array, summary in $run/summary.md"
echo "$array $gather"

#!/usr/bin/env bash
# The library path of the CUDA libraries that an environment's nvidia-* wheels bring,
# for the frameworks that load CUDA from the system (MXNet 1.9's CUDA 11):
#     LD_LIBRARY_PATH=$(gpu-job/cuda-library-path.sh .envs-gpu/mxnet/bin/python)
# Used by both GPU jobs (.github/workflows/gpu.yml, gpu-job/slurm-task.sbatch).
set -euo pipefail
"$1" - <<'PYTHON'
import glob, site
print(":".join(sorted(folder for packages in site.getsitepackages()
                      for folder in glob.glob(f"{packages}/nvidia/*/lib"))))
PYTHON

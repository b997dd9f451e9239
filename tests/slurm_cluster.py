"""A real single-node Slurm for the tests: Debian's munged, slurmctld and slurmd, run by
the user of the tests from a private folder (configuration, state, spool, logs, pid
files, munge socket), on free ports: nothing of the machine's own Slurm is touched.

Besides the node that runs jobs (this machine, its CPUs and memory as `slurmd -C` reports
them), the configuration may declare GPU nodes that do not exist: count-only GRES (no
device files, no autodetection), never started, so that `sbatch --test-only` can judge a
script that asks for GPUs, features or several nodes against a cluster that has them.
"""
from __future__ import annotations

import getpass
import os
import re
import secrets
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tabbook.bootstrap.environments import ensure_test_tools

START_SECONDS = 60   # for the node to register with the controller
COMPUTE_PARTITION = "compute"
"""The partition of this machine's node alone: where the tests' jobs run."""
DEFAULT_PARTITION = "all"
"""The default partition: this machine's node and the declared GPU nodes, as a script
that names no partition finds them."""


@dataclass(frozen=True)
class GpuNodes:
    """Declared GPU nodes (never started): a partition of them for `sbatch --test-only`."""
    partition: str
    count: int
    cpus: int
    gpus: int
    features: tuple[str, ...] = ()
    memory_mib: int = 500_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fields(line: str) -> dict[str, str]:
    """The Key=value fields of a line that Slurm prints (slurmd -C, scontrol -o, jobcomp)."""
    return dict(re.findall(r"(\w+)=(\S*)", line))


def this_node() -> dict[str, str]:
    """`slurmd -C`'s description of this machine: NodeName, CPUs, RealMemory…"""
    said = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    return fields(said.splitlines()[0])


@dataclass
class SlurmCluster:
    folder: Path
    gpu_nodes: tuple[GpuNodes, ...] = ()
    processes: list[subprocess.Popen] = field(default_factory=list)

    @property
    def conf(self) -> Path:
        return self.folder / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """The environment of the Slurm commands (sbatch, squeue…) for this cluster."""
        return dict(os.environ, SLURM_CONF=str(self.conf))

    @property
    def jobcomp(self) -> Path:
        """One line per finished job (jobcomp/filetxt): id, name, state, start and end."""
        return self.folder / "jobcomp.txt"

    def write_configuration(self) -> None:
        node = this_node()
        name = node["NodeName"]
        self.node = name
        for sub in ("state", "spool", "log"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        socket_path = self.folder / "munge.socket"
        lines = [
            "ClusterName=tabbook-test",
            f"SlurmctldHost={name}",
            f"SlurmctldPort={free_port()}", f"SlurmdPort={free_port()}",
            # The daemons run as whoever runs the tests (root, or a CI runner's user), and
            # so do the jobs: a one-user cluster needs no privilege but apt's.
            f"SlurmUser={getpass.getuser()}", f"SlurmdUser={getpass.getuser()}",
            "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={socket_path}",
            f"StateSaveLocation={self.folder / 'state'}",
            f"SlurmdSpoolDir={self.folder / 'spool'}",
            f"SlurmctldPidFile={self.folder / 'slurmctld.pid'}",
            f"SlurmdPidFile={self.folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={self.folder / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={self.folder / 'log' / 'slurmd.log'}",
            # No cgroups in a container, no accounting daemon: processes tracked by their
            # parents, jobs recorded in a text file as they end.
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/filetxt", f"JobCompLoc={self.jobcomp}",
            "SchedulerType=sched/backfill", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core", "MpiDefault=none", "ReturnToService=2",
            "SlurmdTimeout=300", "MinJobAge=600",
            "GresTypes=gpu",
            f"NodeName={name} NodeAddr=127.0.0.1 CPUs={node['CPUs']} "
            f"Boards={node['Boards']} SocketsPerBoard={node['SocketsPerBoard']} "
            f"CoresPerSocket={node['CoresPerSocket']} ThreadsPerCore={node['ThreadsPerCore']} "
            f"RealMemory={int(node['RealMemory']) * 9 // 10} Weight=1 State=UNKNOWN",
            f"PartitionName={COMPUTE_PARTITION} Nodes={name} State=UP"]
        gres, every_node = ["AutoDetect=off"], [name]
        for group in self.gpu_nodes:
            names = f"{group.partition}[1-{group.count}]"
            features = f" Feature={','.join(group.features)}" if group.features else ""
            # CLOUD: declared, never contacted; the scheduler prefers this machine (Weight).
            lines += [f"NodeName={names} NodeAddr=127.0.0.2 CPUs={group.cpus} "
                      f"RealMemory={group.memory_mib} Gres=gpu:{group.gpus}{features} "
                      "Weight=1000 State=CLOUD",
                      f"PartitionName={group.partition} Nodes={names} State=UP"]
            gres.append(f"NodeName={names} Name=gpu Count={group.gpus}")
            every_node.append(names)
        lines.append(f"PartitionName={DEFAULT_PARTITION} Nodes={','.join(every_node)} "
                     "Default=YES State=UP")
        self.conf.write_text("\n".join(lines) + "\n")
        (self.folder / "gres.conf").write_text("\n".join(gres) + "\n")
        key = self.folder / "munge.key"
        key.write_bytes(secrets.token_bytes(128))
        key.chmod(0o400)

    def start(self) -> None:
        ensure_test_tools()   # Debian's munge and Slurm, as the browser tests get Chromium
        self.write_configuration()
        logs = self.folder / "log"
        self._spawn(["munged", "-F", "--force", f"--key-file={self.folder / 'munge.key'}",
                     f"--socket={self.folder / 'munge.socket'}",
                     f"--pid-file={self.folder / 'munged.pid'}",
                     f"--seed-file={self.folder / 'munged.seed'}",
                     f"--log-file={logs / 'munged.log'}"], "munged")
        self._wait(lambda: (self.folder / "munge.socket").exists(), "munged's socket")
        self._spawn(["slurmctld", "-D", "-i", "-f", str(self.conf)], "slurmctld")
        self._spawn(["slurmd", "-D", "-f", str(self.conf), "-N", self.node], "slurmd")
        self._wait(self._node_ready, f"node {self.node} idle")

    def _spawn(self, command: list[str], name: str) -> None:
        with open(self.folder / "log" / f"{name}.stdout", "w") as log:
            self.processes.append(subprocess.Popen(command, stdout=log, stderr=log,
                                                   env=self.env))

    def _node_ready(self) -> bool:
        said = self.run("sinfo", "-h", "-n", self.node, "-o", "%T", check=False).stdout
        return said.strip() in ("idle", "mixed", "allocated")

    def _wait(self, ready, what: str) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if ready():
                return
            dead = [p.args[0] for p in self.processes if p.poll() is not None]
            if dead:
                break
            time.sleep(0.5)
        raise RuntimeError(f"the test Slurm did not start ({what}): {self.logs()}")

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
                         for path in sorted((self.folder / "log").iterdir()))

    def run(self, *command: str, check: bool = True, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """A Slurm command (sbatch, squeue, scontrol…) on this cluster."""
        return subprocess.run(command, capture_output=True, text=True, check=check, cwd=cwd,
                              env={**self.env, **(env or {})}, timeout=120)

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()

    def wait_for_jobs(self, job_ids: list[str], seconds: float) -> None:
        """Wait until none of `job_ids` is pending or running any more."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            left = self.run("squeue", "-h", "-j", ",".join(job_ids), "-o", "%i %T",
                            check=False).stdout.strip()
            if not left:
                return
            time.sleep(2)
        raise AssertionError(f"jobs {job_ids} still queued after {seconds:.0f} s:\n"
                             f"{self.run('squeue', check=False).stdout}")


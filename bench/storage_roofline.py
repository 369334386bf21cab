#!/usr/bin/env python3
"""The storage roofline of a cluster job's outputs on this machine, and the
cluster matmul's store time next to it (docs/cluster.md, "What bounds a
job's outputs"; issue 49, item 3).

1. The writers alone: `phobos-tensor write-rate` stores the tiles of one new
   output file from 1 and from 4 processes, through the pods' own write
   path (TensorFile::writeRegion: a shared mapping, `map`, or `pwrite`,
   `write`), on /dev/shm and on disk (a directory under build/ by default).
2. The job with the compute removed: 1 and 4 interpreter pods with
   `--test-skip-compute` (and `--store-writes map` or `write`) run the
   cluster matmul (C written, A and B read), so the job's time is its
   loads, allocations and stores; its store rate (C's bytes over the job's
   time, from the scheduler's --summary-json) stands next to the writers'
   rate with as many processes.

Usage: python3 bench/storage_roofline.py [BIN_DIR] [--size 8192] [--tile 2048]
           [--k 256] [--repeat 3] [--dirs /dev/shm,build/storage-roofline]
           [--json FILE]

Prints a Markdown table (the median of --repeat runs of each row; for a job
also the pods' CPU time and minor page faults per job, from /proc). Every
process it starts is ended before it exits; every file it makes is removed.
"""

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_rate(bin_dir: str, directory: str, size: int, tile: int, writers: int,
               method: str) -> tuple[float, float]:
    """GB/s of the writes alone and with the fsync after."""
    path = os.path.join(directory, f"roofline-{os.getpid()}.tensor")
    result = subprocess.run(
        [os.path.join(bin_dir, "phobos-tensor"), "write-rate", path, "--shape",
         f"{size}x{size}", "--tile", f"{tile}x{tile}", "--writers", str(writers),
         "--method", method], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        sys.exit(f"storage_roofline: write-rate failed:\n{result.stderr}")
    match = re.search(r": [0-9.]+ s, ([0-9.]+) GB/s; with the fsync after "
                      r"\([0-9.]+ s\), ([0-9.]+) GB/s", result.stdout)
    if not match:
        sys.exit(f"storage_roofline: unexpected output: {result.stdout}")
    return float(match.group(1)), float(match.group(2))


class Pods:
    """Interpreter pods with the compute removed, attached to one scheduler
    address in turn."""

    def __init__(self, bin_dir: str, work: str, count: int, port: int,
                 method: str):
        self.processes = []
        self.addresses = []
        for i in range(count):
            address_file = os.path.join(work, f"pod{count}-{i}.address")
            if os.path.exists(address_file):
                os.unlink(address_file)
            log = open(os.path.join(work, f"pod{count}-{i}.log"), "w")
            self.processes.append(subprocess.Popen(
                [os.path.join(bin_dir, "phobos-pod"), "--listen", "127.0.0.1:0",
                 "--address-file", address_file, "--interpret", "--threads", "1",
                 "--insecure", "--scheduler", f"127.0.0.1:{port}",
                 "--test-skip-compute", "--store-writes", method],
                stdout=log, stderr=subprocess.STDOUT))
            deadline = time.time() + 60
            while not os.path.exists(address_file):
                if time.time() > deadline or self.processes[-1].poll() is not None:
                    self.stop()
                    sys.exit(f"storage_roofline: pod {i} did not start")
                time.sleep(0.05)
            with open(address_file) as f:
                self.addresses.append(f.read().strip())

    def usage(self) -> tuple[float, int]:
        """The pods' CPU seconds (user and system) and minor page faults so
        far, from /proc (zeros where there is none)."""
        seconds, faults = 0.0, 0
        for process in self.processes:
            try:
                with open(f"/proc/{process.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            faults += int(fields[7])
            seconds += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return seconds, faults

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()


def job_rate(bin_dir: str, directory: str, work: str, size: int, tile: int,
             k: int, pods: int, method: str, repeat: int) -> dict:
    """The matmul with the compute removed on `pods` pods: the median job
    time (sending the job to the last store) and C's bytes over it."""
    data = tempfile.mkdtemp(prefix="roofline-job-", dir=directory)
    try:
        tensor = os.path.join(bin_dir, "phobos-tensor")
        for name, shape in (("a", f"{size}x{k}"), ("b", f"{k}x{size}")):
            subprocess.run([tensor, "create", os.path.join(data, f"{name}.tensor"),
                            "--shape", shape, "--fill", "random", "--seed", "1"],
                           check=True, capture_output=True)
        with open(os.path.join(ROOT, "examples", "cluster_matmul.ph")) as f:
            source = f.read().replace("[4096, 16384]", f"[{min(tile, k)}, {size}]")
        kernel = os.path.join(data, "matmul.ph")
        with open(kernel, "w") as f:
            f.write(source)
        job = os.path.join(data, "matmul.job")
        with open(job, "w") as f:
            f.write(f"source = {kernel}\n"
                    f"tensor A = read f32 {size}x{k} file://{data}/a.tensor\n"
                    f"tensor B = read f32 {k}x{size} file://{data}/b.tensor\n"
                    f"tensor C = write f32 {size}x{size} file://{data}/c.tensor\n"
                    f"scalar alpha = f32 1.0\nscalar beta = f32 0.0\n")
        port = free_port()
        group = Pods(bin_dir, work, pods, port, method)
        times, walls = [], []
        cpu_before, faults_before = group.usage()
        try:
            for _ in range(repeat):
                summary = os.path.join(work, "summary.json")
                began = time.time()
                result = subprocess.run(
                    [os.path.join(bin_dir, "phobos-sched"), job, "--pods",
                     ",".join(group.addresses), "--listen", f"127.0.0.1:{port}",
                     "--insecure", "--cluster",
                     f"TILE_M={tile},TILE_N={tile},TILE_K={k}", "--no-cache",
                     "--summary-json", summary, "--progress-ms", "60000"],
                    capture_output=True, text=True, timeout=600)
                walls.append(time.time() - began)
                if result.returncode != 0:
                    logs = ""
                    for name in sorted(os.listdir(work)):
                        if name.endswith(".log"):
                            with open(os.path.join(work, name)) as f:
                                logs += f"--- {name}\n{f.read()[-3000:]}"
                    sys.exit(f"storage_roofline: the job failed:\n{result.stdout}"
                             f"{result.stderr}\n{logs}")
                with open(summary) as f:
                    record = json.load(f)
                times.append(record["seconds"])
                loaded = sum(n["loaded_bytes"] for n in record["nodes"])
                stored = sum(n["stored_bytes"] for n in record["nodes"])
                os.unlink(os.path.join(data, "c.tensor"))
            cpu_after, faults_after = group.usage()
        finally:
            group.stop()
        seconds = statistics.median(times)
        # What the pods spent per job, all of them together: on a shared
        # machine, steadier than the job's time.
        return {"pods": pods, "seconds": seconds, "wall_seconds": statistics.median(walls),
                "stored_bytes": stored, "loaded_bytes": loaded,
                "store_gbps": stored / seconds / 1e9,
                "pod_cpu_seconds": (cpu_after - cpu_before) / repeat,
                "pod_minor_faults": round((faults_after - faults_before) / repeat)}
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin", nargs="?", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--size", type=int, default=8192,
                        help="C is SIZE x SIZE f32 (default 8192: 256 MiB)")
    parser.add_argument("--tile", type=int, default=2048,
                        help="the super-tiles stored (default 2048: 16 MiB)")
    parser.add_argument("--k", type=int, default=256,
                        help="the job's K (A is SIZE x K; default 256)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dirs", default="/dev/shm," +
                        os.path.join(ROOT, "build", "storage-roofline"))
    parser.add_argument("--json", help="write the rows as JSON here too")
    args = parser.parse_args()
    rows = []
    work = tempfile.mkdtemp(prefix="storage-roofline-")
    try:
        for directory in args.dirs.split(","):
            os.makedirs(directory, exist_ok=True)
            for method in ("map", "write"):
                for writers in (1, 4):
                    runs = [write_rate(args.bin, directory, args.size, args.tile,
                                       writers, method) for _ in range(args.repeat)]
                    rows.append({"dir": directory, "what": f"{writers} writer"
                                 f"{'s' if writers > 1 else ''} ({method})",
                                 "gbps": statistics.median(r[0] for r in runs),
                                 "gbps_fsync": statistics.median(r[1] for r in runs)})
                    print(f"[storage_roofline] {rows[-1]}", file=sys.stderr, flush=True)
            for method in ("map", "write"):
                for pods in (1, 4):
                    record = job_rate(args.bin, directory, work, args.size,
                                      args.tile, args.k, pods, method, args.repeat)
                    rows.append({"dir": directory, "what": f"matmul job, {pods} "
                                 f"pod{'s' if pods > 1 else ''} ({method}), no "
                                 "compute", "gbps": record["store_gbps"],
                                 "gbps_fsync": None, "job": record})
                    print(f"[storage_roofline] {rows[-1]}", file=sys.stderr,
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    size_mib = args.size * args.size * 4 / 2**20
    print(f"C: {args.size}x{args.size} f32 ({size_mib:.0f} MiB) in "
          f"{(args.size // args.tile) ** 2} tiles of {args.tile}x{args.tile}; "
          f"median of {args.repeat}\n")
    print("| where | writers | GB/s (writes) | GB/s (with fsync) | job s (wall s) "
          "| pods' CPU s, page faults per job |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        job = row.get("job")
        print(f"| {row['dir']} | {row['what']} | {row['gbps']:.2f} | "
              f"{'' if row['gbps_fsync'] is None else format(row['gbps_fsync'], '.2f')} | "
              f"{'' if not job else format(job['seconds'], '.3f') + ' (' + format(job['wall_seconds'], '.2f') + ')'} | "
              f"{'' if not job else format(job['pod_cpu_seconds'], '.2f') + ', ' + format(job['pod_minor_faults'], ',')} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

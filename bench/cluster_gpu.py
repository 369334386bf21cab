#!/usr/bin/env python3
"""The cluster runtime on the GPU machine, next to one phobos-run and cuBLAS.

Runs from a checkout plus the self-contained tools of scripts/build-static.sh
(phobos-sched, phobos-pod, phobos-tensor, phobos-run; a bin directory or the
phobos-tools.tar.xz it packs). For each SGEMM job (examples/cluster_matmul.ph;
default 20480^3 and 40960 x 40960 x 8192) and each attention job
(examples/cluster_flash_attention.ph, Nq = Nk, D = 64; default 16384 and
65536) it

  1. times the peer (cuBLAS / torch SDPA, TF32 off) and one phobos-run of the
     same kernel (one launch), median of CUDA events;
  2. runs the job on 1, 2 and 4 pods, one per GPU (the counts of --gpus this
     machine has; on a 1-GPU machine also 4 pods on GPU 0), with a scheduler
     and mutual TLS (credentials made here by cluster-credentials.sh), checks
     each output against torch (float32 for SGEMM, float64 for attention) and
     reports the speed-up over 1 GPU, the bytes moved GPU to GPU (peer copies)
     and through the host (gRPC), and the busiest node's compute time as a
     share of the job;
  3. for SGEMM, on the most GPUs: kills (kill -9) the pod on the last GPU
     once it has computed a unit; the others must finish with the output of
     the run without the kill, bit for bit;

and writes cluster_gpu.md, cluster_gpu.json (after every row) and sched.log
(every scheduler line) to $OUT (or --work). Tensors live in /dev/shm when it
has room (storage is the page cache then, as on the seed's one machine).

Usage: python3 bench/cluster_gpu.py [BIN_DIR | phobos-tools.tar.xz]
           [--sgemm MxNxK,...] [--flash N,...] [--gpus 1,2,4] [--quick]
           [--work DIR] [--variant NAME=V,...]
--variant picks the @autotune values of the matmul leaves and of its
phobos-run (default: the first of each, as phobos-sched does).
Defaults: build-static/dist/bin, else build-static/dist/phobos-tools.tar.xz.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_S = 120
JOB_S = 300


def log(message: str) -> None:
    print(f"[cluster_gpu {time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_tools(given: str | None, work: str) -> str:
    candidates = [given] if given else [
        os.path.join(ROOT, "build-static", "dist", "bin"),
        os.path.join(ROOT, "build-static", "dist", "phobos-tools.tar.xz")]
    for path in candidates:
        if path and os.path.isdir(path):
            return path
        if path and os.path.isfile(path) and path.endswith(".tar.xz"):
            target = os.path.join(work, "tools")
            shutil.rmtree(target, ignore_errors=True)
            with tarfile.open(path) as archive:
                archive.extractall(target)
            return os.path.join(target, "bin")
    sys.exit("cluster_gpu: no tools: give the bin directory or phobos-tools.tar.xz "
             "of scripts/build-static.sh")


def median_ms(fn, warm: int = 1, reps: int = 5) -> float:
    """Fewer repetitions than the suite's: each call is a whole job."""
    return timing.median_ms(fn, warm, reps)


class Cluster:
    """Pods and schedulers on this machine, on loopback ports."""

    def __init__(self, bin_dir: str, work: str, out_dir: str):
        self.bin = bin_dir
        self.work = work
        self.logs = os.path.join(work, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.port = free_port()
        self.pods: list[dict] = []
        #: Where the jobs' outputs are (phobos-sched --storage-root): the
        #: data may be in /dev/shm, away from the job files.
        self.storage_roots: list[str] = [work]
        self.credentials = os.path.join(work, "creds")
        script = os.path.join(bin_dir, "cluster-credentials.sh")
        if not os.path.exists(script):
            script = os.path.join(ROOT, "scripts", "cluster-credentials.sh")
        if shutil.which("openssl"):
            subprocess.run([script, self.credentials], check=True,
                           stdout=subprocess.DEVNULL)
            self.auth = ["--credentials", self.credentials]
        else:
            log("no openssl here: pods and scheduler run --insecure on loopback")
            self.auth = ["--insecure"]
        self.jobs = 0
        # Every line of every scheduler, progress included; stdout gets all
        # but the progress lines.
        os.makedirs(out_dir, exist_ok=True)
        self.log = open(os.path.join(out_dir, "sched.log"), "a", buffering=1)

    def tool(self, name: str) -> str:
        return os.path.join(self.bin, name)

    def start_pods(self, devices: list[int], extra: list[str] | None = None) -> str:
        self.stop_pods()
        for index, device in enumerate(devices):
            name = f"pod{index}-gpu{device}"
            address_file = os.path.join(self.logs, f"{name}.address")
            if os.path.exists(address_file):
                os.unlink(address_file)
            logfile = open(os.path.join(self.logs, f"{name}.log"), "a")
            process = subprocess.Popen(
                [self.tool("phobos-pod"), "--listen", "127.0.0.1:0",
                 "--address-file", address_file, "--device", str(device),
                 "--scheduler", f"127.0.0.1:{self.port}", *self.auth, *(extra or [])],
                stdout=logfile, stderr=subprocess.STDOUT)
            self.pods.append({"name": name, "process": process,
                              "address_file": address_file, "log": logfile.name})
        deadline = time.time() + START_S
        for pod in self.pods:
            while not os.path.exists(pod["address_file"]):
                if pod["process"].poll() is not None or time.time() > deadline:
                    with open(pod["log"]) as f:
                        sys.exit(f"cluster_gpu: {pod['name']} did not start:\n{f.read()}")
                time.sleep(0.05)
            with open(pod["address_file"]) as f:
                pod["address"] = f.read().strip()
        return ",".join(pod["address"] for pod in self.pods)

    def stop_pods(self) -> None:
        for pod in self.pods:
            if pod["process"].poll() is None:
                pod["process"].kill()
            pod["process"].wait()
        self.pods = []

    def run_job(self, job: str, pods: str, on_line=None, progress_ms: int = 500,
                variant: str = "") -> dict:
        self.jobs += 1
        summary = os.path.join(self.logs, f"job{self.jobs}.json")
        argv = [self.tool("phobos-sched"), job, "--pods", pods, "--listen",
                f"127.0.0.1:{self.port}", "--summary-json", summary,
                "--join-timeout", str(START_S), "--progress-ms", str(progress_ms),
                "--storage-root", ",".join(self.storage_roots), *self.auth]
        if variant:
            argv.append(f"--variant={variant}")
        log(" ".join(argv))
        begin = time.time()
        process = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        lines = []
        for line in process.stdout:
            line = line.rstrip("\n")
            lines.append(line)
            self.log.write(line + "\n")
            if "progress:" not in line:
                print(f"  sched| {line}", flush=True)
            if on_line:
                on_line(line)
            if time.time() - begin > JOB_S:
                process.kill()
        code = process.wait()
        result = {"code": code, "wall_s": time.time() - begin, "lines": lines}
        if code == 0 and os.path.exists(summary):
            with open(summary) as f:
                result["summary"] = json.load(f)
        return result


def make_tensor(cluster: Cluster, path: str, shape: str, seed: int) -> None:
    subprocess.run([cluster.tool("phobos-tensor"), "create", path, "--shape", shape,
                    "--fill", "random", "--seed", str(seed)], check=True,
                   stdout=subprocess.DEVNULL)


def load(path: str, rows: int, cols: int) -> torch.Tensor:
    return torch.from_numpy(np.fromfile(path, dtype=np.float32).reshape(rows, cols)).cuda()


def scaled_error(got: torch.Tensor, want: torch.Tensor) -> float:
    """max |got - want| / max |want|: the error at the tensor's scale."""
    return float((got - want).abs().max() / want.abs().max())


def phobos_run(cluster: Cluster, example: str, dims: dict, scalars: dict,
               inits: dict | None = None, variant: str = "") -> dict:
    argv = [cluster.tool("phobos-run"), os.path.join(ROOT, "examples", example),
            "--bench", "--repeat=3", "--warmup=1", "--check", "--samples=256",
            "--json"]
    argv += [f"--dim={k}={v}" for k, v in dims.items()]
    argv += [f"--scalar={k}={v}" for k, v in scalars.items()]
    argv += [f"--init={k}={v}" for k, v in (inits or {}).items()]
    if variant:
        argv.append(f"--variant={variant}")
    log(" ".join(argv))
    proc = subprocess.run(argv, capture_output=True, text=True)
    print(proc.stdout[-2000:], proc.stderr[-2000:], flush=True)
    for line in proc.stdout.splitlines():
        if line.startswith("PHOBOS_RESULT "):
            return json.loads(line[len("PHOBOS_RESULT "):])
    return {"time_ms": float("nan"), "check": "error"}


def busiest_s(result: dict) -> float:
    nodes = result.get("summary", {}).get("nodes", [])
    return max((n["busy_seconds"] for n in nodes), default=float("nan"))


def node_sum(result: dict, key: str) -> int:
    return sum(n.get(key, 0) for n in result.get("summary", {}).get("nodes", []))


def gib(count: float) -> str:
    return f"{count / 2**30:.2f} GiB"


def parse_sgemm(text: str) -> list[tuple[int, int, int]]:
    shapes = []
    for item in filter(None, text.split(",")):
        parts = [int(x) for x in item.lower().split("x")]
        if len(parts) == 1:
            parts = parts * 3
        if len(parts) != 3 or min(parts) <= 0:
            sys.exit(f"cluster_gpu: --sgemm: expected MxNxK or N, got '{item}'")
        shapes.append(tuple(parts))
    return shapes


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tools", nargs="?")
    parser.add_argument("--sgemm", default="20480x20480x20480,40960x40960x8192",
                        help="SGEMM jobs, MxNxK (or N for N^3), comma-separated")
    parser.add_argument("--flash", default="16384,65536",
                        help="attention jobs, Nq = Nk, comma-separated (D = 64)")
    parser.add_argument("--gpus", default="1,2,4",
                        help="GPU counts to run every job on (those the machine has)")
    parser.add_argument("--quick", action="store_true",
                        help="SGEMM 8192^3 and attention 8192 (a smoke run)")
    parser.add_argument("--variant", default="",
                        help="@autotune values of the matmul leaves, NAME=V,...")
    parser.add_argument("--work", default=os.environ.get("OUT", "/tmp/phobos-cluster-gpu"))
    parser.add_argument("--pod-args", default="",
                        help="extra arguments of every phobos-pod (e.g. '--io-threads 8')")
    parser.add_argument("--no-phobos-run", action="store_true",
                        help="skip the one-phobos-run rows (the cluster jobs only)")
    parser.add_argument("--no-kill", action="store_true", help="skip the kill test")
    parser.add_argument("--compare-store-writes", action="store_true",
                        help="also run each SGEMM job on 1 and on the most GPUs with "
                             "the pods' stores written by pwrite (--store-writes write)")
    args = parser.parse_args()
    if args.quick:
        args.sgemm, args.flash = "8192", "8192"
    sgemms = parse_sgemm(args.sgemm)
    flashes = [int(x) for x in filter(None, args.flash.split(","))]
    os.makedirs(args.work, exist_ok=True)
    out_dir = os.environ.get("OUT", args.work)
    bin_dir = find_tools(args.tools, args.work)
    gpus = torch.cuda.device_count()
    log(f"tools {bin_dir}; {gpus} GPU(s): "
        + ", ".join(torch.cuda.get_device_name(i) for i in range(gpus)))
    if gpus == 0:
        sys.exit("cluster_gpu: no GPU")
    counts = sorted({int(x) for x in args.gpus.split(",") if 0 < int(x) <= gpus})
    if not counts:
        sys.exit(f"cluster_gpu: --gpus {args.gpus}: this machine has {gpus} GPU(s)")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    # Storage: the page cache of /dev/shm when it has room.
    need = max([(m * k + k * n + m * n) * 4 for m, n, k in sgemms] +
               [4 * f * 64 * 4 for f in flashes])
    data = os.path.join(args.work, "data")
    if os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free > 2 * need:
        data = "/dev/shm/phobos-cluster-gpu"
    os.makedirs(data, exist_ok=True)
    cluster = Cluster(bin_dir, args.work, out_dir)
    cluster.storage_roots.append(data)
    device = torch.cuda.get_device_name(0)
    rows: list[dict] = []

    def write_table() -> str:
        # Written after every row: a run cut short by its time limit still
        # leaves what it measured.
        lines = [f"Phobos cluster runtime on {gpus} x {device}, {time.strftime('%Y-%m-%d')}"
                 f" (storage: {data}; leaves: {args.variant or 'first @autotune values'})", "",
                 "| workload | where | seconds | peer time / this | speed-up over 1 GPU "
                 "| GPU to GPU (peer copies) | through the host (gRPC) | busiest node busy / job "
                 "| error vs torch | notes |",
                 "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            ratio = f"{r['vs_peer']:.2f}x" if r.get("vs_peer") else ""
            error = (f"{r['error']:.2e}" if isinstance(r["error"], (int, float))
                     else str(r["error"]))
            lines.append(f"| {r['workload']} | {r['where']} | {r['seconds']:.3f} | {ratio} "
                         f"| {r.get('speedup', '')} | {r.get('peer', '')} "
                         f"| {r.get('host', '')} | {r.get('busiest', '')} | {error} "
                         f"| {r['note']} |")
        lines.append("")
        lines.append("error: max |phobos - torch| / max |torch| for the cluster jobs (SGEMM: "
                     "torch float32, TF32 off; attention: float64); phobos-run's own sampled float64 check otherwise. "
                     "busiest node busy / job: the compute time of the node that computed "
                     "longest, as a share of the job's wall time, and max/mean of the nodes' "
                     "busy times (1.00 = balanced).")
        table = "\n".join(lines)
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "cluster_gpu.md"), "w") as handle:
            handle.write(table + "\n")
        with open(os.path.join(out_dir, "cluster_gpu.json"), "w") as handle:
            json.dump({"device": device, "gpus": gpus, "rows": rows}, handle, indent=2)
        return table

    def row(workload: str, where: str, seconds: float, peer_s: float | None,
            error: float | str, note: str = "", **extra) -> None:
        # The project's convention (benchmarks.md): peer time / this time,
        # above 1 when faster than the peer.
        rows.append({"workload": workload, "where": where, "seconds": seconds,
                     "vs_peer": (peer_s / seconds) if peer_s and seconds == seconds
                     and seconds > 0 else None,
                     "error": error, "note": note, **extra})
        log(f"row: {workload} | {where} | {seconds:.3f} s | error {error} | {note}")
        write_table()

    def job_row(workload: str, where: str, result: dict, peer_s: float, check,
                single: dict | None, note: str = "") -> None:
        if result["code"] != 0:
            row(workload, where, float("nan"), None, "FAILED",
                f"exit {result['code']}: " + " / ".join(result["lines"][-3:])[:200])
            return
        summary = result["summary"]
        seconds = summary["seconds"]
        nodes = summary["nodes"]
        busy = [n["busy_seconds"] for n in nodes if n["state"] != "lost"] or [0.0]
        balance = max(busy) / (sum(busy) / len(busy)) if sum(busy) > 0 else float("nan")
        extra = {"peer": gib(node_sum(result, "peer_bytes")),
                 "host": gib(node_sum(result, "fetched_bytes")),
                 "busiest": f"{busiest_s(result) / seconds:.0%} (max/mean {balance:.2f})",
                 "loaded_bytes": node_sum(result, "loaded_bytes"),
                 "stored_bytes": node_sum(result, "stored_bytes"),
                 "nodes": nodes, "plan_seconds": summary["plan_seconds"]}
        if single and single.get("code") == 0:
            t1 = single["summary"]["seconds"]
            extra["speedup"] = (f"**{t1 / seconds:.2f}x** (busy "
                                f"{busiest_s(single) / busiest_s(result):.2f}x)")
        if summary["flops"] > 0:
            note = (f"{summary['flops'] / seconds / 1e12:.1f} TFLOP/s; " + note).rstrip("; ")
        row(workload, where, seconds, peer_s, check(), note, **extra)

    pod_args = args.pod_args.split()

    def pods_on(count: int) -> str:
        return cluster.start_pods(list(range(count)), pod_args)

    def scale(name: str, job: str, peer_s: float, check, variant: str = "") -> tuple:
        """The job on 1, 2, 4 pods, one per GPU (the counts this machine
        has), a row each; returns the 1-GPU result and the last one."""
        single = result = None
        for count in counts:
            result = cluster.run_job(job, pods_on(count), variant=variant)
            if count == 1:
                single = result
            plural = "s" if count > 1 else ""
            job_row(name, f"{count} pod{plural} on {count} GPU{plural} (job)", result, peer_s,
                    check, single if count > 1 else None)
        return single, result

    def remove_tensors(*names: str) -> None:
        for tensor in names:
            path = f"{data}/{tensor}.tensor"
            if os.path.exists(path):
                os.unlink(path)

    try:
        for m, n, k in sgemms:
            name = f"SGEMM {m}x{n}x{k}" if (m, n) != (k, k) else f"SGEMM {m}^3"
            log(f"{name}: creating A {m}x{k} and B {k}x{n}, f32, in {data}")
            make_tensor(cluster, f"{data}/a.tensor", f"{m}x{k}", 1)
            make_tensor(cluster, f"{data}/b.tensor", f"{k}x{n}", 2)
            job = os.path.join(args.work, "sgemm.job")
            with open(job, "w") as handle:
                handle.write(f"source = {ROOT}/examples/cluster_matmul.ph\n"
                             f"tensor A = read  f32 {m}x{k} file://{data}/a.tensor\n"
                             f"tensor B = read  f32 {k}x{n} file://{data}/b.tensor\n"
                             f"tensor C = write f32 {m}x{n} file://{data}/c.tensor\n"
                             "scalar alpha = f32 1.0\nscalar beta = f32 0.0\n")
            a = load(f"{data}/a.tensor", m, k)
            b = load(f"{data}/b.tensor", k, n)
            c_ref = torch.empty(m, n, device="cuda")
            cublas_ms = median_ms(lambda: torch.matmul(a, b, out=c_ref))
            torch.matmul(a, b, out=c_ref)
            del a, b
            cublas_s = cublas_ms / 1e3
            flops = 2.0 * m * n * k

            def check_c() -> float:
                return scaled_error(load(f"{data}/c.tensor", m, n), c_ref)

            row(name, "cuBLAS (torch, TF32 off), 1 GPU", cublas_s, cublas_s, 0.0,
                f"{flops / cublas_s / 1e12:.1f} TFLOP/s")
            # Constant inputs: phobos-run fills random ones on one CPU thread,
            # minutes at these sizes; the kernel's time does not depend on them.
            one = {} if args.no_phobos_run else phobos_run(cluster, "cluster_matmul.ph", {"M": m, "N": n, "K": k},
                             {"alpha": 1.0, "beta": 0.0},
                             {"A": 0.5, "B": 0.25, "C": 0.0}, variant=args.variant)
            t = one.get("time_ms", float("nan")) / 1e3
            if one:
                row(name, "one phobos-run, 1 GPU (kernel only)", t, cublas_s,
                    one.get("max_rel_err", "?"),
                    f"{flops / t / 1e12:.1f} TFLOP/s; check {one.get('check')}")
            if gpus == 1:
                result = cluster.run_job(job, cluster.start_pods([0, 0, 0, 0], pod_args),
                                         variant=args.variant)
                job_row(name, "4 pods on 1 GPU (job)", result, cublas_s, check_c, None)
            last = None
            single, result = scale(name, job, cublas_s, check_c, args.variant)
            if result["code"] == 0:
                last = load(f"{data}/c.tensor", m, n)
            # The pods' default stores (a shared mapping on tmpfs) against
            # pwrite, which takes turns on the output file's lock.
            if args.compare_store_writes:
                for count in sorted({counts[0], counts[-1]}):
                    result = cluster.run_job(
                        job, cluster.start_pods(list(range(count)),
                                           pod_args + ["--store-writes", "write"]),
                        variant=args.variant)
                    job_row(name, f"{count} GPU{'s' if count > 1 else ''}, stores by pwrite "
                            "(--store-writes write)", result, cublas_s, check_c,
                            single if count > 1 else None)
            # A GPU pod killed mid-job: the others finish, with the same output.
            if counts[-1] >= 2 and not args.no_kill:
                count = counts[-1]
                pods = pods_on(count)
                victim = count - 1
                killed: list[float] = []

                def kill_last(line: str) -> None:
                    match = re.search(rf"progress: node {victim}: .*, (\d+) computes?,", line)
                    if not killed and match and int(match.group(1)) >= 1:
                        cluster.pods[victim]["process"].send_signal(signal.SIGKILL)
                        killed.append(time.time())
                        log(f"killed the pod on GPU {victim} (kill -9)")

                result = cluster.run_job(job, pods, on_line=kill_last, progress_ms=100,
                                         variant=args.variant)
                where = f"{count} GPUs, the pod on GPU {victim} killed (kill -9) mid-job"
                if result["code"] == 0 and not killed:
                    row(name, where, result["summary"]["seconds"], None, "not killed",
                        "the job ended before the pod had computed a unit")
                elif result["code"] == 0 and result["summary"]["lost"] == 0:
                    row(name, where, result["summary"]["seconds"], None, "not killed",
                        "the pod finished before it was killed")
                else:
                    same = ""
                    if result["code"] == 0 and last is not None:
                        same = ("output bit for bit equal to the run without the kill"
                                if torch.equal(load(f"{data}/c.tensor", m, n), last)
                                else "OUTPUT DIFFERS from the run without the kill")
                    lost = [l.split("sched: ")[-1][:100] for l in result["lines"]
                            if "lost:" in l or "re-planned" in l]
                    job_row(name, where, result, cublas_s, check_c, single,
                            "; ".join([same] + lost[:2]))
            cluster.stop_pods()
            del c_ref, last
            torch.cuda.empty_cache()
            remove_tensors("a", "b", "c")

        for f in flashes:
            name = f"attention f32 N={f} D=64"
            log(f"{name}: creating Q, K, V, {f}x64 f32")
            for tensor, seed in (("q", 4), ("k", 5), ("v", 6)):
                make_tensor(cluster, f"{data}/{tensor}.tensor", f"{f}x64", seed)
            job = os.path.join(args.work, "flash.job")
            with open(job, "w") as handle:
                handle.write(f"source = {ROOT}/examples/cluster_flash_attention.ph\n"
                             f"dim Nq = {f}\n"
                             f"tensor Q = read  f32 {f}x64 file://{data}/q.tensor\n"
                             f"tensor K = read  f32 {f}x64 file://{data}/k.tensor\n"
                             f"tensor V = read  f32 {f}x64 file://{data}/v.tensor\n"
                             f"tensor O = write f32 {f}x64 file://{data}/o.tensor\n"
                             "scalar scale = f32 0.125\n")
            q = load(f"{data}/q.tensor", f, 64)
            k = load(f"{data}/k.tensor", f, 64)
            v = load(f"{data}/v.tensor", f, 64)
            sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(
                q[None, None], k[None, None], v[None, None], scale=0.125)
            sdpa_s = median_ms(sdpa) / 1e3
            # The reference in float64 on the GPU, by blocks of queries.
            o_ref = torch.cat([
                torch.softmax((q[i:i + 4096].double() @ k.double().T) * 0.125, dim=-1)
                @ v.double() for i in range(0, f, 4096)]).float()
            del q, k, v

            def check_o() -> float:
                return scaled_error(load(f"{data}/o.tensor", f, 64), o_ref)

            row(name, "torch SDPA f32, 1 GPU", sdpa_s, sdpa_s, 0.0, "")
            if not args.no_phobos_run:
                one = phobos_run(cluster, "cluster_flash_attention.ph", {"Nq": f, "Nk": f},
                                 {"scale": 0.125})
                row(name, "one phobos-run, 1 GPU (kernel only)",
                    one.get("time_ms", float("nan")) / 1e3, sdpa_s,
                    one.get("max_rel_err", "?"), f"check {one.get('check')}")
            if gpus == 1:
                result = cluster.run_job(job, cluster.start_pods([0, 0, 0, 0], pod_args))
                job_row(name, "4 pods on 1 GPU (job)", result, sdpa_s, check_o, None)
            scale(name, job, sdpa_s, check_o)
            cluster.stop_pods()
            del o_ref
            remove_tensors("q", "k", "v", "o")
    finally:
        cluster.stop_pods()

    print("\n" + write_table(), flush=True)
    if data.startswith("/dev/shm"):
        shutil.rmtree(data, ignore_errors=True)
    return 0 if all(r["error"] not in ("FAILED", "not killed") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

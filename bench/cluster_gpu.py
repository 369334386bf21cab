#!/usr/bin/env python3
"""The cluster runtime on the GPU machine, next to one phobos-run and cuBLAS.

Runs from a checkout plus the self-contained tools of scripts/build-static.sh
(phobos-sched, phobos-pod, phobos-tensor, phobos-run; a bin directory or the
phobos-tools.tar.xz it packs). In one run it

  1. starts 4 GPU pods on GPU 0 and a scheduler (mutual TLS with credentials
     made here by cluster-credentials.sh), and runs the SGEMM job
     (examples/cluster_matmul.ph, M = N = K = 20480, as in the seed) and the
     flash attention job (examples/cluster_flash_attention.ph, Nq = Nk =
     16384, D = 64), checking each output against torch in float32;
  2. times the same work in one phobos-run (the whole kernel, one launch) and
     with cuBLAS / torch SDPA (TF32 off), median of CUDA events;
  3. where 2 GPUs exist: the SGEMM job on 1 pod on GPU 0, then on 2 pods on
     GPUs 0 and 1 (the speed-up), then on 2 pods again with the pod on GPU 1
     killed (kill -9) mid-job, which the pod left must finish correctly;

and prints a table, and writes cluster_gpu.json and cluster_gpu.md to $OUT
(or --work). Tensors live in /dev/shm when it has room (storage is the page
cache then, as on the seed's one machine), else in --work.

Usage: python3 bench/cluster_gpu.py [BIN_DIR | phobos-tools.tar.xz]
           [--size 20480] [--flash 16384] [--quick] [--work DIR]
           [--variant NAME=V,...]
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
JOB_S = 600


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

    def __init__(self, bin_dir: str, work: str):
        self.bin = bin_dir
        self.work = work
        self.logs = os.path.join(work, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.port = free_port()
        self.pods: list[dict] = []
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

    def tool(self, name: str) -> str:
        return os.path.join(self.bin, name)

    def start_pods(self, devices: list[int]) -> str:
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
                 "--scheduler", f"127.0.0.1:{self.port}", *self.auth],
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
                *self.auth]
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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tools", nargs="?")
    parser.add_argument("--size", type=int, default=20480)
    parser.add_argument("--flash", type=int, default=16384)
    parser.add_argument("--quick", action="store_true",
                        help="SGEMM 8192^3 and attention 8192 (a smoke run)")
    parser.add_argument("--variant", default="",
                        help="@autotune values of the matmul leaves, NAME=V,...")
    parser.add_argument("--work", default=os.environ.get("OUT", "/tmp/phobos-cluster-gpu"))
    args = parser.parse_args()
    if args.quick:
        args.size, args.flash = 8192, 8192
    os.makedirs(args.work, exist_ok=True)
    out_dir = os.environ.get("OUT", args.work)
    bin_dir = find_tools(args.tools, args.work)
    gpus = torch.cuda.device_count()
    log(f"tools {bin_dir}; {gpus} GPU(s): "
        + ", ".join(torch.cuda.get_device_name(i) for i in range(gpus)))
    if gpus == 0:
        sys.exit("cluster_gpu: no GPU")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    # Storage: the page cache of /dev/shm when it has room.
    need = 3 * args.size * args.size * 4 + 4 * args.flash * 64 * 4
    data = os.path.join(args.work, "data")
    if os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free > 2 * need:
        data = "/dev/shm/phobos-cluster-gpu"
    os.makedirs(data, exist_ok=True)
    cluster = Cluster(bin_dir, args.work)
    rows: list[dict] = []
    n, f = args.size, args.flash

    def row(workload: str, seconds: float, base: float | None, error: float | str,
            note: str = "") -> None:
        # The project's convention (benchmarks.md): peer time / this time,
        # above 1 when faster than the peer.
        rows.append({"workload": workload, "seconds": seconds,
                     "vs_cublas": (base / seconds) if base and seconds == seconds
                     and seconds > 0 else None,
                     "error": error, "note": note})

    try:
        # The SGEMM job: A, B random in [-1, 1); C written.
        log(f"creating A and B, {n}x{n} f32, in {data}")
        make_tensor(cluster, f"{data}/a.tensor", f"{n}x{n}", 1)
        make_tensor(cluster, f"{data}/b.tensor", f"{n}x{n}", 2)
        sgemm_job = os.path.join(args.work, "sgemm.job")
        with open(sgemm_job, "w") as job:
            job.write(f"source = {ROOT}/examples/cluster_matmul.ph\n"
                      f"tensor A = read  f32 {n}x{n} file://{data}/a.tensor\n"
                      f"tensor B = read  f32 {n}x{n} file://{data}/b.tensor\n"
                      f"tensor C = write f32 {n}x{n} file://{data}/c.tensor\n"
                      "scalar alpha = f32 1.0\nscalar beta = f32 0.0\n")
        q_rows = f
        log(f"creating Q, K, V, {f}x64 f32")
        for name, seed in (("q", 4), ("k", 5), ("v", 6)):
            make_tensor(cluster, f"{data}/{name}.tensor", f"{f}x64", seed)
        flash_job = os.path.join(args.work, "flash.job")
        with open(flash_job, "w") as job:
            job.write(f"source = {ROOT}/examples/cluster_flash_attention.ph\n"
                      f"dim Nq = {q_rows}\n"
                      f"tensor Q = read  f32 {q_rows}x64 file://{data}/q.tensor\n"
                      f"tensor K = read  f32 {f}x64 file://{data}/k.tensor\n"
                      f"tensor V = read  f32 {f}x64 file://{data}/v.tensor\n"
                      f"tensor O = write f32 {q_rows}x64 file://{data}/o.tensor\n"
                      "scalar scale = f32 0.125\n")

        # The references and the peers, in this process.
        a = load(f"{data}/a.tensor", n, n)
        b = load(f"{data}/b.tensor", n, n)
        c_ref = torch.empty_like(a)
        cublas_ms = median_ms(lambda: torch.matmul(a, b, out=c_ref))
        torch.matmul(a, b, out=c_ref)
        flops = 2.0 * n ** 3
        q = load(f"{data}/q.tensor", q_rows, 64)
        k = load(f"{data}/k.tensor", f, 64)
        v = load(f"{data}/v.tensor", f, 64)
        o_ref = torch.softmax((q @ k.T) * 0.125, dim=-1) @ v
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(
            q[None, None], k[None, None], v[None, None], scale=0.125)
        sdpa_ms = median_ms(sdpa)

        def check_c() -> float:
            return scaled_error(load(f"{data}/c.tensor", n, n), c_ref)

        def check_o() -> float:
            return scaled_error(load(f"{data}/o.tensor", q_rows, 64), o_ref)

        # 4 pods on GPU 0.
        pods = cluster.start_pods([0, 0, 0, 0])
        sgemm4 = cluster.run_job(sgemm_job, pods, variant=args.variant)
        if sgemm4["code"] == 0:
            s = sgemm4["summary"]["seconds"]
            row(f"SGEMM {n}^3: 4 pods on 1 GPU (job, incl. loads/stores)", s,
                cublas_ms / 1e3, check_c(),
                f"{flops / s / 1e12:.2f} TFLOP/s; busiest pod computes "
                f"{busiest_s(sgemm4):.2f} s; plan+compile "
                f"{sgemm4['summary']['plan_seconds']:.2f} s")
        else:
            row(f"SGEMM {n}^3: 4 pods on 1 GPU", float("nan"), None, "FAILED")
        flash4 = cluster.run_job(flash_job, pods)
        if flash4["code"] == 0:
            row(f"attention f32 N={f} D=64: 4 pods on 1 GPU (job)",
                flash4["summary"]["seconds"], sdpa_ms / 1e3, check_o(),
                f"busiest pod computes {busiest_s(flash4):.2f} s")
        else:
            row(f"attention N={f}: 4 pods on 1 GPU", float("nan"), None, "FAILED")
        cluster.stop_pods()

        # One phobos-run of the same kernels; the peers.
        # Constant inputs: phobos-run fills random ones on one CPU thread,
        # minutes for 3 x 20480^2; the time of the kernel does not depend on
        # the values.
        one = phobos_run(cluster, "cluster_matmul.ph", {"M": n, "N": n, "K": n},
                         {"alpha": 1.0, "beta": 0.0},
                         {"A": 0.5, "B": 0.25, "C": 0.0}, variant=args.variant)
        row(f"SGEMM {n}^3: one phobos-run (kernel only)", one.get("time_ms", float("nan")) / 1e3,
            cublas_ms / 1e3, one.get("max_rel_err", "?"), f"check {one.get('check')}")
        row(f"SGEMM {n}^3: cuBLAS (torch, TF32 off)", cublas_ms / 1e3, cublas_ms / 1e3, 0.0,
            f"{flops / cublas_ms / 1e9:.2f} TFLOP/s")
        one = phobos_run(cluster, "cluster_flash_attention.ph",
                         {"Nq": q_rows, "Nk": f}, {"scale": 0.125})
        row(f"attention N={f}: one phobos-run (kernel only)",
            one.get("time_ms", float("nan")) / 1e3, sdpa_ms / 1e3,
            one.get("max_rel_err", "?"), f"check {one.get('check')}")
        row(f"attention N={f}: torch SDPA f32", sdpa_ms / 1e3, sdpa_ms / 1e3, 0.0, "")

        # Two GPUs: the speed-up, and a GPU pod killed mid-job.
        if gpus >= 2:
            pods = cluster.start_pods([0])
            single = cluster.run_job(sgemm_job, pods, variant=args.variant)
            pods = cluster.start_pods([0, 1])
            double = cluster.run_job(sgemm_job, pods, variant=args.variant)
            if single["code"] == 0 and double["code"] == 0:
                t1, t2 = single["summary"]["seconds"], double["summary"]["seconds"]
                row(f"SGEMM {n}^3: 1 pod on GPU 0", t1, cublas_ms / 1e3, check_c(),
                    f"busiest pod computes {busiest_s(single):.2f} s")
                row(f"SGEMM {n}^3: 2 pods on GPUs 0, 1", t2, cublas_ms / 1e3, check_c(),
                    f"speed-up {t1 / t2:.2f}x over one GPU (busy: "
                    f"{busiest_s(single) / busiest_s(double):.2f}x); GPU-to-GPU "
                    f"{sum(x['peer_bytes'] for x in double['summary']['nodes']) / 2**30:.2f} GiB")
            else:
                row("SGEMM on 1 and 2 GPUs", float("nan"), None, "FAILED")
            pods = cluster.start_pods([0, 1])
            killed = []

            def kill_gpu1(line: str) -> None:
                match = re.search(r"progress: node 1: .*, (\d+) computes?,", line)
                if not killed and match and int(match.group(1)) >= 1:
                    cluster.pods[1]["process"].send_signal(signal.SIGKILL)
                    killed.append(time.time())
                    log("killed the pod on GPU 1 (kill -9)")

            kill = cluster.run_job(sgemm_job, pods, on_line=kill_gpu1, progress_ms=100,
                                   variant=args.variant)
            lost = [l for l in kill["lines"] if "lost:" in l or "re-planned" in l]
            if kill["code"] == 0 and killed and kill["summary"]["lost"] == 0:
                row("SGEMM kill test on 2 GPUs", kill["summary"]["seconds"], None,
                    "not killed", "the pod on GPU 1 finished before it was killed")
            elif kill["code"] == 0 and killed:
                row(f"SGEMM {n}^3: 2 GPUs, the pod on GPU 1 killed mid-job",
                    kill["summary"]["seconds"], cublas_ms / 1e3, check_c(),
                    "; ".join(l.split("sched: ")[-1][:90] for l in lost))
            else:
                row("SGEMM kill test on 2 GPUs", float("nan"), None,
                    "FAILED" if kill["code"] else "not killed")
            cluster.stop_pods()
        else:
            log("one GPU: the 2-GPU speed-up and kill test need nvidia-h200-x2")
    finally:
        cluster.stop_pods()

    # The table.
    device = torch.cuda.get_device_name(0)
    lines = [f"Phobos cluster runtime on {gpus} x {device}, {time.strftime('%Y-%m-%d')}"
             f" (storage: {data})", "",
             "| workload | seconds | cuBLAS (SDPA) time / this | error vs torch f32 | notes |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        ratio = f"{r['vs_cublas']:.2f}x" if r["vs_cublas"] else ""
        error = f"{r['error']:.2e}" if isinstance(r["error"], (int, float)) else str(r["error"])
        lines.append(f"| {r['workload']} | {r['seconds']:.3f} | {ratio} | {error} | {r['note']} |")
    lines.append("")
    lines.append("error: max |phobos - torch| / max |torch| for the cluster jobs (torch "
                 "float32, TF32 off); phobos-run's own sampled float64 check otherwise.")
    table = "\n".join(lines)
    print("\n" + table, flush=True)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "cluster_gpu.md"), "w") as handle:
        handle.write(table + "\n")
    with open(os.path.join(out_dir, "cluster_gpu.json"), "w") as handle:
        json.dump({"device": device, "gpus": gpus, "rows": rows}, handle, indent=2)
    if data.startswith("/dev/shm"):
        shutil.rmtree(data, ignore_errors=True)
    return 0 if all(r["error"] not in ("FAILED", "not killed") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

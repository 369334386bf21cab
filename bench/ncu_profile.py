#!/usr/bin/env python3
"""Profiles Phobos kernels and their peers with Nsight Compute on the GPU machine.

Usage: python3 bench/ncu_profile.py BINDIR [--only=WORD,...] [--out=DIR] [--persistent]

For each case, ncu profiles one launch of the kernel (phobos-run with --check, so
the launch is the checked one) and prints a short table: time, SM and memory
throughput, achieved occupancy, registers, the busiest pipes and the top warp
stall reasons. The peers' kernels (cuBLAS, SDPA, Triton) are profiled from a
torch script so their names (which carry cuBLAS's tile shape), registers and
grids sit beside ours. Full ncu reports are written under --out when given.
With --persistent, a copy of each example that says @persistent is profiled
as well ("Phobos persistent").
"""
import csv
import io
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build-static/dist/bin"
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
OUT = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--out=")), None)
PERSISTENT = "--persistent" in sys.argv

CASES = [
    ("tf32", "gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64},
     {"alpha": 1.0, "beta": 0.0}),
    ("tf32wide", "gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, {"TILE_M": 256, "TILE_N": 128, "TILE_K": 32},
     {"alpha": 1.0, "beta": 0.0}),
    ("attention", "flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096}, {"D": 64, "BR": 128, "BC": 64},
     {"scale": 0.125}),
    ("attention128", "flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096},
     {"D": 128, "BR": 128, "BC": 128}, {"scale": 0.088}),
    # Issue 45's short sequences at D 128, where the example is furthest behind SDPA.
    ("attention128short", "flash_attention_fp16.ph", {"BH": 512, "Nq": 512, "Nk": 512},
     {"D": 128, "BR": 128, "BC": 128}, {"scale": 0.088}),
    ("softmax", "softmax.ph", {"M": 32768, "N": 4096}, {"BM": 1, "BN": 1024}, {}),
    ("softmax4096", "softmax.ph", {"M": 32768, "N": 4096}, {"BM": 1, "BN": 4096}, {}),
    ("sgemm", "sgemm_fp32.ph", {"M": 4096, "N": 4096, "K": 4096},
     {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32, "STAGES": 3}, {"alpha": 1.0, "beta": 0.0}),
    ("sgemm128threads", "sgemm_fp32.ph", {"M": 4096, "N": 4096, "K": 4096},
     {"TILE_M": 128, "TILE_N": 128, "TILE_K": 16, "STAGES": 3, "THREADS": 128}, {"alpha": 1.0, "beta": 0.0}),
    ("sgemm64x128", "sgemm_fp32.ph", {"M": 4096, "N": 4096, "K": 4096},
     {"TILE_M": 64, "TILE_N": 128, "TILE_K": 16, "STAGES": 1, "THREADS": 128}, {"alpha": 1.0, "beta": 0.0}),
    ("hgemm", "gemm_f16_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64},
     {"alpha": 1.0, "beta": 0.0}),
    ("hgemm8192", "gemm_f16_tc.ph", {"M": 8192, "N": 8192, "K": 8192}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64},
     {"alpha": 1.0, "beta": 0.0}),
    # Issue 45's ragged, short-K shape, where the example is at 0.74-0.80x of cuBLAS.
    ("hgemmragged", "gemm_f16_tc.ph", {"M": 4100, "N": 4104, "K": 1000},
     {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}, {"alpha": 1.0, "beta": 0.0}),
]

PEERS = r"""
import torch, sys
sys.path.insert(0, "bench")
import triton_peers
kind = sys.argv[1]
dev = "cuda"
if kind.startswith("tf32"):
    torch.backends.cuda.matmul.allow_tf32 = True
    a = torch.randn(4096, 4096, device=dev); b = torch.randn(4096, 4096, device=dev)
    torch.matmul(a, b)
elif kind.startswith("attention"):
    d = 128 if kind.startswith("attention128") else 64
    bh, n = (512, 512) if kind == "attention128short" else (128, 4096)
    q = torch.randn(1, bh, n, d, device=dev, dtype=torch.float16); k = torch.randn_like(q); v = torch.randn_like(q)
    torch.nn.functional.scaled_dot_product_attention(q, k, v)
elif kind.startswith("softmax"):
    x = torch.randn(32768, 4096, device=dev); torch.softmax(x, dim=-1)
elif kind.startswith("sgemm"):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(4096, 4096, device=dev); b = torch.randn(4096, 4096, device=dev)
    torch.matmul(a, b)
elif kind == "hgemmragged":
    a = torch.randn(4100, 1000, device=dev, dtype=torch.float16)
    b = torch.randn(1000, 4104, device=dev, dtype=torch.float16)
    torch.matmul(a, b)
elif kind.startswith("hgemm"):
    n = 8192 if kind == "hgemm8192" else 4096
    a = torch.randn(n, n, device=dev, dtype=torch.float16); b = torch.randn_like(a)
    torch.matmul(a, b)
torch.cuda.synchronize()
"""

METRICS = {
    "gpu__time_duration.sum": "time us",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM %",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM %",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2 %",
    "lts__t_sector_hit_rate.pct": "L2 hit %",
    "dram__bytes_read.sum": "DRAM read",
    "l1tex__throughput.avg.pct_of_peak_sustained_active": "L1 %",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy %",
    "launch__registers_per_thread": "regs",
    "launch__block_size": "block",
    "launch__grid_size": "grid",
    "launch__occupancy_limit_registers": "CTAs/SM (regs)",
    "launch__occupancy_limit_shared_mem": "CTAs/SM (smem)",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue %",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": "GMMA pipe %",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "HMMA pipe %",
    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active": "XU (MUFU) %",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA pipe %",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active": "ALU pipe %",
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active": "LSU %",
}
STALLS = ["barrier", "long_scoreboard", "short_scoreboard", "wait", "math_pipe_throttle", "mio_throttle",
          "lg_throttle", "membar", "sleeping", "dispatch_stall", "not_selected", "selected", "no_instruction",
          "branch_resolving", "tex_throttle", "drain", "imc_miss", "misc"]
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


DROPPED = set()


def ncu(cmd: list, kernel_regex: str | None, report: str | None) -> list:
    """One profiled launch; metrics this ncu does not know are dropped (and named) and it retries."""
    for _ in range(8):
        metrics = [m for m in list(METRICS) + [STALL_METRIC.format(s) for s in STALLS] if m not in DROPPED]
        args = ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--metrics", ",".join(metrics),
                "--launch-count", "1"]
        if kernel_regex:
            args += ["-k", "regex:" + kernel_regex]
        if report:
            args += ["--export", report, "--force-overwrite"]
        proc = subprocess.run(args + cmd, capture_output=True, text=True, cwd=ROOT)
        text = proc.stdout
        start = text.find('"ID"')
        if start >= 0:
            rows = list(csv.DictReader(io.StringIO(text[start:])))
            units = next((r for r in rows if not r.get("ID")), {})
            out = [r for r in rows if r.get("ID", "").isdigit()]
            for r in out:
                r["__unit__gpu__time_duration.sum"] = units.get("gpu__time_duration.sum", "")
            return out
        err = proc.stderr + proc.stdout
        bad = [m for m in metrics if m in err and ("find metric" in err or "nvalid" in err)]
        if not bad:
            print("ncu failed:", err[-1500:], flush=True)
            return []
        print("ncu does not know:", ", ".join(bad), flush=True)
        DROPPED.update(bad)
    return []


def show(label: str, row: dict) -> None:
    name = row.get("Kernel Name", "?")
    print(f"\n== {label}: {name[:150]}")
    cells = []
    for metric, short in METRICS.items():
        value = row.get(metric)
        if value not in (None, "", "n/a"):
            if metric == "gpu__time_duration.sum":
                unit = row.get("__unit__" + metric, "")
                value = value + unit
            cells.append(f"{short}={value}")
    print("  " + ", ".join(cells))
    stalls = []
    for s in STALLS:
        try:
            stalls.append((float(row.get(STALL_METRIC.format(s), "nan").replace(",", "")), s))
        except ValueError:
            pass
    stalls = sorted((v, s) for v, s in stalls if v == v)[::-1][:6]
    print("  stalls (warps per issue): " + ", ".join(f"{s}={v:.2f}" for v, s in stalls))


def main() -> None:
    summary = []
    for key, example, dims, variant, scalars in CASES:
        if ONLY and not any(w in key for w in ONLY):
            continue
        sources = [("Phobos", os.path.join(ROOT, "examples", example))]
        if PERSISTENT:
            from phobos_run import specialised_copy
            sources.append(("Phobos persistent",
                            specialised_copy(example, "/tmp", decorator="@persistent")))
        for who, path in sources:
            cmd = [os.path.join(BIN, "phobos-run"), path, "--check", "--samples=64"]
            cmd += [f"--dim={k}={v}" for k, v in dims.items()]
            cmd.append("--variant=" + ",".join(f"{k}={v}" for k, v in variant.items()))
            cmd += [f"--scalar={k}={v}" for k, v in scalars.items()]
            tag = who.replace(" ", "_").lower()
            report = os.path.join(OUT, f"{tag}_{key}") if OUT else None
            rows = ncu(cmd, None, report)
            for row in rows[:1]:
                show(f"{who} {key} {variant}", row)
                summary.append((key, who, row))
        script = os.path.join("/tmp", "ncu_peer.py")
        with open(script, "w") as f:
            f.write(PEERS)
        report = os.path.join(OUT, f"peer_{key}") if OUT else None
        peer_kernel = ("flash|fmha|attention|sdpa" if key.startswith("attention") else
                       "softmax" if key.startswith("softmax") else "gemm|xmma|cutlass|sm90")
        rows = ncu(["python3", script, key], peer_kernel, report)
        for row in rows[-1:]:
            show(f"peer {key}", row)
            summary.append((key, "peer", row))
    print("\n| case | who | time | regs | block | grid | occupancy % | issue % | GMMA % | XU % | DRAM % | "
          "DRAM read | L2 hit % | L2 % |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key, who, row in summary:
        def g(m):
            return row.get(m, "")
        print(f"| {key} | {who} | {g('gpu__time_duration.sum')} | {g('launch__registers_per_thread')} | "
              f"{g('launch__block_size')} | {g('launch__grid_size')} | "
              f"{g('sm__warps_active.avg.pct_of_peak_sustained_active')} | "
              f"{g('smsp__issue_active.avg.pct_of_peak_sustained_active')} | "
              f"{g('sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active')} | "
              f"{g('sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active')} | "
              f"{g('dram__throughput.avg.pct_of_peak_sustained_elapsed')} | "
              f"{g('dram__bytes_read.sum')} | {g('lts__t_sector_hit_rate.pct')} | "
              f"{g('lts__throughput.avg.pct_of_peak_sustained_elapsed')} |")


if __name__ == "__main__":
    main()

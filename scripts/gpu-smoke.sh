#!/usr/bin/env bash
# Quick GPU correctness pass over every example at small, ragged sizes.
# Usage (on the GPU machine): scripts/gpu-smoke.sh BINDIR
set -uo pipefail
bin=${1:-build-static/dist/bin}
run() {
  local file=$1; shift
  out=$("$bin/phobos-run" "examples/$file" --check "$@" 2>&1)
  status=$?
  echo "$out" | head -4
  [ $status -eq 0 ] || echo "FAILED: $file $*"
}
run saxpy_fp32.ph --dim N=1000 --variant BLOCK=1024
run saxpy_fp32.ph --dim N=100003 --variant BLOCK=256
run vector_add.ph --dim N=5000
run sgemm_fp32.ph --dim M=100 --dim N=70 --dim K=33
run sgemm_fp32.ph --dim M=256 --dim N=256 --dim K=256 --variant TILE_M=128,TILE_N=128,TILE_K=8
run gemm_f32_tc.ph --dim M=100 --dim N=70 --dim K=40
run gemm_f16_tc.ph --dim M=100 --dim N=70 --dim K=40
run gemm_f16_tc.ph --dim M=256 --dim N=256 --dim K=256 --variant TILE_M=64,TILE_N=128,TILE_K=32
run softmax.ph --dim M=7 --dim N=1000
run softmax.ph --dim M=33 --dim N=5000 --variant BM=4,BN=4096
run layernorm.ph --dim M=7 --dim N=1000
run flash_attention_fp32.ph --dim BH=2 --dim Nq=100 --dim Nk=77
run flash_attention_fp16.ph --dim BH=2 --dim Nq=100 --dim Nk=77
run kda_chunk.ph --dim BH=2 --dim T=100
run cluster_matmul.ph --dim M=64 --dim N=64 --dim K=64
run cluster_flash_attention.ph --dim Nq=100 --dim Nk=77

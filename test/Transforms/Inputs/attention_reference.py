"""Checks a `phobos-run --save` folder of Inputs/attention_causal_f16.ph
against float64: O = softmax(scale * Q K^T [+ causal mask]) V and the
log-sum-exp of each row. Prints each output's largest error relative to
the largest reference value; exits 1 past 4e-3 (O is stored in f16, P is
rounded to f16 for P @ V). Usage: attention_reference.py DIR SCALE CAUSAL"""
import os
import sys

import numpy as np

folder, scale, causal = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1"
read = lambda name: np.load(os.path.join(folder, name)).astype(np.float64)
q, k, v = (read(f"{name}.in.npy") for name in "qkv")
s = scale * q @ k.transpose(0, 2, 1)
if causal:
    n = s.shape[-1]
    s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
m = s.max(-1, keepdims=True)
p = np.exp(s - m)
want = {"o": p @ v / p.sum(-1, keepdims=True), "lse": (m + np.log(p.sum(-1, keepdims=True)))[..., 0]}
ok = True
for name, expected in want.items():
    got = read(f"{name}.out.npy")
    error = float(np.max(np.abs(got - expected))) / max(float(np.max(np.abs(expected))), 1e-30)
    good = got.shape == expected.shape and error <= 4e-3 and not np.isnan(got).any()
    print(f"{name}: {'ok' if good else 'WRONG'} ({error:.1e})")
    ok &= good
sys.exit(0 if ok else 1)

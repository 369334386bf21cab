"""Exits 0 when two `phobos-run --save` folders hold the same outputs
(every NAME.out.npy equal to 1e-6 relative to the largest magnitude), and
prints the largest difference of each. Usage: same_outputs.py DIR DIR"""
import os
import sys

import numpy as np

first, second = sys.argv[1:3]
names = sorted(n for n in os.listdir(first) if n.endswith(".out.npy"))
if not names:
    sys.exit(f"no outputs in {first}")
ok = True
for name in names:
    a = np.load(os.path.join(first, name)).astype(np.float64)
    b = np.load(os.path.join(second, name)).astype(np.float64)
    scale = max(float(np.max(np.abs(a))), 1e-30)
    error = float(np.max(np.abs(a - b))) / scale
    same = a.shape == b.shape and error <= 1e-6 and not np.isnan(b).any()
    print(f"{name[:-len('.out.npy')]}: {'same' if same else 'DIFFERENT'} ({error:.1e})")
    ok &= same
sys.exit(0 if ok else 1)

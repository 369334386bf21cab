"""Writes a 1-D float32 .npy file from its values (inf, -inf and nan
allowed), without NumPy: write-npy.py PATH VALUE..."""
import struct
import sys

path, values = sys.argv[1], [float(v) for v in sys.argv[2:]]
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(path, "wb") as out:
    out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    out.write(struct.pack("<%df" % len(values), *values))

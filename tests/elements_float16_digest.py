#!/usr/bin/env python3
"""elements_float16_digest.py — the digest test_elements.c compares relay's
float32 -> float16 conversion with, made by numpy.

  elements_float16_digest.py            prints the digest (about a minute)

numpy's astype(float16) converts every float32 pattern, binade by binade in
order of their bits (sign, then exponent field; 2^23 mantissas each).  Each
binade's float16 outputs, with every NaN written 0x7e00 with its sign
(numpy keeps a signalling NaN unquieted, relay quiets it: NaN-ness and sign
are compared, payloads are test_elements.c's own check), are hashed with
XXH3-64 (libxxhash, through ctypes), and the 512 hashes, as little-endian
uint64, hashed again.  Run it with another numpy to check the committed
value: the digest names the outputs, not the numpy that made them.
"""

import ctypes
import ctypes.util

import numpy as np

BINADE = 1 << 23


def xxh3_64():
    lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return lambda a: lib.XXH3_64bits(a.ctypes.data, a.nbytes)


def binade_outputs(c, mantissas):
    sign, exponent = c >> 8, c & 0xFF
    bits = np.uint32(sign << 31 | exponent << 23) | mantissas
    half = bits.view(np.float32).astype(np.float16).view(np.uint16)
    nan = (half & 0x7FFF) > 0x7C00
    half[nan] = (half[nan] & 0x8000) | 0x7E00
    return half


def main():
    hash64 = xxh3_64()
    mantissas = np.arange(BINADE, dtype=np.uint32)
    with np.errstate(over="ignore", invalid="ignore"):
        digests = np.array([hash64(binade_outputs(c, mantissas)) for c in range(512)], dtype="<u8")
    print(f"0x{hash64(digests):016x}  numpy {np.__version__}")


if __name__ == "__main__":
    main()

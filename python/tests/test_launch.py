"""What a launch checks before anything reaches the GPU, and the GPU launch
path driven through a stand-in for libcuda (no GPU needed)."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

from conftest import HEADER
from phobos import ArgumentError, CompileError, KernelRuntimeError
from phobos import _cuda
from phobos._contract import bind

KERNELS = HEADER + '''@ph.kernel
@ph.autotune(TM=[16], TN=[32])
@ph.aligned(M="TM")
def scaled(A: ph.tensor[ph.f32][M, N], B: ph.tensor[ph.f32][M, 8], C: ph.tensor[ph.f16][M, N],
           alpha: ph.f32, k: ph.i32, flag: ph.bool, h: ph.f16):
    m0: ph.let = ph.ctx.block.x * TM
    n0: ph.let = ph.ctx.block.y * TN
    C[m0:+TM, n0:+TN] = alpha * A[m0:+TM, n0:+TN]
'''


@pytest.fixture
def scaled(write_module):
    return write_module(KERNELS).scaled


def arrays(m=32, n=40):
    a = np.ones((m, n), np.float32)
    b = np.ones((m, 8), np.float32)
    c = np.zeros((m, n), np.float16)
    return a, b, c


def check(scaled, *args, **variant):
    contract = scaled.contract(**variant)
    return bind(contract, args)


@pytest.mark.parametrize("change,param,reason", [
    (lambda a, b, c: (a.astype(np.float64), b, c), "A", "expected f32 elements, got numpy float64"),
    (lambda a, b, c: (a[0], b, c), "A", "expected rank 2, got 1"),
    (lambda a, b, c: (a, b[:16], c), "B", "dim 'M' is 16 here but 32 in argument 'A'"),
    (lambda a, b, c: (a, np.ones((32, 9), np.float32), c), "B",
     "axis 1 (dim '8') is 9 but the kernel was compiled for 8"),
    (lambda a, b, c: (np.asfortranarray(a), b, c), "A", "are not dense row-major"),
    (lambda a, b, c: (a[:, 1:], b, np.zeros((32, 39), np.float16)), "A", "not 16-byte aligned"),
    (lambda a, b, c: (a[:30], b[:30], c[:30]), "A", "breaks @aligned(M = 16): M is 30"),
    (lambda a, b, c: (a, b, 3.0), "C", "expected a tensor of f16, got a scalar"),
    (lambda a, b, c: (a, b, [1, 2]), "C", "expected a tensor of f16, got a list"),
])
def test_tensor_checks_name_the_parameter(scaled, change, param, reason):
    a, b, c = change(*arrays())
    with pytest.raises(ArgumentError) as error:
        check(scaled, a, b, c, 1.0, 2, True, 0.5)
    assert error.value.param == param
    assert reason in error.value.reason
    assert str(error.value).startswith(f"scaled: argument '{param}': ")


@pytest.mark.parametrize("scalars,param,reason", [
    ((1e40, 2, True, 0.5), "alpha", "overflows f32 to infinity"),
    ((1.0, 2.5, True, 0.5), "k", "expected an integral i32, got 2.5"),
    ((1.0, 2 ** 31, True, 0.5), "k", "does not fit in i32"),
    ((1.0, 2, 2, 0.5), "flag", "expected a bool (0 or 1), got 2"),
    ((1.0, 2, True, 1e5), "h", "overflows f16 to infinity"),
    ((1.0, 2, True, "x"), "h", "expected a scalar (f16)"),
    ((np.ones(3), 2, True, 0.5), "alpha", "expected a scalar (f32), got a tensor"),
    # Beyond what a float holds: an ArgumentError, not an OverflowError.
    ((10 ** 400, 2, True, 0.5), "alpha",
     "100000000000...000000 (401 digits) is outside the range of f32"),
    ((1.0, -10 ** 400, True, 0.5), "k", "is outside the range of i32"),
])
def test_scalar_checks(scaled, scalars, param, reason):
    with pytest.raises(ArgumentError) as error:
        check(scaled, *arrays(), *scalars)
    assert error.value.param == param and reason in error.value.reason


def test_count_and_grid_checks(scaled):
    with pytest.raises(ArgumentError, match=r"expected 7 arguments \(A, B, C, alpha, k, flag, h\), got 3"):
        check(scaled, *arrays())
    a, b, c = arrays()
    with pytest.raises(ArgumentError, match="grid y extent is 70000, more than the 65535"):
        scaled[(1, 70000)](a, b, c, 1.0, 2, True, 0.5)
    with pytest.raises(ArgumentError, match="grid x extent is 0"):
        scaled[lambda meta: (0,)](a, b, c, 1.0, 2, True, 0.5)
    with pytest.raises(ArgumentError, match="is not an @autotune dimension of 'scaled'"):
        scaled[None](a, b, c, 1.0, 2, True, 0.5, TK=4)


def test_bound_values_follow_the_abi(scaled):
    a, b, c = arrays()
    bound = check(scaled, a, b, c, 0.1, -3, True, 1.5)
    # A: pointer, M, N; B: pointer, M (8 is static); C: pointer, M, N; scalars.
    assert bound.values[:3] == [a.ctypes.data, 32, 40]
    assert bound.values[3:5] == [b.ctypes.data, 32]
    assert bound.values[5:8] == [c.ctypes.data, 32, 40]
    assert bound.values[8] == struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert bound.values[9:] == [-3, 1, 0x3E00]
    assert bound.dims["M"] == 32 and bound.dims["N"] == 40


def test_the_cpu_path_runs_and_copies_back(scaled):
    a, b, c = arrays()
    a[:] = np.arange(32 * 40, dtype=np.float32).reshape(32, 40) / 100
    scaled[lambda meta: (meta["M"] // meta["TM"], -(-meta["N"] // meta["TN"]))](a, b, c, 2.0, 1, False, 0.0)
    np.testing.assert_allclose(c, (2 * a).astype(np.float16))


# -- the GPU path, with a stand-in for libcuda -------------------------------------------

class FakeDeviceArray:
    """An array that offers __cuda_array_interface__ (as CuPy or Numba do)."""

    def __init__(self, shape, typestr, ptr, stream=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": None, "version": 3, "stream": stream}


class FakeLibcuda:
    """The driver functions the launcher calls, recording the launches."""

    def __init__(self):
        self.launches = []
        self.loaded = []

    def __getattr__(self, name):
        if name.startswith("cu"):
            return lambda *args: 0
        raise AttributeError(name)

    def cuDeviceGetAttribute(self, value, attribute, device):
        # Compute capability 9.0, four SMs.
        value._obj.value = {75: 9, 76: 0, 16: 4}.get(attribute, 0)
        return 0

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(self, value, function, threads, shared):
        value._obj.value = 1
        return 0

    def cuPointerGetAttribute(self, value, attribute, pointer):
        ctypes.cast(value, ctypes.POINTER(ctypes.c_int))[0] = 0
        return 0

    def cuModuleLoadDataEx(self, module, image, count, options, values):
        self.loaded.append(bytes(image[:4]))
        return 0

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        if getattr(self, "fail", 0):
            return self.fail  # a CUresult the test asks for
        self.launches.append(((gx, gy, gz), (bx, by, bz), shared, stream, params))
        return 0


@pytest.fixture
def fake_gpu(monkeypatch):
    lib = FakeLibcuda()
    driver = _cuda.CudaDriver(lib=lib)
    monkeypatch.setattr(_cuda.CudaDriver, "_instance", driver)
    import phobos._arrays as arrays_module
    monkeypatch.setattr(arrays_module, "_pointer_device", driver.pointer_device)
    return lib


def test_gpu_launch_through_the_driver(scaled, fake_gpu):
    a = FakeDeviceArray((32, 40), "<f4", 0x10000)
    b = FakeDeviceArray((32, 8), "<f4", 0x20000)
    c = FakeDeviceArray((32, 40), "<f2", 0x30000, stream=0x77)
    scaled[None](a, b, c, 0.5, 7, True, 1.0)
    (grid, block, shared, stream, params), = fake_gpu.launches
    assert grid == (2, 2, 1) and block == (256, 1, 1) and shared == 0
    assert stream == 0x77  # the stream the arrays' interface names
    assert fake_gpu.loaded  # the cubin or PTX from the kernel cache
    kernel_params = [ctypes.cast(params[i], ctypes.POINTER(t))[0] for i, t in enumerate(
        [ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint64, ctypes.c_int32,
         ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32, ctypes.c_float, ctypes.c_int32,
         ctypes.c_uint8, ctypes.c_uint16])]
    assert kernel_params == [0x10000, 32, 40, 0x20000, 32, 0x30000, 32, 40, 0.5, 7, 1, 0x3C00]
    # An explicit stream wins; a second launch reuses the loaded kernel.
    scaled[(1, 1)](a, b, c, 0.5, 7, True, 1.0, stream=5)
    assert fake_gpu.launches[-1][3] == 5 and len(fake_gpu.loaded) == 1
    # The kernel launched was specialised for the extents: N = 40 is a
    # multiple of 8 (M = 32 already is of the 16 the kernel promises).
    (loaded,) = scaled._gpu.values()
    assert loaded.contract.aligned == {"M": 16, "N": 8}
    # Other extents, another specialisation; switched off, the general kernel.
    a2 = FakeDeviceArray((32, 36), "<f4", 0x10000)
    c2 = FakeDeviceArray((32, 36), "<f2", 0x30000)
    scaled[None](a2, b, c2, 0.5, 7, True, 1.0)
    scaled.specialize = False
    scaled[None](a2, b, c2, 0.5, 7, True, 1.0)
    assert sorted(tuple(sorted(k.contract.aligned.items())) for k in scaled._gpu.values()) == [
        (("M", 16),), (("M", 16), ("N", 4)), (("M", 16), ("N", 8))]


HGEMM = HEADER + '''@ph.kernel
@ph.launch(128)
@ph.pipeline
@ph.tensorcore
def hgemm(A: ph.tensor[ph.f16][M, K], B: ph.tensor[ph.f16][K, N], C: ph.tensor[ph.f32][M, N]):
    m0: ph.let = ph.ctx.block.x * 64
    n0: ph.let = ph.ctx.block.y * 128
    acc: ph.var[ph.tile[ph.f32][64, 128]] = 0.0
    for kt in range(0, K, 64):
        acc += ph.dot(A[m0:+64, kt:+64], B[kt:+64, n0:+128])
    C[m0:+64, n0:+128] = acc
'''


def launch_hgemm(write_module, fake_gpu, encode):
    """The HGEMM (its A and B through TMA on sm_90a) launched once with
    `encode` standing in for cuTensorMapEncodeTiled."""
    fake_gpu.cuTensorMapEncodeTiled = encode
    hgemm = write_module(HGEMM).hgemm
    arrays = (FakeDeviceArray((128, 256), "<f2", 0x10000),
              FakeDeviceArray((256, 384), "<f2", 0x20000),
              FakeDeviceArray((128, 384), "<f4", 0x60000))
    hgemm[None](*arrays)
    return hgemm, arrays


def test_tma_launch_encodes_tensor_maps(write_module, fake_gpu):
    """On sm_90a, with rows 16-byte aligned (the launch specialises for
    K = 256 and N = 384), the kernel reads A and B through TMA: its contract
    lists their tensor maps, and each launch encodes them (the tensors'
    addresses and extents, the boxes, 128-byte swizzle) into 64-byte aligned
    parameters after the others."""
    encoded = []

    def encode(into, dtype, rank, address, dims, strides, box, steps, interleave, swizzle, l2, fill):
        # Called from libphobos through a C callback: pointers arrive as ints.
        encoded.append((into % 64, dtype, rank, address, dims[0], dims[1], strides[0],
                        box[0], box[1], swizzle, fill))
        ctypes.memset(into, len(encoded), 128)
        return 0

    hgemm, (a, b, c) = launch_hgemm(write_module, fake_gpu, encode)
    (loaded,) = hgemm._gpu.values()
    assert loaded.contract.tensor_maps == [("A", 64, 64, 128), ("B", 64, 64, 128)]
    # f16 is CU_TENSOR_MAP_DATA_TYPE_FLOAT16 (6), 128-byte swizzle is 3, zeros fill (0).
    assert encoded == [(0, 6, 2, 0x10000, 256, 128, 512, 64, 64, 3, 0),
                       (0, 6, 2, 0x20000, 384, 256, 768, 64, 64, 3, 0)]
    (_, _, _, _, params), = fake_gpu.launches
    # A, M, K, B, K, N, C, M, N, then the two maps.
    maps = [ctypes.cast(params[9 + k], ctypes.POINTER(ctypes.c_uint8 * 128))[0] for k in range(2)]
    assert [params[9 + k] % 64 for k in range(2)] == [0, 0]
    assert [bytes(m) for m in maps] == [bytes([1]) * 128, bytes([2]) * 128]


def test_gpu_arrays_are_checked_first(scaled, fake_gpu):
    a = FakeDeviceArray((32, 40), "<f4", 0x10000)
    b = FakeDeviceArray((32, 8), "<f4", 0x20008)
    c = FakeDeviceArray((32, 40), "<f2", 0x30000)
    with pytest.raises(ArgumentError, match="argument 'B': data at 0x20008 is not 16-byte aligned"):
        scaled[None](a, b, c, 0.5, 7, True, 1.0)
    with pytest.raises(ArgumentError, match="argument 'B': is in host memory .* every array"):
        scaled[None](a, np.ones((32, 8), np.float32), c, 0.5, 7, True, 1.0)
    assert not fake_gpu.launches


def test_device_chip_enables_sm_90a_features():
    """Launches compile for the device's chip as phobos-run does: sm_XY of its
    compute capability, and sm_90a (wgmma) on an sm_90 card."""
    from phobos import _cuda

    driver = object.__new__(_cuda.CudaDriver)  # no libcuda: only chip() is used
    driver.chips = {}
    capabilities = {0: (9, 0), 1: (8, 0), 2: (8, 9)}

    def attribute(which, device):
        major, minor = capabilities[device]
        return major if which == _cuda.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR else minor

    driver.attribute = attribute
    assert [driver.chip(device) for device in (0, 1, 2)] == ["sm_90a", "sm_80", "sm_89"]


def test_persistent_launch_starts_the_resident_ctas(write_module, fake_gpu):
    """@ph.persistent: the contract says so, and the launcher starts as many
    CTAs as the device holds (one per SM here, four SMs) instead of one per
    tile (2 x 3 tiles); with fewer tiles, one CTA per tile. A grid other
    than the tile grid is refused."""
    hgemm = write_module(HGEMM.replace("@ph.pipeline\n", "@ph.pipeline\n@ph.persistent\n"),
                         "hgemm_persistent").hgemm
    a = FakeDeviceArray((128, 256), "<f2", 0x10000)
    b = FakeDeviceArray((256, 384), "<f2", 0x20000)
    c = FakeDeviceArray((128, 384), "<f4", 0x60000)
    hgemm[None](a, b, c)
    (loaded,) = hgemm._gpu.values()
    assert loaded.contract.persistent and loaded.resident == 4
    assert fake_gpu.launches[-1][0] == (4, 1, 1)
    hgemm[(2, 3)](a, b, c)
    assert fake_gpu.launches[-1][0] == (4, 1, 1)
    c2 = FakeDeviceArray((64, 128), "<f4", 0x40000)
    hgemm[None](FakeDeviceArray((64, 256), "<f2", 0x10000), FakeDeviceArray((256, 128), "<f2", 0x20000), c2)
    assert fake_gpu.launches[-1][0] == (1, 1, 1)
    with pytest.raises(ArgumentError, match=r"persistent: its CTAs walk the grid \(2, 3, 1\)"):
        hgemm[(6,)](a, b, c)


# -- the launch fast path ------------------------------------------------------------------

def launched_params(launch):
    (_, _, _, _, params) = launch
    return [ctypes.cast(params[i], ctypes.POINTER(t))[0] for i, t in enumerate(
        [ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint64, ctypes.c_int32,
         ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32, ctypes.c_float, ctypes.c_int32,
         ctypes.c_uint8, ctypes.c_uint16])]


def test_a_second_launch_takes_the_plan(scaled, fake_gpu, monkeypatch):
    """The first launch of a signature checks everything and leaves a plan;
    the next ones with the same grid, shapes and types go through it (no
    bind, no contract lookup) with their own pointers and scalars."""
    a = FakeDeviceArray((32, 40), "<f4", 0x10000)
    b = FakeDeviceArray((32, 8), "<f4", 0x20000)
    c = FakeDeviceArray((32, 40), "<f2", 0x30000)
    scaled[None](a, b, c, 0.5, 7, True, 1.0)
    assert len(scaled._plans) == 1

    import phobos._kernel as kernel_module

    def no_bind(*args, **kwargs):
        raise AssertionError("the planned launch bound its arguments again")

    monkeypatch.setattr(kernel_module, "bind", no_bind)
    a2 = FakeDeviceArray((32, 40), "<f4", 0x50000)
    scaled[None](a2, b, c, 2.0, -3, False, 2.0)
    assert launched_params(fake_gpu.launches[-1]) == [
        0x50000, 32, 40, 0x20000, 32, 0x30000, 32, 40, 2.0, -3, 0, 0x4000]
    assert fake_gpu.launches[-1][0] == (2, 2, 1)
    # A callable grid is called at every launch, with the dims and variant.
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (meta["M"] // meta["TM"], 1)

    monkeypatch.setattr(kernel_module, "bind", bind)
    scaled[grid](a, b, c, 0.5, 7, True, 1.0)
    monkeypatch.setattr(kernel_module, "bind", no_bind)
    scaled[grid](a, b, c, 0.5, 7, True, 1.0)
    assert fake_gpu.launches[-1][0] == (2, 1, 1) and len(seen) == 2
    assert seen[1]["M"] == 32 and seen[1]["N"] == 40 and seen[1]["TM"] == 16


def test_the_plan_rechecks_what_can_change(scaled, fake_gpu):
    """Pointers and scalar values are checked at every launch, through the
    full path's errors; other shapes get their own plan."""
    a = FakeDeviceArray((32, 40), "<f4", 0x10000)
    b = FakeDeviceArray((32, 8), "<f4", 0x20000)
    c = FakeDeviceArray((32, 40), "<f2", 0x30000)
    scaled[None](a, b, c, 0.5, 7, True, 1.0)
    count = len(fake_gpu.launches)
    with pytest.raises(ArgumentError, match="argument 'B': data at 0x20008 is not 16-byte aligned"):
        scaled[None](a, FakeDeviceArray((32, 8), "<f4", 0x20008), c, 0.5, 7, True, 1.0)
    with pytest.raises(ArgumentError, match="argument 'alpha': 1e\\+40 overflows f32"):
        scaled[None](a, b, c, 1e40, 7, True, 1.0)
    with pytest.raises(ArgumentError, match="argument 'k': 2147483648 does not fit in i32"):
        scaled[None](a, b, c, 0.5, 2 ** 31, True, 1.0)
    with pytest.raises(ArgumentError, match="argument 'flag': expected a bool"):
        scaled[None](a, b, c, 0.5, 7, 2, 1.0)
    assert len(fake_gpu.launches) == count
    # An integral float for an integer parameter takes the full path, which accepts it.
    scaled[None](a, b, c, 0.5, 7.0, True, 1.0)
    assert launched_params(fake_gpu.launches[-1])[9] == 7
    # Another extent: another plan (and specialisation), not the first one's.
    a3 = FakeDeviceArray((32, 36), "<f4", 0x10000)
    c3 = FakeDeviceArray((32, 36), "<f2", 0x30000)
    scaled[None](a3, b, c3, 0.5, 7, True, 1.0)
    assert launched_params(fake_gpu.launches[-1])[2] == 36
    assert sum(len(plans) for plans in scaled._plans.values()) >= 2
    # Switching specialisation off drops the plans.
    scaled.specialize = False
    assert not scaled._plans


ALIASED = HEADER + '''@ph.kernel
@ph.autotune(B=[64])
def two_outputs(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N], z: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * B
    y[base:+B] = x[base:+B] + 1.0
    z[base + 32:+32] = x[base + 32:+32] * 3.0
'''


def test_overlapping_arguments_that_the_kernel_writes_are_refused(write_module):
    """A kernel may assume its tensor arguments do not overlap when it writes
    one (docs/language.md, "The memory model"): the GPU orders one tensor's
    accesses inside a CTA, not two tensors'. One array passed for two
    outputs, or an output that overlaps an input, is refused on the CPU path
    as on the GPU, before anything runs; inputs may share memory. A
    read-only output is refused too."""
    kernel = write_module(ALIASED).two_outputs
    x = np.arange(128, dtype=np.float32)
    out = np.full(128, np.nan, np.float32)
    with pytest.raises(ArgumentError, match="argument 'z': overlaps argument 'y' in memory, "
                       "and the kernel writes 'y'"):
        kernel[(2,)](x, out, out)
    assert np.isnan(out).all()
    buffer = np.zeros(256, np.float32)
    with pytest.raises(ArgumentError, match="argument 'y': overlaps argument 'x'"):
        kernel[(2,)](buffer[:128], buffer[64:192], np.zeros(128, np.float32))
    y, z = np.zeros(128, np.float32), np.zeros(128, np.float32)
    kernel[(2,)](x, y, z)
    np.testing.assert_array_equal(y, x + 1.0)
    frozen = np.zeros(128, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ArgumentError, match="argument 'y': is a read-only array"):
        kernel[(2,)](x, frozen, np.zeros(128, np.float32))


class FakeTorchDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


FLOAT32, FLOAT16 = FakeTorchDtype("float32"), FakeTorchDtype("float16")


class FakeTorchTensor:
    """What the launcher reads of a CUDA torch tensor (the package keys on the
    module name, as it does for torch's own)."""

    __module__ = "torch.fake"

    def __init__(self, shape, dtype, ptr, contiguous=True):
        self.shape, self.dtype, self.ptr, self.contiguous = tuple(shape), dtype, ptr, contiguous
        self.device = type("Device", (), {"type": "cuda", "index": 0})()

    def data_ptr(self):
        return self.ptr

    def is_contiguous(self):
        return self.contiguous

    def get_device(self):
        return 0

    def stride(self):
        strides, step = [], 1
        for extent in reversed(self.shape):
            strides.insert(0, step)
            step *= extent
        return tuple(strides) if self.contiguous else tuple(reversed(strides))


@pytest.fixture
def fake_torch(monkeypatch):
    """A stand-in torch module: the current stream the launcher asks for."""
    import sys
    import types
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0x99)
    torch.cuda = types.SimpleNamespace(
        current_stream=lambda device: types.SimpleNamespace(cuda_stream=0x99))
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


SCALED32 = HEADER + '''@ph.kernel
@ph.autotune(TM=[16], TN=[32])
def scaled32(A: ph.tensor[ph.f32][M, N], C: ph.tensor[ph.f32][M, N], alpha: ph.f32, k: ph.i64,
             flag: ph.bool):
    m0: ph.let = ph.ctx.block.x * TM
    n0: ph.let = ph.ctx.block.y * TN
    C[m0:+TM, n0:+TN] = alpha * A[m0:+TM, n0:+TN]
'''


def test_the_native_plan_launches_torch_tensors(write_module, fake_gpu, fake_torch, monkeypatch):
    """With torch tensors and f32/i64/bool scalars the plan runs in C
    (libphobos-python): it reads pointers, extents and scalars, refuses
    what the plan does not describe (the full path then raises as always)
    and launches on the stream torch says is current."""
    from phobos import _library
    if _library.fast_launch() is None:
        pytest.skip("libphobos-python is not built")
    kernel = write_module(SCALED32).scaled32
    a = FakeTorchTensor((32, 40), FLOAT32, 0x10000)
    c = FakeTorchTensor((32, 40), FLOAT32, 0x30000)
    kernel[None](a, c, 0.5, 7, True)
    ((plan,),) = kernel._plans.values()
    assert plan.native

    import phobos._kernel as kernel_module

    def no_bind(*args, **kwargs):
        raise AssertionError("the native launch bound its arguments again")

    monkeypatch.setattr(kernel_module, "bind", no_bind)

    def params_of(launch):
        (_, _, _, _, params) = launch
        return [ctypes.cast(params[i], ctypes.POINTER(t))[0] for i, t in enumerate(
            [ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint64, ctypes.c_int32,
             ctypes.c_int32, ctypes.c_float, ctypes.c_int64, ctypes.c_uint8])]

    kernel[None](FakeTorchTensor((32, 40), FLOAT32, 0x50000), c, -2.0, 2 ** 40, False)
    grid, _, _, stream, _ = fake_gpu.launches[-1]
    assert grid == (2, 2, 1) and stream == 0x99
    assert params_of(fake_gpu.launches[-1]) == [0x50000, 32, 40, 0x30000, 32, 40, -2.0, 2 ** 40, 0]
    count = len(fake_gpu.launches)
    monkeypatch.setattr(kernel_module, "bind", bind)
    for args, message in [
            ((FakeTorchTensor((32, 40), FLOAT32, 0x50008), c, 1.0, 1, True),
             "argument 'A': data at 0x50008 is not 16-byte aligned"),
            ((a, c, 1e39, 1, True), "argument 'alpha': 1e\\+39 overflows f32"),
            ((a, c, 1.0, 2 ** 63, True), "argument 'k': 9223372036854775808 does not fit in i64"),
            ((a, c, 1.0, 1, 3), "argument 'flag': expected a bool"),
            ((FakeTorchTensor((32, 40), FLOAT16, 0x50000), c, 1.0, 1, True),
             "argument 'A': expected f32 elements"),
            ((a, FakeTorchTensor((32, 40), FLOAT32, 0x30000, contiguous=False), 1.0, 1, True),
             "argument 'C': strides"),
            ((a, FakeTorchTensor((32, 40), FLOAT32, 0x10000 + 4096), 1.0, 1, True),
             "argument 'C': overlaps argument 'A' in memory, and the kernel writes 'C'")]:
        with pytest.raises(ArgumentError, match=message):
            kernel[None](*args)
    assert len(fake_gpu.launches) == count
    # Other extents: a plan of their own, in C too; the first one still fits its shapes.
    kernel[None](FakeTorchTensor((48, 40), FLOAT32, 0x10000),
                 FakeTorchTensor((48, 40), FLOAT32, 0x30000), 1.0, 1, True)
    assert fake_gpu.launches[-1][0] == (3, 2, 1)
    plans = next(iter(kernel._plans.values()))
    assert len(plans) == 2 and all(p.native for p in plans)
    monkeypatch.setattr(kernel_module, "bind", no_bind)
    kernel[None](a, c, 1.0, 1, True)
    kernel[None](FakeTorchTensor((48, 40), FLOAT32, 0x10000),
                 FakeTorchTensor((48, 40), FLOAT32, 0x30000), 1.0, 1, True)
    assert [launch[0] for launch in fake_gpu.launches[-2:]] == [(2, 2, 1), (3, 2, 1)]


def test_kernel_grid_is_one_call_into_c(write_module, fake_gpu, fake_torch, monkeypatch):
    """kernel[grid] is libphobos-python's Launcher: a launch a plan takes
    runs no Python of the package (neither the plans in Python nor the full
    path), a driver failure raises as on the full path, keywords and
    arguments no plan takes go the Python way, and what chose the plans
    (specialize) empties the table."""
    from phobos import _library
    if _library.fast_launch() is None:
        pytest.skip("libphobos-python is not built")
    import phobos._kernel as kernel_module
    kernel = write_module(SCALED32).scaled32
    a = FakeTorchTensor((32, 40), FLOAT32, 0x10000)
    c = FakeTorchTensor((32, 40), FLOAT32, 0x30000)
    grid = (2, 2)
    kernel[grid](a, c, 0.5, 7, True)
    launcher = kernel[grid]
    assert type(launcher).__module__ == "phobos._native" and launcher.grid is grid
    assert launcher.kernel is kernel and kernel._table.size() == 1

    def python_path(*args, **kwargs):
        raise AssertionError("the launch went through Python")

    with monkeypatch.context() as patch:
        patch.setattr(kernel_module, "_launch_planned", python_path)
        patch.setattr(kernel_module.Kernel, "launch", python_path)
        count = len(fake_gpu.launches)
        kernel[grid](FakeTorchTensor((32, 40), FLOAT32, 0x70000), c, 0.25, 1, False)
        kernel[(2, 2)](a, c, 0.25, 1, False)  # an equal tuple finds the plan too
        assert len(fake_gpu.launches) == count + 2
        assert [launch[0] for launch in fake_gpu.launches[-2:]] == [(2, 2, 1)] * 2
        assert fake_gpu.launches[-2][3] == 0x99  # torch's current stream
        # A keyword and a new shape are the Python path's.
        for launch in (lambda: kernel[grid](a, c, 0.25, 1, False, stream=5),
                       lambda: kernel[grid](FakeTorchTensor((64, 40), FLOAT32, 0x10000),
                                            FakeTorchTensor((64, 40), FLOAT32, 0x30000),
                                            1.0, 1, True)):
            with pytest.raises(AssertionError, match="through Python"):
                launch()
    # The driver's refusal raises KernelRuntimeError and launches nothing;
    # an earlier kernel's fault (700, an illegal address) says how to find
    # its line.
    fake_gpu.fail = 700
    with pytest.raises(KernelRuntimeError, match=r"cuLaunchKernel failed: .*700.*grid \(2, 2, 1\)"
                       r".*; a kernel faulted; .*compute-sanitizer --tool memcheck"):
        kernel[grid](a, c, 0.25, 1, False)
    fake_gpu.fail = 0
    kernel.specialize = False
    assert kernel._table.size() == 0


def test_a_callable_grid_is_called_from_c(write_module, fake_gpu, fake_torch, monkeypatch):
    """A grid function (a new lambda at every call, as Triton's tutorials
    write it) finds the plans in C too: C calls it with the plan's dims and
    variant and launches what it returns, with no Python of the package on
    the way. What it raises is the launch's error; a result of another form,
    or beyond the GPU's limits, goes the Python way, which says what is
    wrong."""
    from phobos import _library
    if _library.fast_launch() is None:
        pytest.skip("libphobos-python is not built")
    import phobos._kernel as kernel_module
    kernel = write_module(SCALED32).scaled32
    a = FakeTorchTensor((32, 40), FLOAT32, 0x10000)
    c = FakeTorchTensor((32, 40), FLOAT32, 0x30000)
    kernel[lambda meta: (meta["M"] // meta["TM"], 2)](a, c, 0.5, 7, True)
    assert kernel._table.size() == 1
    seen = []

    def grid(meta):
        seen.append(meta)
        return meta["M"] // meta["TM"] + 1, meta["N"] // meta["TN"] + 1

    def python_path(*args, **kwargs):
        raise AssertionError("the launch went through Python")

    with monkeypatch.context() as patch:
        patch.setattr(kernel_module, "_launch_planned", python_path)
        patch.setattr(kernel_module.Kernel, "launch", python_path)
        kernel[grid](FakeTorchTensor((32, 40), FLOAT32, 0x70000), c, 0.25, 1, False)
        assert fake_gpu.launches[-1][0] == (3, 2, 1) and fake_gpu.launches[-1][3] == 0x99
        assert seen == [{"M": 32, "N": 40, "TM": 16, "TN": 32}]
        seen[0]["M"] = 0  # the grid gets a copy: the plan's dims stay
        kernel[lambda meta: meta["M"]](a, c, 0.25, 1, False)
        assert fake_gpu.launches[-1][0] == (32, 1, 1)
        kernel[lambda meta: [1, 2, 3]](a, c, 0.25, 1, False)
        assert fake_gpu.launches[-1][0] == (1, 2, 3)

        def broken(meta):
            raise KeyError("BLOCK")

        count = len(fake_gpu.launches)
        with pytest.raises(KeyError, match="BLOCK"):
            kernel[broken](a, c, 0.25, 1, False)
        for bad in (lambda meta: (1, 2, 3, 4), lambda meta: (0,), lambda meta: (1, 65536),
                    lambda meta: 2.0, lambda meta: "2"):
            with pytest.raises(AssertionError, match="through Python"):
                kernel[bad](a, c, 0.25, 1, False)
        assert len(fake_gpu.launches) == count
    # The Python path's word on those grids.
    with pytest.raises(ArgumentError, match="the grid is 1 to 3 integers, got 4"):
        kernel[lambda meta: (1, 2, 3, 4)](a, c, 0.25, 1, False)
    # Another shape: the full path, which adds its plan to the C table.
    kernel[grid](FakeTorchTensor((48, 40), FLOAT32, 0x10000),
                 FakeTorchTensor((48, 40), FLOAT32, 0x30000), 1.0, 1, True)
    assert fake_gpu.launches[-1][0] == (4, 2, 1) and kernel._table.size() == 2


def test_tma_kernels_and_variant_keywords_launch_from_c(write_module, fake_gpu, fake_torch,
                                                       monkeypatch):
    """A kernel that reads tensors through TMA launches from C too: its plan
    holds the tensor maps encoded for the tensors' addresses, so it takes
    launches whose mapped tensors are where they were (a written tensor's
    address may change); a mapped tensor elsewhere goes the full path,
    which encodes its maps and adds a plan, after which C launches both.
    Launches with variant keywords find plans of their own in C."""
    from phobos import _library
    if _library.fast_launch() is None:
        pytest.skip("libphobos-python is not built")
    import phobos._kernel as kernel_module
    encoded = []

    def encode(into, dtype, rank, address, dims, strides, box, steps, interleave, swizzle, l2,
               fill):
        encoded.append(address)
        ctypes.memset(into, len(encoded), 128)
        return 0

    fake_gpu.cuTensorMapEncodeTiled = encode
    hgemm = write_module(HGEMM.replace("@ph.launch(128)", "@ph.launch(128)\n@ph.autotune(S=[1, 2])"),
                         "hgemm_keywords").hgemm
    a = FakeTorchTensor((128, 256), FLOAT16, 0x10000)
    b = FakeTorchTensor((256, 384), FLOAT16, 0x20000)
    grid = (2, 3)
    hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000))
    ((plan,),) = hgemm._plans.values()
    assert plan.native and plan.mapped == {"A": 0x10000, "B": 0x20000}
    assert encoded == [0x10000, 0x20000] and hgemm._table.size() == 1

    def python_path(*args, **kwargs):
        raise AssertionError("the launch went through Python")

    def first_pointer(launch):
        (_, _, _, _, params) = launch
        return ctypes.cast(params[0], ctypes.POINTER(ctypes.c_uint64))[0]

    def maps_of(launch):
        (_, _, _, _, params) = launch
        return [bytes(ctypes.cast(params[9 + k], ctypes.POINTER(ctypes.c_uint8 * 128))[0][:1])
                for k in range(2)]

    with monkeypatch.context() as patch:
        patch.setattr(kernel_module, "_launch_planned", python_path)
        patch.setattr(kernel_module.Kernel, "launch", python_path)
        hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x90000))  # C elsewhere
        assert first_pointer(fake_gpu.launches[-1]) == 0x10000
        assert maps_of(fake_gpu.launches[-1]) == [b"\x01", b"\x02"]
        with pytest.raises(AssertionError, match="through Python"):
            hgemm[grid](FakeTorchTensor((128, 256), FLOAT16, 0x30000), b,
                        FakeTorchTensor((128, 384), FLOAT32, 0x60000))
    # A moved: the full path encodes A's map again and adds a plan.
    a2 = FakeTorchTensor((128, 256), FLOAT16, 0x30000)
    hgemm[grid](a2, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000))
    assert encoded[-2:] == [0x30000, 0x20000] and hgemm._table.size() == 2
    with monkeypatch.context() as patch:
        patch.setattr(kernel_module, "_launch_planned", python_path)
        patch.setattr(kernel_module.Kernel, "launch", python_path)
        for moved, first_map in ((a, b"\x01"), (a2, b"\x03")):
            hgemm[grid](moved, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000))
            assert first_pointer(fake_gpu.launches[-1]) == moved.ptr
            assert maps_of(fake_gpu.launches[-1])[0] == first_map
        # Keywords no plan was made with: the Python way.
        with pytest.raises(AssertionError, match="through Python"):
            hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000), S=2)
    hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000), S=2)
    assert hgemm._table.size() == 3
    with monkeypatch.context() as patch:
        patch.setattr(kernel_module, "_launch_planned", python_path)
        patch.setattr(kernel_module.Kernel, "launch", python_path)
        count = len(fake_gpu.launches)
        hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000), S=2)
        assert len(fake_gpu.launches) == count + 1
        # A value of another type, or another name, is not the plan's.
        for keywords in ({"S": 2.0}, {"S": True}, {"S": 2, "T": 1}, {"S": 1}):
            with pytest.raises(AssertionError, match="through Python"):
                hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000), **keywords)
    # And the full path's word on them.
    with pytest.raises(ArgumentError, match="a variant value is an integer, got 2.0"):
        hgemm[grid](a, b, FakeTorchTensor((128, 384), FLOAT32, 0x60000), S=2.0)


def test_a_grid_list_changed_in_place_is_read_again(scaled, fake_gpu):
    """Plans are found by the grid's identity only for grids that cannot
    change (tuples, None, functions): a list changed between launches
    launches its new extents."""
    a = FakeDeviceArray((32, 40), "<f4", 0x10000)
    b = FakeDeviceArray((32, 8), "<f4", 0x20000)
    c = FakeDeviceArray((32, 40), "<f2", 0x30000)
    grid = [1, 1]
    scaled[grid](a, b, c, 0.5, 7, True, 1.0)
    scaled[grid](a, b, c, 0.5, 7, True, 1.0)
    grid[0] = 2
    scaled[grid](a, b, c, 0.5, 7, True, 1.0)
    assert [launch[0] for launch in fake_gpu.launches] == [(1, 1, 1), (1, 1, 1), (2, 1, 1)]


SPACE = HEADER + '''@ph.kernel
@ph.autotune(BLOCK=[16, 128], TM=[3, 1], K=[8])
def spaced(x: ph.tensor[ph.f32][N]):
    base: ph.let = ph.program_id(0) * BLOCK
    x[base:+BLOCK] = x[base:+BLOCK] * (TM + K)
'''


def test_the_autotune_space_is_the_librarys(write_module):
    """The @autotune lists are expanded by the library's reading of the
    Phobos text (an increasing pair doubles), not by a second copy of the
    rule in Python; the variants are their product, default first. A list
    the language refuses is reported at its Python place."""
    kernel = write_module(SPACE).spaced
    assert kernel.space == {"BLOCK": [16, 32, 64, 128], "TM": [3, 1], "K": [8]}
    assert kernel.default_variant() == {"BLOCK": 16, "TM": 3, "K": 8}
    assert len(kernel.variants()) == 8 and kernel.variants()[0] == kernel.default_variant()
    twice = write_module(SPACE.replace("TM=[3, 1]", "TM=[3, 1, 3]")).spaced
    with pytest.raises(CompileError, match=r"kernels_\d+\.py:7:\d+: error: value 3 appears twice"):
        twice.space

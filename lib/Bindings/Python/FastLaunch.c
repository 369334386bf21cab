/*===- FastLaunch.c - The Python package's launch fast path ---------------===*\
|*                                                                            *|
|* A launch of a cached kernel from Python, checked and issued in C. The      *|
|* package (python/phobos/_kernel.py) makes a plan at the first launch of a   *|
|* signature, after every check of the full path: for each argument, what    *|
|* the full path accepted (a tensor's exact type, dtype, device, extents and  *|
|* contiguity; a scalar's parameter type) and where its value goes in the     *|
|* kernel's parameter buffers. Each later launch hands the argument tuple     *|
|* here: what can change between calls (pointers, extents, scalar values) is  *|
|* read and checked, the buffers are filled, the device's primary context is  *|
|* made current if it is not, and cuLaunchKernel is called. Anything the     *|
|* plan does not describe returns 0, and the caller takes the full path,      *|
|* which raises the same errors as always.                                     *|
|*                                                                            *|
|* Built against CPython's stable ABI and loaded with ctypes.PyDLL (the GIL  *|
|* is held throughout), so one build serves every Python 3.8+ it is carried  *|
|* to; Python's own symbols come from the process.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define Py_LIMITED_API 0x03080000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PHOBOS_EXPORT __attribute__((visibility("default")))

/* What each argument of a plan is. */
enum ArgKind {
  kTensor = 0,
  kF32 = 1,
  kF64 = 2,
  kI32 = 3,
  kI64 = 4,
  kBool = 5,
};

enum { kMaxRank = 8 };

typedef struct PlanArg {
  int kind;
  /* Tensors: the exact type, the dtype object (compared by identity), the
     device ordinal, the extents, and where the extents bound at launch go. */
  PyObject *type;
  PyObject *dtype;
  long device;
  int rank;
  long long shape[kMaxRank];
  /* The parameter slot of the pointer (tensors) or of the value. */
  void *slot;
} PlanArg;

typedef int (*LaunchFn)(void *, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, void *, void **,
                        void **);
typedef int (*CurrentFn)(void **);
typedef int (*SetCurrentFn)(void *);

typedef struct Plan {
  LaunchFn launch;
  CurrentFn getCurrent;
  SetCurrentFn setCurrent;
  void *function;
  void *context;
  unsigned block, sharedBytes;
  void **params;
  int numArgs;
  PlanArg args[];
} Plan;

static PyObject *nameDataPtr, *nameShape, *nameDtype, *nameIsContiguous,
    *nameGetDevice;

static int internNames(void) {
  if (nameDataPtr)
    return 1;
  nameDataPtr = PyUnicode_InternFromString("data_ptr");
  nameShape = PyUnicode_InternFromString("shape");
  nameDtype = PyUnicode_InternFromString("dtype");
  nameIsContiguous = PyUnicode_InternFromString("is_contiguous");
  nameGetDevice = PyUnicode_InternFromString("get_device");
  return nameDataPtr && nameShape && nameDtype && nameIsContiguous &&
         nameGetDevice;
}

PHOBOS_EXPORT Plan *phobosPyPlanCreate(void *launch, void *getCurrent,
                                       void *setCurrent, void *function,
                                       void *context, unsigned block,
                                       unsigned sharedBytes, void **params,
                                       int numArgs) {
  if (numArgs < 0 || !internNames())
    return NULL;
  Plan *plan = calloc(1, sizeof(Plan) + sizeof(PlanArg) * (size_t)numArgs);
  if (!plan)
    return NULL;
  plan->launch = (LaunchFn)launch;
  plan->getCurrent = (CurrentFn)getCurrent;
  plan->setCurrent = (SetCurrentFn)setCurrent;
  plan->function = function;
  plan->context = context;
  plan->block = block;
  plan->sharedBytes = sharedBytes;
  plan->params = params;
  plan->numArgs = numArgs;
  return plan;
}

/* A tensor argument: `type` and `dtype` stay alive with the Python plan. */
PHOBOS_EXPORT int phobosPyPlanSetTensor(Plan *plan, int index, PyObject *type,
                                        PyObject *dtype, long device, int rank,
                                        const long long *shape, void *slot) {
  if (index < 0 || index >= plan->numArgs || rank < 0 || rank > kMaxRank)
    return 0;
  PlanArg *arg = &plan->args[index];
  arg->kind = kTensor;
  arg->type = type;
  arg->dtype = dtype;
  arg->device = device;
  arg->rank = rank;
  for (int axis = 0; axis < rank; ++axis)
    arg->shape[axis] = shape[axis];
  arg->slot = slot;
  return 1;
}

PHOBOS_EXPORT int phobosPyPlanSetScalar(Plan *plan, int index, int kind,
                                        void *slot) {
  if (index < 0 || index >= plan->numArgs || kind < kF32 || kind > kBool)
    return 0;
  plan->args[index].kind = kind;
  plan->args[index].slot = slot;
  return 1;
}

PHOBOS_EXPORT void phobosPyPlanDestroy(Plan *plan) { free(plan); }

/* A method's result as a long long; -1 with `*ok` cleared on failure. */
static long long callLong(PyObject *object, PyObject *name, int *ok,
                          int asUnsigned) {
  PyObject *result = PyObject_CallMethodObjArgs(object, name, NULL);
  if (!result) {
    *ok = 0;
    return -1;
  }
  long long value = asUnsigned ? (long long)PyLong_AsUnsignedLongLong(result)
                               : PyLong_AsLongLong(result);
  Py_DECREF(result);
  if (PyErr_Occurred())
    *ok = 0;
  return value;
}

/* Reads and checks one tensor; 1 when the plan describes it. */
static int bindTensor(const PlanArg *arg, PyObject *value) {
  if ((PyObject *)Py_TYPE(value) != arg->type)
    return 0;
  PyObject *dtype = PyObject_GetAttr(value, nameDtype);
  if (!dtype)
    return 0;
  int same = dtype == arg->dtype;
  Py_DECREF(dtype);
  if (!same)
    return 0;
  PyObject *shape = PyObject_GetAttr(value, nameShape);
  if (!shape)
    return 0;
  int ok = PyTuple_Check(shape) && PyTuple_Size(shape) == arg->rank;
  for (int axis = 0; ok && axis < arg->rank; ++axis) {
    PyObject *extent = PyTuple_GetItem(shape, axis);
    ok = extent && PyLong_AsLongLong(extent) == arg->shape[axis] &&
         !PyErr_Occurred();
  }
  Py_DECREF(shape);
  if (!ok)
    return 0;
  PyObject *contiguous = PyObject_CallMethodObjArgs(value, nameIsContiguous, NULL);
  if (!contiguous)
    return 0;
  ok = contiguous == Py_True;
  Py_DECREF(contiguous);
  if (!ok || callLong(value, nameGetDevice, &ok, 0) != arg->device || !ok)
    return 0;
  unsigned long long pointer =
      (unsigned long long)callLong(value, nameDataPtr, &ok, 1);
  /* Null or misaligned: the full path says what is wrong. */
  if (!ok || pointer == 0 || (pointer & 15))
    return 0;
  *(uint64_t *)arg->slot = pointer;
  return 1;
}

static const double kF32Max = 3.4028234663852886e38;

/* Converts one scalar as the full path would accept it; 0 otherwise. */
static int bindScalar(const PlanArg *arg, PyObject *value) {
  PyTypeObject *type = Py_TYPE(value);
  if (arg->kind == kF32 || arg->kind == kF64) {
    double number;
    if (type == &PyFloat_Type)
      number = PyFloat_AsDouble(value);
    else if (type == &PyLong_Type || type == &PyBool_Type)
      number = PyLong_AsDouble(value);
    else
      return 0;
    if (PyErr_Occurred())
      return 0;
    if (arg->kind == kF64) {
      memcpy(arg->slot, &number, sizeof number);
      return 1;
    }
    /* Finite values beyond f32's range are refused by the full path. */
    if (isfinite(number) && fabs(number) > kF32Max)
      return 0;
    float single = (float)number;
    memcpy(arg->slot, &single, sizeof single);
    return 1;
  }
  if (type != &PyLong_Type && type != &PyBool_Type)
    return 0;
  int overflow = 0;
  long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow || PyErr_Occurred())
    return 0;
  switch (arg->kind) {
  case kI32: {
    if (type != &PyLong_Type || number < INT32_MIN || number > INT32_MAX)
      return 0;
    int32_t narrow = (int32_t)number;
    memcpy(arg->slot, &narrow, sizeof narrow);
    return 1;
  }
  case kI64:
    if (type != &PyLong_Type)
      return 0;
    memcpy(arg->slot, &number, sizeof number);
    return 1;
  case kBool: {
    if (number != 0 && number != 1)
      return 0;
    uint8_t flag = (uint8_t)number;
    memcpy(arg->slot, &flag, sizeof flag);
    return 1;
  }
  }
  return 0;
}

/* Launches `plan` with `args` (a tuple) on `grid` and `stream`: 1 when
   launched, 0 when the arguments are not the plan's (take the full path),
   and -CUresult when the driver failed. */
PHOBOS_EXPORT int phobosPyPlanLaunch(Plan *plan, PyObject *args, unsigned gridX,
                                     unsigned gridY, unsigned gridZ,
                                     void *stream) {
  if (!PyTuple_Check(args) || PyTuple_Size(args) != plan->numArgs)
    return 0;
  for (int index = 0; index < plan->numArgs; ++index) {
    const PlanArg *arg = &plan->args[index];
    PyObject *value = PyTuple_GetItem(args, index);
    int ok = value && (arg->kind == kTensor ? bindTensor(arg, value)
                                            : bindScalar(arg, value));
    if (!ok) {
      PyErr_Clear();
      return 0;
    }
  }
  void *current = NULL;
  int result = plan->getCurrent(&current);
  if (result == 0 && current != plan->context)
    result = plan->setCurrent(plan->context);
  if (result == 0)
    result = plan->launch(plan->function, gridX, gridY, gridZ, plan->block, 1,
                          1, plan->sharedBytes, stream, plan->params, NULL);
  return result == 0 ? 1 : -result;
}

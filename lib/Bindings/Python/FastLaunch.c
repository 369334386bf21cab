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
|* Two Python types make `kernel[grid](...)` one C call with no Python frame *|
|* on the way: a LaunchTable (one per kernel: its plans by grid and variant  *|
|* keywords; a grid function is called here, with the dims and variant of    *|
|* the plan that takes the arguments) and the Launcher `kernel[grid]`        *|
|* returns. A Launcher's call tries the table's plans for its grid and       *|
|* keywords and otherwise calls the kernel's `_launch_slow`, the package's   *|
|* path in Python.                                                            *|
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
  /* Tensors: the bytes they span (dense), and whether the kernel writes
     them; a launch whose tensors overlap one that is written takes the full
     path, which refuses it. */
  unsigned long long bytes;
  int written;
  /* Tensors read through TMA: the address their tensor map was encoded for
     (0: none). The map is a parameter of the plan, so the plan takes only
     launches whose tensor is still there; another plan, or the full path
     (which encodes a map for the new address), takes the others. */
  unsigned long long mappedAt;
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

/* What tensor `index` spans and whether the kernel writes it. */
PHOBOS_EXPORT int phobosPyPlanSetSpan(Plan *plan, int index,
                                      unsigned long long bytes, int written) {
  if (index < 0 || index >= plan->numArgs || plan->args[index].kind != kTensor)
    return 0;
  plan->args[index].bytes = bytes;
  plan->args[index].written = written != 0;
  return 1;
}

/* Tensor `index` is read through a tensor map encoded for `pointer`. */
PHOBOS_EXPORT int phobosPyPlanSetMapped(Plan *plan, int index,
                                        unsigned long long pointer) {
  if (index < 0 || index >= plan->numArgs || plan->args[index].kind != kTensor ||
      pointer == 0)
    return 0;
  plan->args[index].mappedAt = pointer;
  return 1;
}

/* Whether two tensors of the launch share memory where one is written. */
static int overlapsWritten(const Plan *plan, const uint64_t *values) {
  for (int i = 0; i < plan->numArgs; ++i) {
    const PlanArg *a = &plan->args[i];
    if (a->kind != kTensor || a->bytes == 0)
      continue;
    for (int j = i + 1; j < plan->numArgs; ++j) {
      const PlanArg *b = &plan->args[j];
      if (b->kind != kTensor || b->bytes == 0 || !(a->written || b->written))
        continue;
      if (values[i] < values[j] + b->bytes && values[j] < values[i] + a->bytes)
        return 1;
    }
  }
  return 0;
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

/* Reads and checks one tensor into `*out`; 1 when the plan describes it. */
static int bindTensor(const PlanArg *arg, PyObject *value, uint64_t *out) {
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
  if (arg->mappedAt && pointer != arg->mappedAt)
    return 0;
  *out = pointer;
  return 1;
}

static const double kF32Max = 3.4028234663852886e38;

/* Converts one scalar as the full path would accept it into `*out` (the
   parameter's bytes); 0 otherwise. */
static int bindScalar(const PlanArg *arg, PyObject *value, uint64_t *out) {
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
      memcpy(out, &number, sizeof number);
      return 1;
    }
    /* Finite values beyond f32's range are refused by the full path. */
    if (isfinite(number) && fabs(number) > kF32Max)
      return 0;
    float single = (float)number;
    memcpy(out, &single, sizeof single);
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
    memcpy(out, &narrow, sizeof narrow);
    return 1;
  }
  case kI64:
    if (type != &PyLong_Type)
      return 0;
    memcpy(out, &number, sizeof number);
    return 1;
  case kBool: {
    if (number != 0 && number != 1)
      return 0;
    uint8_t flag = (uint8_t)number;
    memcpy(out, &flag, sizeof flag);
    return 1;
  }
  }
  return 0;
}

/* The bytes each kind of argument fills in its parameter slot. */
static size_t slotBytes(int kind) {
  switch (kind) {
  case kF32:
  case kI32:
    return 4;
  case kBool:
    return 1;
  default:
    return 8;
  }
}

/* Reads `args` (a tuple) into `values` (numArgs of them) as the plan
   describes them: 1 when they are the plan's, 0 otherwise (take the full
   path). Every argument is read before any slot is written, so Python code
   that runs while reading one (a tensor subclass's method) cannot
   interleave another thread's launch of this plan between the writes and
   cuLaunchKernel. */
static int planBind(const Plan *plan, PyObject *args, uint64_t *values) {
  if (!PyTuple_Check(args) || PyTuple_Size(args) != plan->numArgs)
    return 0;
  int ok = 1;
  for (int index = 0; ok && index < plan->numArgs; ++index) {
    const PlanArg *arg = &plan->args[index];
    PyObject *value = PyTuple_GetItem(args, index);
    ok = value && (arg->kind == kTensor
                       ? bindTensor(arg, value, &values[index])
                       : bindScalar(arg, value, &values[index]));
  }
  if (!ok || overlapsWritten(plan, values)) {
    PyErr_Clear();
    return 0;
  }
  return 1;
}

/* Fills the plan's slots from bound `values` and launches it: 1 when
   launched, -CUresult when the driver failed. */
static int planIssue(Plan *plan, const uint64_t *values, unsigned gridX,
                     unsigned gridY, unsigned gridZ, void *stream) {
  for (int index = 0; index < plan->numArgs; ++index)
    memcpy(plan->args[index].slot, &values[index],
           slotBytes(plan->args[index].kind));
  void *current = NULL;
  int result = plan->getCurrent(&current);
  if (result == 0 && current != plan->context)
    result = plan->setCurrent(plan->context);
  if (result == 0)
    result = plan->launch(plan->function, gridX, gridY, gridZ, plan->block, 1,
                          1, plan->sharedBytes, stream, plan->params, NULL);
  return result == 0 ? 1 : -result;
}

/* The bound values of a plan: on the stack up to 16 arguments. */
typedef struct Bound {
  uint64_t small[16];
  uint64_t *values;
} Bound;

static int boundInit(Bound *bound, const Plan *plan) {
  bound->values = bound->small;
  if (plan->numArgs > 16 &&
      !(bound->values = malloc(sizeof(uint64_t) * (size_t)plan->numArgs)))
    return 0;
  return 1;
}

static void boundFree(Bound *bound) {
  if (bound->values != bound->small)
    free(bound->values);
}

/* Launches `plan` with `args` (a tuple) on `grid` and `stream`: 1 when
   launched, 0 when the arguments are not the plan's (take the full path),
   and -CUresult when the driver failed. */
PHOBOS_EXPORT int phobosPyPlanLaunch(Plan *plan, PyObject *args, unsigned gridX,
                                     unsigned gridY, unsigned gridZ,
                                     void *stream) {
  Bound bound;
  if (!boundInit(&bound, plan))
    return 0;
  int result = planBind(plan, args, bound.values)
                   ? planIssue(plan, bound.values, gridX, gridY, gridZ, stream)
                   : 0;
  boundFree(&bound);
  return result;
}

/*===----------------------------------------------------------------------===*\
|* LaunchTable and Launcher                                                   *|
\*===----------------------------------------------------------------------===*/

/* One plan of a table: the grid key it serves (a tuple or None, compared by
   identity, then by equality for tuples; or the package's key of every
   callable grid) and the variant keywords (a dict of ints, or NULL for a
   launch without keywords), the Python plan that owns the C plan and its
   buffers (kept alive here), the grid it launches (or, for a callable
   grid, the dims and variant the grid is called with at each launch) and
   where its stream comes from (`stream(streamArg)`, or `stream()` without
   one). */
typedef struct TableEntry {
  PyObject *key;
  PyObject *keywords;
  PyObject *owner;
  Plan *plan;
  unsigned grid[3];
  PyObject *meta;
  PyObject *stream;
  PyObject *streamArg;
} TableEntry;

typedef struct LaunchTable {
  PyObject_HEAD
  /* Called as onError(owner, CUresult, (x, y, z)) when the driver refuses a
     launch; it raises. */
  PyObject *onError;
  TableEntry *entries;
  Py_ssize_t count;
} LaunchTable;

typedef struct Launcher {
  PyObject_HEAD
  LaunchTable *table;
  PyObject *kernel;
  PyObject *grid;
} Launcher;

static PyObject *nameLaunchSlow;

static void releaseEntries(TableEntry *entries, Py_ssize_t count) {
  for (Py_ssize_t i = 0; i < count; ++i) {
    Py_XDECREF(entries[i].key);
    Py_XDECREF(entries[i].keywords);
    Py_XDECREF(entries[i].stream);
    Py_XDECREF(entries[i].streamArg);
    Py_XDECREF(entries[i].meta);
    /* Last: dropping the owner may free the C plan. */
    Py_XDECREF(entries[i].owner);
  }
  free(entries);
}

/* A zeroed instance of the heap type `type` (new reference), or NULL. */
static PyObject *newHeapObject(PyTypeObject *type) {
  allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
  return alloc(type, 0);
}

static void freeHeapObject(PyObject *self) {
  PyTypeObject *type = Py_TYPE(self);
  freefunc release = (freefunc)PyType_GetSlot(type, Py_tp_free);
  release(self);
  Py_DECREF(type);
}

static PyObject *tableNew(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *onError;
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "LaunchTable(on_error) takes no keywords");
    return NULL;
  }
  if (!PyArg_UnpackTuple(args, "LaunchTable", 1, 1, &onError))
    return NULL;
  if (!PyCallable_Check(onError)) {
    PyErr_SetString(PyExc_TypeError, "LaunchTable(on_error): not callable");
    return NULL;
  }
  LaunchTable *self = (LaunchTable *)newHeapObject(type);
  if (!self)
    return NULL;
  Py_INCREF(onError);
  self->onError = onError;
  return (PyObject *)self;
}

/* Empties the table; the entries are detached first, so that a plan's
   destructor run by the release sees a consistent (empty) table. */
static void emptyTable(LaunchTable *self) {
  TableEntry *entries = self->entries;
  Py_ssize_t count = self->count;
  self->entries = NULL;
  self->count = 0;
  releaseEntries(entries, count);
}

static void tableDealloc(PyObject *object) {
  LaunchTable *self = (LaunchTable *)object;
  emptyTable(self);
  Py_XDECREF(self->onError);
  freeHeapObject(object);
}

static int sameKey(PyObject *key, PyObject *grid) {
  if (key == grid)
    return 1;
  if (!PyTuple_Check(key) || !PyTuple_Check(grid))
    return 0;
  int equal = PyObject_RichCompareBool(key, grid, Py_EQ);
  if (equal < 0) {
    PyErr_Clear();
    return 0;
  }
  return equal;
}

/* Whether a launch's keywords (NULL or a dict) are an entry's: none on
   either side, or the same names with equal values, each of the launch's
   an int (not a bool: the full path refuses other values, and says so). */
static int sameKeywords(PyObject *entry, PyObject *given) {
  Py_ssize_t count = given ? PyDict_Size(given) : 0;
  if (!entry)
    return count == 0;
  if (count != PyDict_Size(entry))
    return 0;
  PyObject *name, *value;
  Py_ssize_t position = 0;
  while (PyDict_Next(entry, &position, &name, &value)) {
    PyObject *launched = PyDict_GetItem(given, name);
    if (!launched || !PyLong_CheckExact(launched))
      return 0;
    int equal = PyObject_RichCompareBool(launched, value, Py_EQ);
    if (equal != 1) {
      PyErr_Clear();
      return 0;
    }
  }
  return 1;
}

/* table.set(key, entries[, keywords]): the plans for `key` and `keywords`
   (a dict of a launch's variant keywords; None or absent: a launch without
   any), replacing the ones they had; each entry is (owner, plan address,
   (x, y, z) or, for the key of callable grids, the dict the grid is called
   with, stream, stream argument or None). */
static PyObject *tableSet(PyObject *object, PyObject *args) {
  LaunchTable *self = (LaunchTable *)object;
  PyObject *key, *list, *keywords = Py_None;
  if (!PyArg_ParseTuple(args, "OO!|O:set", &key, &PyList_Type, &list, &keywords))
    return NULL;
  if (keywords != Py_None && !PyDict_Check(keywords)) {
    PyErr_SetString(PyExc_TypeError, "set: keywords is a dict or None");
    return NULL;
  }
  if (keywords != Py_None && PyDict_Size(keywords) == 0)
    keywords = Py_None;
  Py_ssize_t added = PyList_Size(list);
  TableEntry *entries = calloc((size_t)(self->count + added + 1), sizeof(TableEntry));
  if (!entries)
    return PyErr_NoMemory();
  Py_ssize_t count = 0;
  for (Py_ssize_t i = 0; i < added; ++i) {
    PyObject *owner, *grid, *stream, *streamArg;
    unsigned long long address;
    unsigned x = 0, y = 0, z = 0;
    if (!PyArg_ParseTuple(PyList_GetItem(list, i), "OKOOO:set entry", &owner,
                          &address, &grid, &stream, &streamArg) ||
        (!PyDict_Check(grid) &&
         !PyArg_ParseTuple(grid, "III:set entry's grid", &x, &y, &z))) {
      releaseEntries(entries, count);
      return NULL;
    }
    if (!address || !PyCallable_Check(stream)) {
      releaseEntries(entries, count);
      PyErr_SetString(PyExc_ValueError, "set entry: no plan or no stream source");
      return NULL;
    }
    TableEntry *entry = &entries[count++];
    Py_INCREF(key);
    entry->key = key;
    if (keywords != Py_None) {
      Py_INCREF(keywords);
      entry->keywords = keywords;
    }
    Py_INCREF(owner);
    entry->owner = owner;
    entry->plan = (Plan *)(uintptr_t)address;
    entry->grid[0] = x;
    entry->grid[1] = y;
    entry->grid[2] = z;
    if (PyDict_Check(grid)) {
      Py_INCREF(grid);
      entry->meta = grid;
    }
    Py_INCREF(stream);
    entry->stream = stream;
    if (streamArg != Py_None) {
      Py_INCREF(streamArg);
      entry->streamArg = streamArg;
    }
  }
  /* The other keys' entries move over; this key's old ones are released. */
  TableEntry *old = self->entries;
  Py_ssize_t oldCount = self->count;
  TableEntry *dropped = calloc((size_t)oldCount + 1, sizeof(TableEntry));
  if (!dropped) {
    releaseEntries(entries, count);
    return PyErr_NoMemory();
  }
  Py_ssize_t droppedCount = 0;
  PyObject *replaced = keywords == Py_None ? NULL : keywords;
  for (Py_ssize_t i = 0; i < oldCount; ++i) {
    if (sameKey(old[i].key, key) &&
        (old[i].keywords ? replaced && sameKeywords(replaced, old[i].keywords)
                         : !replaced))
      dropped[droppedCount++] = old[i];
    else
      entries[count++] = old[i];
  }
  free(old);
  self->entries = entries;
  self->count = count;
  releaseEntries(dropped, droppedCount);
  Py_RETURN_NONE;
}

static PyObject *tableClear(PyObject *object, PyObject *unused) {
  (void)unused;
  emptyTable((LaunchTable *)object);
  Py_RETURN_NONE;
}

static PyObject *tableLen(PyObject *object, PyObject *unused) {
  (void)unused;
  return PyLong_FromSsize_t(((LaunchTable *)object)->count);
}

/* The extents a callable grid returns for `meta` (a copy is passed): an
   int or a tuple or list of 1 to 3 ints, within the GPU's limits. 1 when
   read; 0 when the value is of another form (the full path says what is
   wrong with it); -1 when the grid raised. */
static int callGrid(PyObject *grid, PyObject *meta, unsigned out[3]) {
  PyObject *copy = PyDict_Copy(meta);
  if (!copy)
    return -1;
  PyObject *value = PyObject_CallFunctionObjArgs(grid, copy, NULL);
  Py_DECREF(copy);
  if (!value)
    return -1;
  long long axes[3] = {1, 1, 1};
  int ok = 1;
  if (PyLong_Check(value)) {
    axes[0] = PyLong_AsLongLong(value);
  } else if (PyTuple_Check(value) || PyList_Check(value)) {
    Py_ssize_t rank = PySequence_Size(value);
    ok = rank >= 1 && rank <= 3;
    for (Py_ssize_t axis = 0; ok && axis < rank; ++axis) {
      PyObject *extent = PySequence_GetItem(value, axis);
      ok = extent && PyLong_Check(extent);
      if (ok)
        axes[axis] = PyLong_AsLongLong(extent);
      Py_XDECREF(extent);
    }
  } else {
    ok = 0;
  }
  Py_DECREF(value);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return 0;
  }
  /* cuLaunchKernel's limits, as the package's within_limits. */
  if (!ok || axes[0] < 1 || axes[0] > 2147483647LL || axes[1] < 1 ||
      axes[1] > 65535 || axes[2] < 1 || axes[2] > 65535)
    return 0;
  for (int axis = 0; axis < 3; ++axis)
    out[axis] = (unsigned)axes[axis];
  return 1;
}

/* Launches through the first of the table's plans for `grid` and the
   variant keywords `keywords` (NULL: none) that takes `args`: 1 launched,
   0 none took them, -1 with an exception set. A callable grid is called
   (with the plan's dims and variant) only for a plan that takes the
   arguments. */
static int tableLaunch(LaunchTable *self, PyObject *grid, PyObject *args,
                       PyObject *keywords) {
  int callable = -1;
  for (Py_ssize_t i = 0; i < self->count; ++i) {
    TableEntry *entry = &self->entries[i];
    if (!sameKeywords(entry->keywords, keywords))
      continue;
    if (entry->meta) {
      if (callable < 0)
        callable = !PyTuple_Check(grid) && PyCallable_Check(grid);
      if (!callable)
        continue;
    } else if (!sameKey(entry->key, grid)) {
      continue;
    }
    PyObject *handle = entry->streamArg
                           ? PyObject_CallFunctionObjArgs(entry->stream,
                                                          entry->streamArg, NULL)
                           : PyObject_CallFunctionObjArgs(entry->stream, NULL);
    if (!handle)
      return -1;
    void *stream = PyLong_AsVoidPtr(handle);
    Py_DECREF(handle);
    if (PyErr_Occurred())
      return -1;
    /* The entry stays alive through the launch even if Python code run
       while binding, or by the grid, changes the table. */
    PyObject *owner = entry->owner;
    Py_INCREF(owner);
    PyObject *meta = entry->meta;
    Py_XINCREF(meta);
    Plan *plan = entry->plan;
    unsigned extents[3] = {entry->grid[0], entry->grid[1], entry->grid[2]};
    Bound bound;
    int result = boundInit(&bound, plan) ? planBind(plan, args, bound.values) : 0;
    if (result == 1 && meta)
      result = callGrid(grid, meta, extents);
    if (result == 1)
      result = planIssue(plan, bound.values, extents[0], extents[1], extents[2],
                         stream);
    boundFree(&bound);
    Py_XDECREF(meta);
    if (result == 1) {
      Py_DECREF(owner);
      return 1;
    }
    if (result < 0 && PyErr_Occurred()) {
      /* The grid raised: its error is the launch's. */
      Py_DECREF(owner);
      return -1;
    }
    if (result < 0) {
      PyObject *raised = PyObject_CallFunction(self->onError, "Oi(III)", owner,
                                               -result, extents[0], extents[1],
                                               extents[2]);
      Py_DECREF(owner);
      Py_XDECREF(raised);
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError, "cuLaunchKernel failed");
      return -1;
    }
    Py_DECREF(owner);
    /* A plan that does not take the arguments, or a grid of another form:
       the next plan, or the Python path, which says what is wrong. The
       table may have changed under a Python method: stay in bounds. */
    if (i >= self->count)
      break;
  }
  return 0;
}

static PyObject *launcherNew(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *table, *kernel, *grid;
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "Launcher(table, kernel, grid) takes no keywords");
    return NULL;
  }
  if (!PyArg_UnpackTuple(args, "Launcher", 3, 3, &table, &kernel, &grid))
    return NULL;
  Launcher *self = (Launcher *)newHeapObject(type);
  if (!self)
    return NULL;
  Py_INCREF(table);
  self->table = (LaunchTable *)table;
  Py_INCREF(kernel);
  self->kernel = kernel;
  Py_INCREF(grid);
  self->grid = grid;
  return (PyObject *)self;
}

static void launcherDealloc(PyObject *object) {
  Launcher *self = (Launcher *)object;
  Py_XDECREF(self->table);
  Py_XDECREF(self->kernel);
  Py_XDECREF(self->grid);
  freeHeapObject(object);
}

/* kernel[grid](*args, **keywords): the table's plans for the grid and the
   keywords (only variant keywords are ever a plan's: `stream=` and the
   like go the Python way), else kernel._launch_slow(grid, args,
   **keywords). */
static PyObject *launcherCall(PyObject *object, PyObject *args, PyObject *kwargs) {
  Launcher *self = (Launcher *)object;
  int launched = tableLaunch(self->table, self->grid, args, kwargs);
  if (launched < 0)
    return NULL;
  if (launched)
    Py_RETURN_NONE;
  PyObject *slow = PyObject_GetAttr(self->kernel, nameLaunchSlow);
  if (!slow)
    return NULL;
  PyObject *positional = PyTuple_Pack(2, self->grid, args);
  PyObject *result = positional ? PyObject_Call(slow, positional, kwargs) : NULL;
  Py_XDECREF(positional);
  Py_DECREF(slow);
  return result;
}

static PyObject *launcherGrid(PyObject *object, void *unused) {
  (void)unused;
  PyObject *grid = ((Launcher *)object)->grid;
  Py_INCREF(grid);
  return grid;
}

static PyObject *launcherKernel(PyObject *object, void *unused) {
  (void)unused;
  PyObject *kernel = ((Launcher *)object)->kernel;
  Py_INCREF(kernel);
  return kernel;
}

static PyMethodDef tableMethods[] = {
    {"set", tableSet, METH_VARARGS,
     "set(key, entries): the plans for a grid key, replacing its old ones"},
    {"clear", tableClear, METH_NOARGS, "clear(): forget every plan"},
    {"size", tableLen, METH_NOARGS, "size(): how many plans the table holds"},
    {NULL, NULL, 0, NULL}};

static char tableDoc[] = "A kernel's launch plans in C, by grid.";
static char launcherDoc[] = "kernel[grid]: call it with the kernel's arguments.";

static PyType_Slot tableSlots[] = {
    {Py_tp_new, (void *)tableNew},
    {Py_tp_dealloc, (void *)tableDealloc},
    {Py_tp_methods, tableMethods},
    {Py_tp_doc, tableDoc},
    {0, NULL}};

static PyType_Spec tableSpec = {"phobos._native.LaunchTable",
                                sizeof(LaunchTable), 0, Py_TPFLAGS_DEFAULT,
                                tableSlots};

static PyGetSetDef launcherGetSet[] = {
    {"grid", launcherGrid, NULL, "the grid of kernel[grid]", NULL},
    {"kernel", launcherKernel, NULL, "the kernel of kernel[grid]", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot launcherSlots[] = {
    {Py_tp_new, (void *)launcherNew},
    {Py_tp_dealloc, (void *)launcherDealloc},
    {Py_tp_call, (void *)launcherCall},
    {Py_tp_getset, launcherGetSet},
    {Py_tp_doc, launcherDoc},
    {0, NULL}};

static PyType_Spec launcherSpec = {"phobos._native.Launcher", sizeof(Launcher),
                                   0, Py_TPFLAGS_DEFAULT, launcherSlots};

/* (LaunchTable, Launcher), made once; a new reference. */
PHOBOS_EXPORT PyObject *phobosPyLaunchTypes(void) {
  static PyObject *types;
  if (!types) {
    if (!internNames())
      return NULL;
    nameLaunchSlow = PyUnicode_InternFromString("_launch_slow");
    if (!nameLaunchSlow)
      return NULL;
    PyObject *table = PyType_FromSpec(&tableSpec);
    PyObject *launcher = table ? PyType_FromSpec(&launcherSpec) : NULL;
    if (launcher)
      types = PyTuple_Pack(2, table, launcher);
    Py_XDECREF(table);
    Py_XDECREF(launcher);
    if (!types)
      return NULL;
  }
  Py_INCREF(types);
  return types;
}

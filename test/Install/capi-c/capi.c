/*===- capi.c - A C program on the installed front door -------------------===*\
|* Loads the saxpy example through phobos-c/Compiler.h, reads the launch     *|
|* contract of one variant, checks a launch's arguments against it          *|
|* (phobos-c/Runtime.h), compiles it to PTX for sm_90a (without ptxas),      *|
|* runs it on the CPU interpreter and checks every element against double   *|
|* arithmetic; runs the race check (clean there, a race in a second         *|
|* program); then checks that a broken program is reported at its line.    *|
|* Usage: capi FILE.ph  (scripts/test-install.sh builds and runs it)         *|
\*===----------------------------------------------------------------------===*/

#include "phobos-c/Compiler.h"
#include "phobos-c/Runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PhobosStringRef str(const char *text) {
  return phobosStringRefCreateFromCString(text);
}

static int fail(const char *what, PhobosError error) {
  PhobosStringRef message = phobosErrorGetMessage(error);
  fprintf(stderr, "capi: %s: %.*s\n", what, (int)message.length, message.data);
  phobosErrorDestroy(error);
  return 1;
}

static int contains(PhobosStringRef text, const char *needle) {
  size_t length = strlen(needle);
  for (size_t i = 0; i + length <= text.length; ++i)
    if (memcmp(text.data + i, needle, length) == 0)
      return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi FILE.ph\n");
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file) {
    fprintf(stderr, "capi: cannot read %s\n", argv[1]);
    return 2;
  }
  static char source[1 << 16];
  size_t length = fread(source, 1, sizeof(source), file);
  fclose(file);

  PhobosSession session = phobosSessionCreate();
  PhobosError error = phobosSessionLoad(session, (PhobosStringRef){source, length},
                                        str(argv[1]), str(""));
  if (!phobosErrorIsNull(error))
    return fail("load", error);
  if (phobosSessionGetNumKernels(session) != 1)
    return fprintf(stderr, "capi: expected one kernel\n"), 1;

  PhobosStringRef space;
  error = phobosSessionGetAutotuneSpace(session, str("saxpy"), &space);
  if (!phobosErrorIsNull(error))
    return fail("space", error);
  if (!contains(space, "BLOCK=16:32:64:128:256:512:1024:2048:4096:8192"))
    return fprintf(stderr, "capi: unexpected space %.*s\n", (int)space.length, space.data), 1;

  PhobosCompileRequest request = {str("saxpy"), str("BLOCK=256"), str(""),
                                  str("contract"), str(""), false};
  PhobosKernelBuild build;
  error = phobosSessionCompile(session, &request, &build);
  if (!phobosErrorIsNull(error))
    return fail("contract", error);
  PhobosStringRef contract = phobosKernelBuildGetContract(build);
  if (!contains(contract, "\"cta_threads\"") || !contains(contract, "\"BLOCK\":256"))
    return fprintf(stderr, "capi: unexpected contract %.*s\n", (int)contract.length,
                   contract.data), 1;
  PhobosLaunchContract checks;
  error = phobosLaunchContractCreate(contract, &checks);
  if (!phobosErrorIsNull(error))
    return fail("launch contract", error);
  phobosKernelBuildDestroy(build);

  request.chip = str("sm_90a");
  error = phobosSessionCompile(session, &request, &build);
  if (!phobosErrorIsNull(error))
    return fail("compile", error);
  if (!contains(phobosKernelBuildGetPtx(build), ".entry saxpy") ||
      !contains(phobosKernelBuildGetPtx(build), ".target sm_90a"))
    return fprintf(stderr, "capi: no sm_90a PTX for saxpy\n"), 1;
  phobosKernelBuildDestroy(build);

  enum { N = 1000 };
  float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float)),
        *out = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    x[i] = (float)(i % 17) * 0.25f - 2.0f;
    y[i] = (float)(i % 5) - 1.5f;
    out[i] = NAN; /* poisoned: every element must be written */
  }
  int64_t shape[1] = {N};
  PhobosArgument args[4] = {
      {x, str("f32"), 1, shape, 0, 0},
      {y, str("f32"), 1, shape, 0, 0},
      {out, str("f32"), 1, shape, 0, 0},
      {NULL, str(""), 0, NULL, 1.5, 0},
  };
  /* The launch checks: a misaligned x is refused by name; the arguments as
     they are bind, and the grid is the one the contract infers. */
  PhobosLaunchArgument launch[4] = {
      {true, (uint64_t)(uintptr_t)x + 4, str("f32"), str(""), 1, shape, NULL, false, 0, 0},
      {true, (uint64_t)(uintptr_t)y, str("f32"), str(""), 1, shape, NULL, false, 0, 0},
      {true, (uint64_t)(uintptr_t)out, str("f32"), str(""), 1, shape, NULL, false, 0, 0},
      {false, 0, str(""), str(""), 0, NULL, NULL, false, 0, 1.5},
  };
  PhobosBoundLaunch bound;
  error = phobosLaunchBind(checks, launch, 4, NULL, &bound);
  PhobosStringRef param = phobosErrorIsNull(error) ? str("") : phobosErrorGetParameter(error);
  if (phobosErrorIsNull(error) || param.length != 1 || param.data[0] != 'x' ||
      !contains(phobosErrorGetMessage(error), "is not 16-byte aligned"))
    return fprintf(stderr, "capi: a misaligned x was not refused by name\n"), 1;
  phobosErrorDestroy(error);
  launch[0].address -= 4;
  error = phobosLaunchBind(checks, launch, 4, NULL, &bound);
  if (!phobosErrorIsNull(error))
    return fail("bind", error);
  error = phobosBoundLaunchSetGrid(checks, bound, NULL);
  if (!phobosErrorIsNull(error))
    return fail("grid", error);
  int64_t grid[3];
  phobosBoundLaunchGetGrid(bound, 0, grid);
  if (grid[0] != (N + 255) / 256 || grid[1] != 1 || grid[2] != 1)
    return fprintf(stderr, "capi: inferred grid (%lld, %lld, %lld)\n", (long long)grid[0],
                   (long long)grid[1], (long long)grid[2]), 1;
  phobosBoundLaunchDestroy(bound);
  phobosLaunchContractDestroy(checks);
  error = phobosSessionInterpret(session, str("saxpy"), str("BLOCK=256"), grid, args, 4, 0, 0);
  if (!phobosErrorIsNull(error))
    return fail("interpret", error);
  for (int i = 0; i < N; ++i) {
    double expected = 1.5 * (double)x[i] + (double)y[i];
    if (!(fabs(out[i] - expected) <= 1e-6 * (1 + fabs(expected))))
      return fprintf(stderr, "capi: out[%d] = %g, expected %g\n", i, out[i], expected), 1;
  }

  /* The race check: saxpy is clean; two CTAs storing one block race, and
     the error names the later store's line. */
  intptr_t races = -1;
  error = phobosSessionRaceCheck(session, str("saxpy"), str("BLOCK=256"), grid, args, 4, 0,
                                 0, &races);
  if (!phobosErrorIsNull(error) || races != 0)
    return fail("race check of saxpy", error);
  const char *racy = "kernel racy(x: tensor<f32>[N]) {\n    x[0 :+ 64] = 1.0\n}\n";
  error = phobosSessionLoad(session, str(racy), str("racy.ph"), str(""));
  if (!phobosErrorIsNull(error))
    return fail("load racy.ph", error);
  int64_t two[3] = {2, 1, 1};
  error = phobosSessionRaceCheck(session, str("racy"), str(""), two, args, 1, 0, 0, &races);
  if (phobosErrorIsNull(error) || races != 1 ||
      !contains(phobosErrorGetMessage(error), "racy.ph:2:") ||
      !contains(phobosErrorGetMessage(error), "race on x[0]"))
    return fprintf(stderr, "capi: the race in racy.ph was not reported (%ld)\n", (long)races), 1;
  phobosErrorDestroy(error);

  const char *broken = "kernel bad(x: tensor<f32>[N]) {\n    let = 4\n}\n";
  error = phobosSessionLoad(session, str(broken), str("bad.ph"), str(""));
  if (phobosErrorIsNull(error))
    return fprintf(stderr, "capi: a broken program loaded\n"), 1;
  PhobosStringRef where = phobosErrorGetFile(error);
  if (phobosErrorGetLine(error) != 2 || where.length != 6 || memcmp(where.data, "bad.ph", 6))
    return fail("the error's place", error);
  phobosErrorDestroy(error);
  phobosSessionDestroy(session);
  free(x);
  free(y);
  free(out);
  printf("capi: saxpy compiled (%s) and interpreted on %d elements through the C API\n",
         "sm_90a", N);
  return 0;
}

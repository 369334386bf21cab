/*===- phobos-capi-test.c - The C API of the phobos dialect --------------===*\
|* Registers the dialect through its handle and the registration function,   *|
|* builds and inspects tile types, and runs --phobos-to-nvvm on a kernel     *|
|* parsed from text, all through MLIR's C API. Checked by phobos-capi.test.  *|
\*===----------------------------------------------------------------------===*/

#include "phobos-c/Dialects.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef text, void *user) {
  (void)user;
  fwrite(text.data, 1, text.length, stdout);
}

static const char *kernel =
    "phobos.kernel @scale(%x: !phobos.tensor<?xf32> {phobos.dims = [\"N\"], "
    "phobos.name = \"x\"}, %a: f32 {phobos.name = \"a\"}) "
    "attributes {max_threads = 128 : i32} {\n"
    "  %c128 = arith.constant 128 : i32\n"
    "  %b = phobos.block_id x\n"
    "  %o = arith.muli %b, %c128 : i32\n"
    "  %t = phobos.load %x[%o] : !phobos.tensor<?xf32> -> !phobos.tile<128xf32>\n"
    "  %s = phobos.mul %a, %t : f32, !phobos.tile<128xf32>\n"
    "  phobos.store %s, %x[%o] : !phobos.tile<128xf32>, !phobos.tensor<?xf32>\n"
    "  phobos.return\n"
    "}\n";

int main(void) {
  /* Unbuffered, so that diagnostics (stderr) interleave in order. */
  setvbuf(stdout, NULL, _IONBF, 0);
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  phobosRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);

  MlirDialectHandle handle = mlirGetDialectHandle__phobos__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  mlirDialectHandleLoadDialect(handle, context);
  // CHECK: namespace: phobos

  MlirLocation location = mlirLocationUnknownGet(context);
  int64_t shape[2] = {128, 64};
  MlirType tile = phobosTileTypeGetChecked(location, 2, shape,
                                           mlirF32TypeGet(context));
  mlirTypePrint(tile, print, NULL);
  printf("\nis tile %d, rank %d, %lld x %lld, layout null %d\n",
         phobosTypeIsATile(tile), (int)phobosTileTypeGetRank(tile),
         (long long)phobosTileTypeGetDimSize(tile, 0),
         (long long)phobosTileTypeGetDimSize(tile, 1),
         mlirAttributeIsNull(phobosTileTypeGetLayout(tile)));
  printf("element is f32 %d; f32 is a tile %d\n",
         mlirTypeIsAF32(phobosTileTypeGetElementType(tile)),
         phobosTypeIsATile(mlirF32TypeGet(context)));
  // CHECK-NEXT: !phobos.tile<128x64xf32>
  // CHECK-NEXT: is tile 1, rank 2, 128 x 64, layout null 1
  // CHECK-NEXT: element is f32 1; f32 is a tile 0

  /* An i8 tile is refused: a null type (and a diagnostic on stderr). */
  MlirType bad = phobosTileTypeGetChecked(location, 2, shape,
                                          mlirIntegerTypeGet(context, 8));
  printf("i8 tile is null %d\n", mlirTypeIsNull(bad));
  // CHECK-NEXT: error: tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'i8'
  // CHECK-NEXT: i8 tile is null 1

  /* The pipeline, by name, on a parsed kernel. */
  phobosRegisterAllPasses();
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kernel));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(
          "builtin.module(phobos-to-nvvm{chip=sm_90})"),
      print, NULL);
  if (mlirLogicalResultIsFailure(parsed)) {
    printf("\npipeline parse failed\n");
    return 1;
  }
  MlirLogicalResult ran =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  printf("pipeline %s\n", mlirLogicalResultIsSuccess(ran) ? "ok" : "failed");
  mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
  printf("\n");
  // CHECK-NEXT: pipeline ok
  // CHECK: gpu.module @phobos_kernels
  // CHECK: llvm.func @scale(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: f32)
  // CHECK: nvvm.read.ptx.sreg.tid.x
  // CHECK: llvm.fmul

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}

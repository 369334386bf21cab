// RUN: not phobos-opt %s --phobos-cluster-split 2>&1 | FileCheck %s

// The split reads the marks of phobos-translate --import-phobos --cluster.

// CHECK: error: kernel 'add' has @cluster but was imported without the marks the split needs; import it with phobos-translate --import-phobos --cluster
phobos.kernel @add(%a: !phobos.tensor<?xf32> {phobos.dims = ["N"], phobos.name = "a"}) attributes {autotune = [#phobos.tune_dim<"B", [16]>], cluster = [#phobos.tune_dim<"B", [1024]>], variant = {B = 16 : i64}} {
  phobos.return
}

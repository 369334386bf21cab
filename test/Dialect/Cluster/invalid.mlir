// RUN: phobos-opt %s -split-input-file -verify-diagnostics

// One case per verifier diagnostic of the phobos_cluster dialect.

//===----------------------------------------------------------------------===//
// The front end's marks
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'phobos_cluster.marked' is a unit attribute of a phobos.kernel}}
func.func @marked_elsewhere() attributes {phobos_cluster.marked} {
  return
}

// -----

phobos.kernel @dim_on_float() attributes {autotune = [#phobos.tune_dim<"B", [16]>], cluster = [#phobos.tune_dim<"B", [1024]>]} {
  // expected-error@+1 {{'phobos_cluster.dim' marks an integer arith.constant with the @cluster name it stands for}}
  %c = arith.constant {phobos_cluster.dim = "B"} 1.0 : f32
  phobos.return
}

// -----

phobos.kernel @dim_not_cluster() attributes {autotune = [#phobos.tune_dim<"B", [16]>], cluster = [#phobos.tune_dim<"B", [1024]>]} {
  // expected-error@+1 {{'phobos_cluster.dim' names 'C', which is not in the kernel's @cluster space}}
  %c = arith.constant {phobos_cluster.dim = "C"} 16 : i32
  phobos.return
}

// -----

phobos.kernel @extents_on_constant() {
  // expected-error@+1 {{'phobos_cluster.extents' is an array of strings on a phobos.load or phobos.store}}
  %c = arith.constant {phobos_cluster.extents = ["B"]} 16 : i32
  phobos.return
}

// -----

phobos.kernel @extents_rank(%a: !phobos.tensor<?xf32>) {
  %c = arith.constant 0 : i32
  // expected-error@+1 {{'phobos_cluster.extents' needs one name per tensor axis (1), got 2}}
  %t = phobos.load %a[%c] {phobos_cluster.extents = ["B", ""]} : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @extents_not_cluster(%a: !phobos.tensor<?xf32>) attributes {autotune = [#phobos.tune_dim<"B", [16]>], cluster = [#phobos.tune_dim<"B", [1024]>]} {
  %c = arith.constant 0 : i32
  // expected-error@+1 {{'phobos_cluster.extents' names 'C', which is not in the kernel's @cluster space}}
  %t = phobos.load %a[%c] {phobos_cluster.extents = ["C"]} : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

// expected-error@+1 {{unknown attribute 'phobos_cluster.other'}}
func.func @unknown_mark() attributes {phobos_cluster.other} {
  return
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{a buffer holds a super-tile of rank 1 or more}}
func.func @buffer_rank0(%b: !phobos_cluster.buffer<f32>)

// -----

// expected-error@+1 {{buffer extents must be positive, got 0}}
func.func @buffer_zero(%b: !phobos_cluster.buffer<0xf32>)

// -----

// expected-error@+1 {{buffer element type must be a tile element type, got 'i8'}}
func.func @buffer_element(%b: !phobos_cluster.buffer<4xi8>)

//===----------------------------------------------------------------------===//
// phobos_cluster.program
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{cluster must be an array of #phobos.tune_dim}}
phobos_cluster.program @bad_space attributes {cluster = [1]} {
}

// -----

// expected-error@+1 {{@cluster name 'S' appears twice}}
phobos_cluster.program @twice attributes {cluster = [#phobos.tune_dim<"S", [4]>, #phobos.tune_dim<"S", [8]>]} {
}

// -----

// expected-error@+1 {{binding 'S' must be a positive integer}}
phobos_cluster.program @bad_binding attributes {cluster = [#phobos.tune_dim<"S", [4]>], bindings = {S = 0 : i64}} {
}

// -----

// expected-error@+1 {{binding 'T' is not an @cluster name of the program}}
phobos_cluster.program @unknown_binding attributes {cluster = [#phobos.tune_dim<"S", [4]>], bindings = {T = 4 : i64}} {
}

// -----

// expected-error@+1 {{dim 'N' must be a positive integer}}
phobos_cluster.program @bad_dim attributes {dims = {N = -1 : i64}} {
}

// -----

phobos_cluster.program @two_units {
  phobos_cluster.units () in [] {
  }
  // expected-error@+1 {{a program has one units op}}
  phobos_cluster.units () in [] {
  }
}

// -----

phobos_cluster.program @node_unplanned {
  // expected-error@+1 {{a per-node program needs a planned program (with 'nodes')}}
  phobos_cluster.node 0 {
  }
}

// -----

phobos_cluster.program @node_range attributes {nodes = 2 : i64} {
  // expected-error@+1 {{node 2 is out of range; the plan has 2 nodes}}
  phobos_cluster.node 2 {
  }
}

// -----

phobos_cluster.program @node_twice attributes {nodes = 2 : i64} {
  phobos_cluster.node 0 {
  }
  // expected-error@+1 {{node 0 appears twice}}
  phobos_cluster.node 0 {
  }
}

// -----

phobos_cluster.program @stray {
  // expected-error@+1 {{is not allowed in a phobos_cluster.program}}
  %c = arith.constant 0 : i32
}

// -----

phobos_cluster.program @unshaped attributes {cluster = [#phobos.tune_dim<"S", [4]>], bindings = {S = 4 : i64}, dims = {N = 8 : i64}} {
  // expected-error@+1 {{a planned program gives every tensor a shape}}
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @unbound attributes {cluster = [#phobos.tune_dim<"S", [4]>, #phobos.tune_dim<"T", [4]>], bindings = {T = 4 : i64}, dims = {N = 8 : i64}} {
  // expected-error@+1 {{@cluster name 'S' is not bound by the plan}}
  phobos_cluster.tensor @x read dims ["N"] split ["S"] shape [8] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @ragged attributes {cluster = [#phobos.tune_dim<"S", [4]>], bindings = {S = 4 : i64}, dims = {N = 6 : i64}} {
  // expected-error@+1 {{axis 0 (6) is not a multiple of its super-tile S = 4}}
  phobos_cluster.tensor @x read dims ["N"] split ["S"] shape [6] : !phobos.tensor<?xf32>
}

//===----------------------------------------------------------------------===//
// phobos_cluster.tensor, phobos_cluster.scalar
//===----------------------------------------------------------------------===//

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{needs one dim name per axis (1), got 2}}
  phobos_cluster.tensor @x read dims ["N", "M"] split [""] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{needs one split entry per axis (1), got 2}}
  phobos_cluster.tensor @x read dims ["N"] split ["", ""] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  // expected-error@+1 {{axis 0 is split by 'T', which is not an @cluster name of the program}}
  phobos_cluster.tensor @x read dims ["N"] split ["T"] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  // expected-error@+1 {{axis 1 has the compile-time extent 64 and cannot be cut into super-tiles}}
  phobos_cluster.tensor @x read dims ["N", "D"] split ["", "S"] : !phobos.tensor<?x64xf32>
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{shape needs 1 extents, got 2}}
  phobos_cluster.tensor @x read dims ["N"] split [""] shape [4, 4] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{shape extents must be positive, got 0}}
  phobos_cluster.tensor @x read dims ["N"] split [""] shape [0] : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{axis 1 has the compile-time extent 64, but the shape gives 32}}
  phobos_cluster.tensor @x read dims ["N", "D"] split ["", ""] shape [8, 32] : !phobos.tensor<?x64xf32>
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{uri must not be empty}}
  phobos_cluster.tensor @x read dims ["N"] split [""] uri "" : !phobos.tensor<?xf32>
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{a scalar has a tile element type, got 'i8'}}
  phobos_cluster.scalar @s : i8
}

// -----

phobos_cluster.program @p {
  // expected-error@+1 {{value has type 'i32', but the scalar is 'f32'}}
  phobos_cluster.scalar @s : f32 {value = 1 : i32}
}

//===----------------------------------------------------------------------===//
// phobos_cluster.units, phobos_cluster.loop
//===----------------------------------------------------------------------===//

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  // expected-error@+1 {{needs one split name per grid axis}}
  "phobos_cluster.units"() <{dims = ["N"], split = ["S", "S"]}> ({
  ^bb0(%x: index):
  }) : () -> ()
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  // expected-error@+1 {{the super-tile grid has at most 3 axes, got 4}}
  phobos_cluster.units (%a, %b, %c, %d) in ["N" / "S", "N" / "S", "N" / "S", "N" / "S"] {
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  // expected-error@+1 {{needs one coordinate per grid axis}}
  "phobos_cluster.units"() <{dims = ["N"], split = ["S"]}> ({
  ^bb0:
  }) : () -> ()
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  // expected-error@+1 {{grid axis 0 is split by 'T', which is not an @cluster name of the program}}
  phobos_cluster.units (%x) in ["N" / "T"] {
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.units (%x) in ["N" / "S"] {
    phobos_cluster.loop %k in "K" / "S" {
    }
    // expected-error@+1 {{a unit of work has at most one cluster loop}}
    phobos_cluster.loop %j in "K" / "S" {
    }
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{is not allowed in a unit of work}}
    %c = arith.constant 0 : index
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{takes one index coordinate}}
    "phobos_cluster.loop"() <{dim = "K", split = "S"}> ({
    ^bb0:
    }) : () -> ()
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{needs a dim and the @cluster name that splits it}}
    phobos_cluster.loop %k in "" / "" {
    }
  }
}

// -----

// The effects of leaves on the refs of a unit of work, in launch order.

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x rmw dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{names a super-tile no leaf uses}}
    %r = phobos_cluster.ref read @x [%x]
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x rmw dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{is read-only, but a leaf writes it}}
    %r = phobos_cluster.ref read @x [%x]
    phobos_cluster.apply @writes(%r)
  }
  phobos.kernel @writes(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %z = arith.constant 0.0 : f32
    %t = phobos.fill %z : !phobos.tile<4xf32>
    phobos.store %t, %a[%c] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x rmw dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{is write-only, but its first leaf, 'scale', reads it; its access is rmw}}
    %r = phobos_cluster.ref write @x [%x]
    phobos_cluster.apply @scale(%r)
  }
  phobos.kernel @scale(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %t = phobos.load %a[%c] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    phobos.store %t, %a[%c] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x rmw dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{is rmw, but no leaf writes it}}
    %r = phobos_cluster.ref rmw @x [%x]
    phobos_cluster.apply @reads(%r)
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %t = phobos.load %a[%c] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x rmw dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{is rmw, but its first leaf, 'writes', writes it without reading it; its access is write}}
    %r = phobos_cluster.ref rmw @x [%x]
    phobos_cluster.apply @writes(%r)
  }
  phobos.kernel @writes(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %z = arith.constant 0.0 : f32
    %t = phobos.fill %z : !phobos.tile<4xf32>
    phobos.store %t, %a[%c] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x write dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x, %y) in ["N" / "S", "M" / "S"] {
    // expected-error@+1 {{writes a super-tile that does not depend on grid axis 1, so every unit along that axis would write it}}
    %r = phobos_cluster.ref write @x [%x]
    phobos_cluster.apply @writes(%r)
  }
  phobos.kernel @writes(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %z = arith.constant 0.0 : f32
    %t = phobos.fill %z : !phobos.tile<4xf32>
    phobos.store %t, %a[%c] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
}

//===----------------------------------------------------------------------===//
// phobos_cluster.ref, phobos_cluster.apply
//===----------------------------------------------------------------------===//

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{'q' does not name a tensor of the program}}
    %r = phobos_cluster.ref read @q [%x]
    phobos_cluster.apply @reads(%r)
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{@x is cut into super-tiles along 1 axes, got 0 coordinates}}
    %r = phobos_cluster.ref read @x []
    phobos_cluster.apply @reads(%r)
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>, #phobos.tune_dim<"T", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "T"] {
    // expected-error@+1 {{coordinate 0 of @x must be the grid coordinate or cluster loop chunk that runs over dim 'N' in S super-tiles}}
    %r = phobos_cluster.ref read @x [%x]
    phobos_cluster.apply @reads(%r)
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{writes @x, whose mode is read}}
    %r = phobos_cluster.ref write @x [%x]
    phobos_cluster.apply @writes(%r)
  }
  phobos.kernel @writes(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %z = arith.constant 0.0 : f32
    %t = phobos.fill %z : !phobos.tile<4xf32>
    phobos.store %t, %a[%c] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @o write dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    // expected-error@+1 {{reads @o, whose mode is write: storage holds nothing to read}}
    %r = phobos_cluster.ref read @o [%x]
    phobos_cluster.apply @reads(%r)
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{'nope' does not name a leaf kernel of the program}}
    phobos_cluster.apply @nope(%r)
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{leaf 'two' takes 2 tensors, got 1}}
    phobos_cluster.apply @two(%r)
  }
  phobos.kernel @two(%a: !phobos.tensor<?xf32>, %b: !phobos.tensor<?xf32>) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{tile 0 belongs to @x ('!phobos.tensor<?xf32>'), but leaf parameter 'a' is '!phobos.tensor<?x?xf32>'}}
    phobos_cluster.apply @rank2(%r)
  }
  phobos.kernel @rank2(%a: !phobos.tensor<?x?xf32> {phobos.name = "a"}) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{axis 0 of @x is cut into super-tiles, so leaf parameter 'a' must take its extent at launch, not 16}}
    phobos_cluster.apply @fixed(%r)
  }
  phobos.kernel @fixed(%a: !phobos.tensor<16xf32> {phobos.name = "a"}) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{leaf 'scaled' takes 1 scalars, got 0}}
    phobos_cluster.apply @scaled(%r)
  }
  phobos.kernel @scaled(%a: !phobos.tensor<?xf32>, %s: f32) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{'q' does not name a scalar of the program}}
    phobos_cluster.apply @scaled(%r) scalars [@q]
  }
  phobos.kernel @scaled(%a: !phobos.tensor<?xf32>, %s: f32) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.scalar @alpha : f32
  phobos_cluster.units (%x) in ["N" / "S"] {
    %r = phobos_cluster.ref read @x [%x]
    // expected-error@+1 {{scalar 'alpha' is 'f32', but leaf parameter 'n' is 'i32'}}
    phobos_cluster.apply @counted(%r) scalars [@alpha]
  }
  phobos.kernel @counted(%a: !phobos.tensor<?xf32>, %n: i32 {phobos.name = "n"}) {
    phobos.return
  }
}

//===----------------------------------------------------------------------===//
// Per-node programs
//===----------------------------------------------------------------------===//

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.node 0 {
    // expected-error@+1 {{is not a per-node instruction}}
    %c = arith.constant 0 : i32
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    // expected-error@+1 {{'q' does not name a tensor of the program}}
    %b, %t = phobos_cluster.allocate @q [] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%t] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    // expected-error@+1 {{a buffer of @x is 'f32' of rank 1, got '!phobos_cluster.buffer<4x4xf32>'}}
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4x4xf32>
    %f = phobos_cluster.free %b after [%t] : !phobos_cluster.buffer<4x4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64, cluster = [#phobos.tune_dim<"S", [4]>]} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    // expected-error@+1 {{@x is cut into super-tiles along 1 axes, got 2 coordinates}}
    %b, %t = phobos_cluster.allocate @x [0, 0] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%t] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64, cluster = [#phobos.tune_dim<"S", [4]>], bindings = {S = 4 : i64}, dims = {N = 8 : i64}} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] shape [8] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    // expected-error@+1 {{coordinate 0 of @x is 2, but the tensor has 2 super-tiles along axis 0}}
    %b, %t = phobos_cluster.allocate @x [2] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%t] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64, cluster = [#phobos.tune_dim<"S", [4]>], bindings = {S = 4 : i64}, dims = {N = 8 : i64}} {
  phobos_cluster.tensor @x read dims ["N"] split ["S"] shape [8] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    // expected-error@+1 {{a super-tile of @x has extent 4 along axis 0, but the buffer has 8}}
    %b, %t = phobos_cluster.allocate @x [1] : !phobos_cluster.buffer<8xf32>
    %f = phobos_cluster.free %b after [%t] : !phobos_cluster.buffer<8xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{'nope' does not name a leaf kernel of the program}}
    %c = phobos_cluster.compute @nope(%b) after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%c] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{leaf 'two' takes 2 tensors, got 1}}
    %c = phobos_cluster.compute @two(%b) after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%c] : !phobos_cluster.buffer<4xf32>
  }
  phobos.kernel @two(%a: !phobos.tensor<?xf32>, %b: !phobos.tensor<?xf32>) {
    phobos.return
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 2 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{fetches tile @x [] from its own node}}
    %l = phobos_cluster.fetch %b from 0 after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 2 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{fetches from node 5, but the plan has 2 nodes}}
    %l = phobos_cluster.fetch %b from 5 after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @o write dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @o [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{loads @o, whose mode is write: storage holds nothing to load}}
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{stores @x, whose mode is read}}
    %s = phobos_cluster.store %b after [%l] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%s] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{uses tile @x [] without depending on its allocate}}
    %l = phobos_cluster.load %b : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l, %t] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%t] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{frees tile @x [] twice}}
    %g = phobos_cluster.free %b after [%f] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    // expected-error@+1 {{tile @x [] is never freed}}
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

// A free before the last use.
phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{frees tile @x [] before its last use, 'phobos_cluster.compute' (instruction 3 of the node)}}
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
    %c = phobos_cluster.compute @reads(%b) after [%l] : !phobos_cluster.buffer<4xf32>
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %t = phobos.load %a[%c] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    phobos.return
  }
}

// -----

// A tile used before it is loaded or fetched.
phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{uses tile @x [] before it is loaded, fetched or computed}}
    %c = phobos_cluster.compute @reads(%b) after [%t] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%c] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
  phobos.kernel @reads(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %t = phobos.load %a[%c] : !phobos.tensor<?xf32> -> !phobos.tile<4xf32>
    phobos.return
  }
}

// -----

// A store of a tile nobody computed.
phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @y rmw dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @y [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{stores tile @y [], which no compute wrote}}
    %s = phobos_cluster.store %b after [%l] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%s] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

// Two writes of one buffer with no order between them.
phobos_cluster.program @p attributes {nodes = 1 : i64} {
  phobos_cluster.tensor @y rmw dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @y [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{and 'phobos_cluster.load' (instruction 1 of the node) both use tile @y [], one writing it, with no dependency between them}}
    %c = phobos_cluster.compute @writes(%b) after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l, %c] : !phobos_cluster.buffer<4xf32>
  }
  phobos.kernel @writes(%a: !phobos.tensor<?xf32>) {
    %c = arith.constant 0 : i32
    %z = arith.constant 0.0 : f32
    %t = phobos.fill %z : !phobos.tile<4xf32>
    phobos.store %t, %a[%c] : !phobos.tile<4xf32>, !phobos.tensor<?xf32>
    phobos.return
  }
}

// -----

// Between nodes: a fetch from a node that never holds the tile.
phobos_cluster.program @p attributes {nodes = 2 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
  }
  phobos_cluster.node 1 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{fetches tile @x [] from node 0, which never holds it}}
    %l = phobos_cluster.fetch %b from 0 after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
}

// -----

// Between nodes: the holder frees a tile before serving every fetch.
phobos_cluster.program @p attributes {nodes = 2 : i64} {
  phobos_cluster.tensor @x read dims ["N"] split [""] : !phobos.tensor<?xf32>
  phobos_cluster.node 0 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.load %b after [%t] : !phobos_cluster.buffer<4xf32>
    // expected-error@+1 {{frees tile @x [] after serving 0 fetches, but 1 are made from this node}}
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
  phobos_cluster.node 1 {
    %b, %t = phobos_cluster.allocate @x [] : !phobos_cluster.buffer<4xf32>
    %l = phobos_cluster.fetch %b from 0 after [%t] : !phobos_cluster.buffer<4xf32>
    %f = phobos_cluster.free %b after [%l] : !phobos_cluster.buffer<4xf32>
  }
}

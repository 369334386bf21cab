// RUN: phobos-opt %s -split-input-file -verify-diagnostics

// One case per verifier diagnostic of the phobos dialect. Ops that only take
// tiles are tested inside func.func, whose arguments may be tiles; kernel
// arguments may only be tensors and scalars.

//===----------------------------------------------------------------------===//
// phobos.kernel: signature
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'phobos.kernel' op kernels return nothing, got 1 results}}
phobos.kernel @returns_value() -> i32 {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op argument 1 must be a !phobos.tensor or a scalar, got 'i8'}}
phobos.kernel @bad_scalar_arg(%A: !phobos.tensor<?xf32>, %n: i8) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op argument 0 must be a !phobos.tensor or a scalar, got '!phobos.tile<4xf32>'}}
phobos.kernel @tile_arg(%t: !phobos.tile<4xf32>) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op argument 0 must be a !phobos.tensor or a scalar, got 'index'}}
phobos.kernel @index_arg(%i: index) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op 'phobos.dims' of argument 0 must be an array of strings}}
phobos.kernel @dims_not_array(%A: !phobos.tensor<?xf32> {phobos.dims = "N"}) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op 'phobos.dims' of argument 1 must name 2 dims}}
phobos.kernel @dims_wrong_count(%x: f32, %A: !phobos.tensor<?x?xf32> {phobos.dims = ["M"]}) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op 'phobos.dims' of argument 0 must name 2 dims}}
phobos.kernel @dims_not_strings(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", 3]}) {
  phobos.return
}

// -----

// A parameter's name becomes a file name (phobos-run --save DIR writes
// DIR/NAME.in.npy): identifiers only.
// expected-error@+1 {{'phobos.kernel' op 'phobos.name' of argument 1 must be an identifier (letters, digits and '_'), got "../../evil"}}
phobos.kernel @name_is_a_path(%x: f32 {phobos.name = "x"}, %A: !phobos.tensor<?xf32> {phobos.name = "../../evil"}) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op 'phobos.name' of argument 0 must be an identifier (letters, digits and '_'), got "/tmp/x"}}
phobos.kernel @name_is_absolute(%A: !phobos.tensor<?xf32> {phobos.name = "/tmp/x"}) {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op 'phobos.name' of argument 0 must be an identifier (letters, digits and '_'), got 7}}
phobos.kernel @name_not_a_string(%A: !phobos.tensor<?xf32> {phobos.name = 7}) {
  phobos.return
}

// -----

// The FunctionOpInterface check fires before the kernel's own "entry block
// arguments must match the kernel's type".
// expected-error@+1 {{'phobos.kernel' op type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('i32')}}
"phobos.kernel"() <{function_type = (i32) -> (), sym_name = "block_args"}> ({
^bb0(%a: f32):
  "phobos.return"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{'phobos.kernel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
phobos.kernel @declaration(%n: i32)

// -----

phobos.kernel @no_terminator() {
  // expected-error@+1 {{block with no terminator}}
  %0 = phobos.block_id x
}

// -----

func.func @return_outside_kernel() {
  // expected-error@+1 {{'phobos.return' op expects parent op 'phobos.kernel'}}
  phobos.return
}

//===----------------------------------------------------------------------===//
// phobos.kernel: attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'phobos.kernel' op max_threads must be a multiple of 32 up to 1024, got 100}}
phobos.kernel @threads_not_warp_multiple() attributes {max_threads = 100 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op max_threads must be a multiple of 32 up to 1024, got 2048}}
phobos.kernel @threads_too_many() attributes {max_threads = 2048 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'max_threads' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
phobos.kernel @threads_zero() attributes {max_threads = 0 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'min_blocks' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
phobos.kernel @min_blocks_negative() attributes {min_blocks = -1 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'max_regs' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 16 whose maximum value is 255}}
phobos.kernel @max_regs_too_few() attributes {max_regs = 8 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'max_regs' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 16 whose maximum value is 255}}
phobos.kernel @max_regs_too_many() attributes {max_regs = 256 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'max_threads' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
phobos.kernel @threads_i64() attributes {max_threads = 128 : i64} {
  phobos.return
}

// -----

// A kernel attribute of the wrong kind is an error, not silently dropped.
// expected-error@+1 {{'phobos.kernel' op attribute 'tensorcore' failed to satisfy constraint: string attribute one of "f16", "tf32" or "bf16"}}
phobos.kernel @bad_tensorcore() attributes {tensorcore = 7 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'tensorcore' failed to satisfy constraint: string attribute one of "f16", "tf32" or "bf16"}}
phobos.kernel @tensorcore_as_string() attributes {tensorcore = "fp8"} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'max_threads' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
phobos.kernel @threads_as_string() attributes {max_threads = "128"} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'pipeline' failed to satisfy constraint: unit attribute}}
phobos.kernel @bad_pipeline() attributes {pipeline = 1 : i32} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'unknown_attributes' failed to satisfy constraint: string array attribute}}
phobos.kernel @bad_unknown_attributes() attributes {unknown_attributes = [1]} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op attribute 'autotune' failed to satisfy constraint: a search space}}
phobos.kernel @bad_autotune() attributes {autotune = ["BM"]} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op autotune names 'BM' twice}}
phobos.kernel @autotune_twice() attributes {
    autotune = [#phobos.tune_dim<"BM", [32]>, #phobos.tune_dim<"BM", [64]>]} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op cluster names 'CL' twice}}
phobos.kernel @cluster_twice() attributes {
    autotune = [#phobos.tune_dim<"CL", [1, 2]>],
    cluster = [#phobos.tune_dim<"CL", [1]>, #phobos.tune_dim<"CL", [2]>]} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op cluster dimension 'CL' is not an autotune dimension}}
phobos.kernel @cluster_not_autotuned() attributes {
    autotune = [#phobos.tune_dim<"BM", [32]>],
    cluster = [#phobos.tune_dim<"CL", [1, 2]>]} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op cluster dimension 'CL' is not an autotune dimension}}
phobos.kernel @cluster_without_autotune() attributes {
    cluster = [#phobos.tune_dim<"CL", [1, 2]>]} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op variant value of 'BM' must be an integer}}
phobos.kernel @variant_not_integer() attributes {
    autotune = [#phobos.tune_dim<"BM", [32]>], variant = {BM = "32"}} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op variant binds 'BN', which is not an autotune dimension}}
phobos.kernel @variant_unknown_dim() attributes {
    autotune = [#phobos.tune_dim<"BM", [32]>], variant = {BM = 32 : i64, BN = 32 : i64}} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op variant binds 'BM', which is not an autotune dimension}}
phobos.kernel @variant_without_autotune() attributes {variant = {BM = 32 : i64}} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op variant value 48 of 'BM' is not in its search space}}
phobos.kernel @variant_out_of_space() attributes {
    autotune = [#phobos.tune_dim<"BM", [32, 64]>], variant = {BM = 48 : i64}} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op variant does not bind autotune dimension 'BK'}}
phobos.kernel @variant_incomplete() attributes {
    autotune = [#phobos.tune_dim<"BM", [32]>, #phobos.tune_dim<"BK", [16]>],
    variant = {BM = 32 : i64}} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op aligned multiple of 'K' must be a positive integer}}
phobos.kernel @aligned_zero() attributes {aligned = {K = 0 : i64, M = 16 : i64}} {
  phobos.return
}

// -----

// expected-error@+1 {{'phobos.kernel' op aligned multiple of 'M' must be a positive integer}}
phobos.kernel @aligned_not_integer() attributes {aligned = {M = "16"}} {
  phobos.return
}

//===----------------------------------------------------------------------===//
// #phobos.tune_dim
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{search dimension needs a name}}
phobos.kernel @tune_dim_unnamed() attributes {autotune = [#phobos.tune_dim<"", [32]>]} {
  phobos.return
}

// -----

// expected-error@+1 {{search dimension 'BM' has a non-positive value 0}}
phobos.kernel @tune_dim_zero() attributes {autotune = [#phobos.tune_dim<"BM", [32, 0]>]} {
  phobos.return
}

// -----

// expected-error@+1 {{search dimension 'BM' has a non-positive value -64}}
phobos.kernel @tune_dim_negative() attributes {autotune = [#phobos.tune_dim<"BM", [-64]>]} {
  phobos.return
}

// -----

// An empty list of values does not parse (so "needs at least one value" is
// only reachable from C++).
// expected-error@+2 {{expected integer value}}
// expected-error@+1 {{failed to parse Tile_TuneDimAttr parameter 'values'}}
phobos.kernel @tune_dim_empty() attributes {autotune = [#phobos.tune_dim<"BM", []>]} {
  phobos.return
}

//===----------------------------------------------------------------------===//
// Type verifiers
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{tile must have rank 1 or more}}
func.func @tile_rank_0(%t: !phobos.tile<f32>)

// -----

// expected-error@+1 {{tensor must have rank 1 or more}}
phobos.kernel @tensor_rank_0(%A: !phobos.tensor<f32>) {
  phobos.return
}

// -----

// expected-error@+1 {{tile extents must be positive, got 0}}
func.func @tile_zero_extent(%t: !phobos.tile<4x0xf32>)

// -----

// expected-error@+1 {{tensor extents must be positive, got 0}}
phobos.kernel @tensor_zero_extent(%A: !phobos.tensor<?x0xf32>) {
  phobos.return
}

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'i8'}}
func.func @tile_i8(%t: !phobos.tile<4xi8>)

// -----

// expected-error@+1 {{tensor element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'ui32'}}
phobos.kernel @tensor_ui32(%A: !phobos.tensor<?xui32>) {
  phobos.return
}

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'index'}}
func.func @tile_index(%t: !phobos.tile<4xindex>)

// -----

// A tile's extents are static: the parser refuses `?` (the "tile extents must
// be static" verifier is only reachable from C++).
// expected-error@+1 {{expected static shape}}
func.func @tile_dynamic(%t: !phobos.tile<?x4xf32>)

//===----------------------------------------------------------------------===//
// Grid and tensor queries
//===----------------------------------------------------------------------===//

// -----

phobos.kernel @dim_out_of_range(%A: !phobos.tensor<?x?xf32>) {
  // expected-error@+1 {{'phobos.dim' op index 2 is out of range for a tensor of rank 2}}
  %0 = phobos.dim %A[2] : !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @dim_negative(%A: !phobos.tensor<?x?xf32>) {
  // expected-error@+1 {{'phobos.dim' op attribute 'index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "phobos.dim"(%A) <{index = -1 : i64}> : (!phobos.tensor<?x?xf32>) -> i32
  phobos.return
}

// -----

phobos.kernel @dim_of_tile() {
  %c0 = arith.constant 0.0 : f32
  %t = phobos.fill %c0 : !phobos.tile<4xf32>
  // expected-error@+1 {{'phobos.dim' op operand #0 must be tensor, but got '!phobos.tile<4xf32>'}}
  %0 = "phobos.dim"(%t) <{index = 0 : i64}> : (!phobos.tile<4xf32>) -> i32
  phobos.return
}

// -----

phobos.kernel @block_id_group_z() {
  // expected-error@+1 {{'phobos.block_id' op groups only the x and y axes}}
  %0 = phobos.block_id z group 8
  phobos.return
}

// -----

phobos.kernel @block_id_group_zero() {
  // expected-error@+1 {{'phobos.block_id' op attribute 'group' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %0 = phobos.block_id x group 0
  phobos.return
}

// -----

phobos.kernel @block_id_i64() {
  // expected-error@+1 {{'phobos.block_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %0 = "phobos.block_id"() <{axis = 0 : i32}> : () -> i64
  phobos.return
}

// -----

phobos.kernel @grid_dim_bad_axis() {
  // expected-error@+1 {{invalid properties {axis = 3 : i32} for op phobos.grid_dim: Invalid attribute `axis` in property conversion: 3 : i32}}
  %0 = "phobos.grid_dim"() <{axis = 3 : i32}> : () -> i32
  phobos.return
}

//===----------------------------------------------------------------------===//
// phobos.load / phobos.store
//===----------------------------------------------------------------------===//

// -----

phobos.kernel @load_offset_count(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op expects 2 offsets, one per tensor axis, got 1}}
  %0 = phobos.load %A[%i] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
  phobos.return
}

// -----

phobos.kernel @load_offset_i64(%A: !phobos.tensor<?x?xf32>, %i: i64) {
  // expected-error@+1 {{'phobos.load' op operand #1 must be variadic of 32-bit signless integer, but got 'i64'}}
  %0 = "phobos.load"(%A, %i, %i) : (!phobos.tensor<?x?xf32>, i64, i64) -> !phobos.tile<16x16xf32>
  phobos.return
}

// -----

phobos.kernel @load_point_axis_out_of_range(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op point axis 2 is out of range}}
  %0 = phobos.load %A[%i, %i] {point_axes = array<i64: 2>} : !phobos.tensor<?x?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @load_point_axis_negative(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op point axis -1 is out of range}}
  %0 = phobos.load %A[%i, %i] {point_axes = array<i64: -1>} : !phobos.tensor<?x?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @load_point_axes_unordered(%A: !phobos.tensor<?x?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op point axes must be strictly increasing}}
  %0 = phobos.load %A[%i, %i, %i] {point_axes = array<i64: 1, 0>} : !phobos.tensor<?x?x?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @load_point_axes_repeated(%A: !phobos.tensor<?x?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op point axes must be strictly increasing}}
  %0 = phobos.load %A[%i, %i, %i] {point_axes = array<i64: 0, 0>} : !phobos.tensor<?x?x?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @load_rank_mismatch(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op tile rank 2 plus 1 point axes must equal the tensor rank 2}}
  %0 = phobos.load %A[%i, %i] {point_axes = array<i64: 0>} : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
  phobos.return
}

// -----

phobos.kernel @load_rank_too_small(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op tile rank 1 plus 0 point axes must equal the tensor rank 2}}
  %0 = phobos.load %A[%i, %i] : !phobos.tensor<?x?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @load_element_type(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op tile element type 'f16' differs from the tensor's 'f32'}}
  %0 = phobos.load %A[%i, %i] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf16>
  phobos.return
}

// -----

phobos.kernel @load_in_bounds_count(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op in_bounds needs one flag per tensor axis}}
  %0 = phobos.load %A[%i, %i] {point_axes = array<i64: 0>, in_bounds = array<i1: true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<16xf32>
  phobos.return
}

// -----

phobos.kernel @load_into_scalar(%A: !phobos.tensor<?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load' op result #0 must be tile, but got 'f32'}}
  %0 = "phobos.load"(%A, %i) : (!phobos.tensor<?xf32>, i32) -> f32
  phobos.return
}

// -----

phobos.kernel @store_offset_count(%A: !phobos.tensor<?x?xf32>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16x16xf32>
  // expected-error@+1 {{'phobos.store' op expects 2 offsets, one per tensor axis, got 3}}
  phobos.store %t, %A[%i, %i, %i] : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @store_offset_f32(%A: !phobos.tensor<?xf32>, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16xf32>
  // expected-error@+1 {{'phobos.store' op operand #2 must be variadic of 32-bit signless integer, but got 'f32'}}
  "phobos.store"(%t, %A, %x) : (!phobos.tile<16xf32>, !phobos.tensor<?xf32>, f32) -> ()
  phobos.return
}

// -----

phobos.kernel @store_point_axis_out_of_range(%A: !phobos.tensor<?x?xf32>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16xf32>
  // expected-error@+1 {{'phobos.store' op point axis 5 is out of range}}
  phobos.store %t, %A[%i, %i] {point_axes = array<i64: 5>} : !phobos.tile<16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @store_point_axes_unordered(%A: !phobos.tensor<?x?x?xf32>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16xf32>
  // expected-error@+1 {{'phobos.store' op point axes must be strictly increasing}}
  phobos.store %t, %A[%i, %i, %i] {point_axes = array<i64: 2, 1>} : !phobos.tile<16xf32>, !phobos.tensor<?x?x?xf32>
  phobos.return
}

// -----

phobos.kernel @store_rank_mismatch(%A: !phobos.tensor<?x?xf32>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16xf32>
  // expected-error@+1 {{'phobos.store' op tile rank 1 plus 0 point axes must equal the tensor rank 2}}
  phobos.store %t, %A[%i, %i] : !phobos.tile<16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @store_element_type(%A: !phobos.tensor<?x?xf16>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16x16xf32>
  // expected-error@+1 {{'phobos.store' op tile element type 'f32' differs from the tensor's 'f16'}}
  phobos.store %t, %A[%i, %i] : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf16>
  phobos.return
}

// -----

phobos.kernel @store_in_bounds_count(%A: !phobos.tensor<?x?xf32>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16x16xf32>
  // expected-error@+1 {{'phobos.store' op in_bounds needs one flag per tensor axis}}
  phobos.store %t, %A[%i, %i] {in_bounds = array<i1: true, true, true>} : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// phobos.atomic_add
//===----------------------------------------------------------------------===//

// -----

phobos.kernel @atomic_f16(%A: !phobos.tensor<?xf16>, %i: i32, %x: f16) {
  %t = phobos.fill %x : !phobos.tile<16xf16>
  // expected-error@+1 {{'phobos.atomic_add' op adds to f32, f64, i32 or i64 tensors, not 'f16'}}
  phobos.atomic_add %t, %A[%i] : !phobos.tile<16xf16>, !phobos.tensor<?xf16>
  phobos.return
}

// -----

phobos.kernel @atomic_rank(%A: !phobos.tensor<?x?xf32>, %i: i32, %x: f32) {
  %t = phobos.fill %x : !phobos.tile<16xf32>
  // expected-error@+1 {{'phobos.atomic_add' op tile rank 1 plus 0 point axes must equal the tensor rank 2}}
  phobos.atomic_add %t, %A[%i, %i] : !phobos.tile<16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @atomic_scalar_not_points(%A: !phobos.tensor<?x?xf32>, %i: i32, %x: f32) {
  // expected-error@+1 {{'phobos.atomic_add' op a scalar value needs a point on every tensor axis}}
  phobos.atomic_add %x, %A[%i, %i] {point_axes = array<i64: 0>} : f32, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @atomic_scalar_type(%A: !phobos.tensor<?xf32>, %i: i32, %x: f64) {
  // expected-error@+1 {{'phobos.atomic_add' op scalar type 'f64' differs from the tensor's 'f32'}}
  phobos.atomic_add %x, %A[%i] {point_axes = array<i64: 0>} : f64, !phobos.tensor<?xf32>
  phobos.return
}

// -----

phobos.kernel @atomic_scalar_in_bounds(%A: !phobos.tensor<?xf32>, %i: i32, %x: f32) {
  // expected-error@+1 {{'phobos.atomic_add' op in_bounds needs one flag per tensor axis}}
  phobos.atomic_add %x, %A[%i] {point_axes = array<i64: 0>, in_bounds = array<i1: true, true>} : f32, !phobos.tensor<?xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// phobos.load_scalar / phobos.store_scalar
//===----------------------------------------------------------------------===//

// -----

phobos.kernel @load_scalar_index_count(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load_scalar' op expects one index per tensor axis}}
  %0 = phobos.load_scalar %A[%i] : !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

phobos.kernel @load_scalar_result_type(%A: !phobos.tensor<?x?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.load_scalar' op failed to verify that result is the tensor's element type}}
  %0 = "phobos.load_scalar"(%A, %i, %i) : (!phobos.tensor<?x?xf32>, i32, i32) -> f16
  phobos.return
}

// -----

phobos.kernel @store_scalar_index_count(%A: !phobos.tensor<?xf32>, %i: i32, %x: f32) {
  // expected-error@+1 {{'phobos.store_scalar' op expects one index per tensor axis}}
  phobos.store_scalar %x, %A[%i, %i] : !phobos.tensor<?xf32>
  phobos.return
}

// -----

phobos.kernel @store_scalar_value_type(%A: !phobos.tensor<?xf32>, %i: i32) {
  // expected-error@+1 {{'phobos.store_scalar' op failed to verify that value is the tensor's element type}}
  "phobos.store_scalar"(%i, %A, %i) : (i32, !phobos.tensor<?xf32>, i32) -> ()
  phobos.return
}

// -----

// expected-note@+1 {{prior use here}}
phobos.kernel @store_scalar_value_mismatch(%A: !phobos.tensor<?xf32>, %i: i32) {
  // The custom syntax takes the value's type from the tensor.
  // expected-error@+1 {{use of value '%i' expects different type than prior uses: 'f32' vs 'i32'}}
  phobos.store_scalar %i, %A[%i] : !phobos.tensor<?xf32>
  phobos.return
}

//===----------------------------------------------------------------------===//
// Tile construction
//===----------------------------------------------------------------------===//

// -----

func.func @fill_value_type(%x: i32) {
  // expected-error@+1 {{'phobos.fill' op failed to verify that value is the tile's element type}}
  %0 = "phobos.fill"(%x) : (i32) -> !phobos.tile<4xf32>
  return
}

// -----

func.func @arange_rank_2() {
  // expected-error@+1 {{'phobos.arange' op result must be a rank-1 tile}}
  %0 = phobos.arange : !phobos.tile<4x4xi32>
  return
}

// -----

func.func @arange_i64() {
  // expected-error@+1 {{'phobos.arange' op result #0 must be tile of 32-bit signless integer, but got '!phobos.tile<4xi64>'}}
  %0 = phobos.arange : !phobos.tile<4xi64>
  return
}

// -----

func.func @reshape_element_type(%t: !phobos.tile<64xi32>) {
  // expected-error@+1 {{'phobos.reshape' op cannot change the element type}}
  %0 = phobos.reshape %t : !phobos.tile<64xi32> -> !phobos.tile<8x8xi64>
  return
}

// -----

func.func @reshape_element_count(%t: !phobos.tile<64xi32>) {
  // expected-error@+1 {{'phobos.reshape' op cannot reshape 64 elements into 32}}
  %0 = phobos.reshape %t : !phobos.tile<64xi32> -> !phobos.tile<8x4xi32>
  return
}

// -----

func.func @broadcast_element_type(%t: !phobos.tile<64x1xf32>) {
  // expected-error@+1 {{'phobos.broadcast' op cannot change the element type}}
  %0 = phobos.broadcast %t : !phobos.tile<64x1xf32> -> !phobos.tile<64x128xf16>
  return
}

// -----

func.func @broadcast_incompatible(%t: !phobos.tile<64x2xf32>) {
  // expected-error@+1 {{'phobos.broadcast' op cannot broadcast [64, 2] to [64, 128]}}
  %0 = phobos.broadcast %t : !phobos.tile<64x2xf32> -> !phobos.tile<64x128xf32>
  return
}

// -----

func.func @broadcast_drops_axis(%t: !phobos.tile<2x64xf32>) {
  // expected-error@+1 {{'phobos.broadcast' op cannot broadcast [2, 64] to [64]}}
  %0 = phobos.broadcast %t : !phobos.tile<2x64xf32> -> !phobos.tile<64xf32>
  return
}

// -----

func.func @broadcast_shrinks(%t: !phobos.tile<64x128xf32>) {
  // expected-error@+1 {{'phobos.broadcast' op cannot broadcast [64, 128] to [64, 1]}}
  %0 = phobos.broadcast %t : !phobos.tile<64x128xf32> -> !phobos.tile<64x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

// -----

func.func @binary_element_types(%t: !phobos.tile<4xf32>, %n: i32) {
  // expected-error@+1 {{'phobos.add' op operands must share an element type, got 'f32' and 'i32'}}
  %0 = phobos.add %t, %n : !phobos.tile<4xf32>, i32
  return
}

// -----

func.func @binary_element_types_tiles(%a: !phobos.tile<4xf16>, %b: !phobos.tile<4xf32>) {
  // expected-error@+1 {{'phobos.mul' op operands must share an element type, got 'f16' and 'f32'}}
  %0 = phobos.mul %a, %b : !phobos.tile<4xf16>, !phobos.tile<4xf32>
  return
}

// -----

func.func @binary_not_broadcastable(%a: !phobos.tile<4x2xf32>, %b: !phobos.tile<3xf32>) {
  // expected-error@+1 {{shapes [4, 2] and [3] do not broadcast}}
  %0 = phobos.sub %a, %b : !phobos.tile<4x2xf32>, !phobos.tile<3xf32>
  return
}

// -----

func.func @binary_scalars_only(%x: f32, %y: f32) {
  // expected-error@+1 {{needs at least one tile operand}}
  %0 = phobos.div %x, %y : f32, f32
  return
}

// -----

func.func @binary_on_booleans(%m: !phobos.tile<4xi1>, %b: i1) {
  // expected-error@+1 {{'phobos.add' op expects numeric operands, got i1}}
  %0 = phobos.add %m, %b : !phobos.tile<4xi1>, i1
  return
}

// -----

func.func @rem_on_booleans(%m: !phobos.tile<4xi1>) {
  // expected-error@+1 {{'phobos.rem' op expects numeric operands, got i1}}
  %0 = phobos.rem %m, %m : !phobos.tile<4xi1>, !phobos.tile<4xi1>
  return
}

// -----

func.func @and_on_floats(%t: !phobos.tile<4xf32>) {
  // expected-error@+1 {{'phobos.and' op expects i1 operands, got 'f32'}}
  %0 = phobos.and %t, %t : !phobos.tile<4xf32>, !phobos.tile<4xf32>
  return
}

// -----

func.func @or_on_integers(%t: !phobos.tile<4xi32>, %n: i32) {
  // expected-error@+1 {{'phobos.or' op expects i1 operands, got 'i32'}}
  %0 = phobos.or %n, %t : i32, !phobos.tile<4xi32>
  return
}

// -----

func.func @binary_bad_scalar(%t: !phobos.tile<4xi32>, %i: index) {
  // expected-error@+1 {{'phobos.max' op operand #1 must be tile or 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer, but got 'index'}}
  %0 = phobos.max %t, %i : !phobos.tile<4xi32>, index
  return
}

// -----

func.func @binary_wrong_result(%a: !phobos.tile<4x1xf32>, %b: !phobos.tile<8xf32>) {
  // expected-error@+2 {{'phobos.min' op failed to infer returned types}}
  // expected-error@+1 {{'phobos.min' op inferred type(s) '!phobos.tile<4x8xf32>' are incompatible with return type(s) of operation '!phobos.tile<4x1xf32>'}}
  %0 = "phobos.min"(%a, %b) : (!phobos.tile<4x1xf32>, !phobos.tile<8xf32>) -> !phobos.tile<4x1xf32>
  return
}

// -----

func.func @cmp_element_types(%t: !phobos.tile<4xi32>, %x: f32) {
  // expected-error@+1 {{'phobos.cmp' op operands must share an element type, got 'i32' and 'f32'}}
  %0 = phobos.cmp lt, %t, %x : !phobos.tile<4xi32>, f32
  return
}

// -----

func.func @cmp_not_broadcastable(%a: !phobos.tile<4xi32>, %b: !phobos.tile<8xi32>) {
  // expected-error@+1 {{shapes [4] and [8] do not broadcast}}
  %0 = phobos.cmp eq, %a, %b : !phobos.tile<4xi32>, !phobos.tile<8xi32>
  return
}

// -----

func.func @cmp_scalars_only(%x: i32) {
  // expected-error@+1 {{needs at least one tile operand}}
  %0 = phobos.cmp ne, %x, %x : i32, i32
  return
}

// -----

func.func @cmp_bad_predicate(%t: !phobos.tile<4xi32>) {
  // expected-error@+1 {{invalid properties {predicate = 9 : i32} for op phobos.cmp: Invalid attribute `predicate` in property conversion: 9 : i32}}
  %0 = "phobos.cmp"(%t, %t) <{predicate = 9 : i32}> : (!phobos.tile<4xi32>, !phobos.tile<4xi32>) -> !phobos.tile<4xi1>
  return
}

// -----

func.func @select_element_types(%m: !phobos.tile<4xi1>, %t: !phobos.tile<4xf32>, %n: i32) {
  // expected-error@+1 {{'phobos.select' op operands must share an element type, got 'f32' and 'i32'}}
  %0 = phobos.select %m, %t, %n : !phobos.tile<4xi1>, !phobos.tile<4xf32>, i32
  return
}

// -----

func.func @select_condition_not_bool(%c: !phobos.tile<4xi32>, %t: !phobos.tile<4xf32>) {
  // expected-error@+1 {{'phobos.select' op operand #0 must be tile of 1-bit signless integer or 1-bit signless integer, but got '!phobos.tile<4xi32>'}}
  %0 = phobos.select %c, %t, %t : !phobos.tile<4xi32>, !phobos.tile<4xf32>, !phobos.tile<4xf32>
  return
}

// -----

func.func @select_not_broadcastable(%m: !phobos.tile<8xi1>, %t: !phobos.tile<4xf32>) {
  // expected-error@+1 {{shapes [8] and [4] do not broadcast}}
  %0 = phobos.select %m, %t, %t : !phobos.tile<8xi1>, !phobos.tile<4xf32>, !phobos.tile<4xf32>
  return
}

// -----

func.func @select_scalars_only(%c: i1, %x: f32) {
  // expected-error@+1 {{needs at least one tile operand}}
  %0 = phobos.select %c, %x, %x : i1, f32, f32
  return
}

// -----

func.func @neg_on_booleans(%m: !phobos.tile<4xi1>) {
  // expected-error@+1 {{'phobos.neg' op operand #0 must be tile of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer, but got '!phobos.tile<4xi1>'}}
  %0 = phobos.neg %m : !phobos.tile<4xi1>
  return
}

// -----

func.func @not_on_integers(%t: !phobos.tile<4xi32>) {
  // expected-error@+1 {{'phobos.not' op operand #0 must be tile of 1-bit signless integer, but got '!phobos.tile<4xi32>'}}
  %0 = phobos.not %t : !phobos.tile<4xi32>
  return
}

// -----

func.func @exp_on_integers(%t: !phobos.tile<4xi32>) {
  // expected-error@+1 {{'phobos.exp' op operand #0 must be tile of 16-bit float or bfloat16 type or 32-bit float or 64-bit float, but got '!phobos.tile<4xi32>'}}
  %0 = phobos.exp %t : !phobos.tile<4xi32>
  return
}

// -----

func.func @sqrt_on_scalar(%x: f32) {
  // expected-error@+1 {{'phobos.sqrt' op operand #0 must be tile of 16-bit float or bfloat16 type or 32-bit float or 64-bit float, but got 'f32'}}
  %0 = phobos.sqrt %x : f32
  return
}

// -----

func.func @unary_type_change(%t: !phobos.tile<4xf32>) {
  // expected-error@+1 {{'phobos.log' op requires the same type for all operands and results}}
  %0 = "phobos.log"(%t) : (!phobos.tile<4xf32>) -> !phobos.tile<4xf16>
  return
}

// -----

func.func @cast_shape(%t: !phobos.tile<4xf32>) {
  // expected-error@+1 {{'phobos.cast' op cannot change the shape from [4] to [2, 2]}}
  %0 = phobos.cast %t : !phobos.tile<4xf32> to !phobos.tile<2x2xf16>
  return
}

//===----------------------------------------------------------------------===//
// phobos.dot
//===----------------------------------------------------------------------===//

// -----

func.func @dot_rank(%a: !phobos.tile<16xf32>, %b: !phobos.tile<16x16xf32>) {
  // expected-error@+1 {{'phobos.dot' op operands and result must be rank 2}}
  %0 = phobos.dot %a, %b : !phobos.tile<16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
  return
}

// -----

func.func @dot_result_rank(%a: !phobos.tile<16x16xf32>) {
  // expected-error@+1 {{'phobos.dot' op operands and result must be rank 2}}
  %0 = phobos.dot %a, %a : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<256xf32>
  return
}

// -----

func.func @dot_element_types(%a: !phobos.tile<16x16xf16>, %b: !phobos.tile<16x16xf32>) {
  // expected-error@+1 {{'phobos.dot' op operands must share an element type, got 'f16' and 'f32'}}
  %0 = phobos.dot %a, %b : !phobos.tile<16x16xf16>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
  return
}

// -----

func.func @dot_inner_dims(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<32x32xf32>) {
  // expected-error@+1 {{'phobos.dot' op inner dimensions differ: [64, 16] x [32, 32]}}
  %0 = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<32x32xf32> -> !phobos.tile<64x32xf32>
  return
}

// -----

func.func @dot_inner_dims_transposed(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.dot' op inner dimensions differ: [64, 16] x [16, 32] (b transposed)}}
  %0 = phobos.dot %a, %b {transpose_b} : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<64x16xf32>
  return
}

// -----

func.func @dot_result_shape(%a: !phobos.tile<64x16xf32>, %b: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.dot' op result must be [64, 32], got [32, 64]}}
  %0 = phobos.dot %a, %b : !phobos.tile<64x16xf32>, !phobos.tile<16x32xf32> -> !phobos.tile<32x64xf32>
  return
}

// -----

func.func @dot_result_element_f16(%a: !phobos.tile<16x16xf16>) {
  // expected-error@+1 {{'phobos.dot' op result element type must be 'f32' for 'f16' operands}}
  %0 = phobos.dot %a, %a : !phobos.tile<16x16xf16>, !phobos.tile<16x16xf16> -> !phobos.tile<16x16xf16>
  return
}

// -----

func.func @dot_result_element_f64(%a: !phobos.tile<16x16xf64>) {
  // expected-error@+1 {{'phobos.dot' op result element type must be 'f64' for 'f64' operands}}
  %0 = phobos.dot %a, %a : !phobos.tile<16x16xf64>, !phobos.tile<16x16xf64> -> !phobos.tile<16x16xf32>
  return
}

// -----

func.func @dot_accumulator_type(%a: !phobos.tile<16x16xf32>, %acc: !phobos.tile<16x1xf32>) {
  // expected-error@+1 {{'phobos.dot' op accumulator must have the result's type}}
  %0 = phobos.dot %a, %a, %acc : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>, !phobos.tile<16x1xf32> -> !phobos.tile<16x16xf32>
  return
}

// -----

func.func @dot_precision_on_f16(%a: !phobos.tile<16x16xf16>) {
  // expected-error@+1 {{'phobos.dot' op precision 'tf32' applies to f32 operands only}}
  %0 = phobos.dot %a, %a precision(tf32) : !phobos.tile<16x16xf16>, !phobos.tile<16x16xf16> -> !phobos.tile<16x16xf32>
  return
}

// -----

func.func @dot_bad_precision(%a: !phobos.tile<16x16xf32>) {
  // expected-error@+1 {{'phobos.dot' op attribute 'precision' failed to satisfy constraint: the precision a dot rounds its operands to}}
  %0 = phobos.dot %a, %a {precision = 4 : i32} : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32> -> !phobos.tile<16x16xf32>
  return
}

// -----

func.func @dot_on_integers(%a: !phobos.tile<16x16xi32>) {
  // expected-error@+1 {{'phobos.dot' op operand #0 must be tile of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or shared memory buffer, but got '!phobos.tile<16x16xi32>'}}
  %0 = phobos.dot %a, %a : !phobos.tile<16x16xi32>, !phobos.tile<16x16xi32> -> !phobos.tile<16x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// phobos.reduce, phobos.cumsum, phobos.tril, phobos.transpose
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.reduce' op axis 2 is out of range for rank 2}}
  %0 = phobos.reduce sum %t along 2 : !phobos.tile<16x32xf32> -> !phobos.tile<16x32xf32>
  return
}

// -----

func.func @reduce_drops_axis(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.reduce' op result must be '!phobos.tile<16x1xf32>'}}
  %0 = phobos.reduce max %t along 1 : !phobos.tile<16x32xf32> -> !phobos.tile<16xf32>
  return
}

// -----

func.func @lane_partials_of_max(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.reduce' op lane partials are kept and combined only for sums}}
  %0 = phobos.reduce max %t along 1 {keep_lane_partials} : !phobos.tile<16x32xf32> -> !phobos.tile<16x1xf32>
  return
}

// -----

func.func @lane_partials_both(%t: !phobos.tile<16x1xf32>) {
  // expected-error@+1 {{'phobos.reduce' op keeps lane partials or combines them, not both}}
  %0 = phobos.reduce sum %t along 1 {keep_lane_partials, combine_lane_partials} : !phobos.tile<16x1xf32> -> !phobos.tile<16x1xf32>
  return
}

// -----

func.func @lane_partials_combined_along_a_wide_axis(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.reduce' op combines lane partials only of an operand of extent 1 along the axis}}
  %0 = phobos.reduce sum %t along 1 {combine_lane_partials} : !phobos.tile<16x32xf32> -> !phobos.tile<16x1xf32>
  return
}

// -----

func.func @reduce_element_type(%t: !phobos.tile<16x32xi32>) {
  // expected-error@+1 {{'phobos.reduce' op result must be '!phobos.tile<1x32xi32>'}}
  %0 = phobos.reduce min %t along 0 : !phobos.tile<16x32xi32> -> !phobos.tile<1x32xi64>
  return
}

// -----

func.func @reduce_booleans(%m: !phobos.tile<16xi1>) {
  // expected-error@+1 {{'phobos.reduce' op operand #0 must be tile of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer, but got '!phobos.tile<16xi1>'}}
  %0 = phobos.reduce sum %m along 0 : !phobos.tile<16xi1> -> !phobos.tile<1xi1>
  return
}

// -----

func.func @reduce_bad_kind(%t: !phobos.tile<16xf32>) {
  // expected-error@+1 {{invalid properties {axis = 0 : i64, kind = 3 : i32} for op phobos.reduce: Invalid attribute `kind` in property conversion: 3 : i32}}
  %0 = "phobos.reduce"(%t) <{kind = 3 : i32, axis = 0 : i64}> : (!phobos.tile<16xf32>) -> !phobos.tile<1xf32>
  return
}

// -----

func.func @cumsum_axis(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.cumsum' op axis 2 is out of range for rank 2}}
  %0 = phobos.cumsum %t along 2 : !phobos.tile<16x32xf32>
  return
}

// -----

func.func @tril_rank(%t: !phobos.tile<16xf32>) {
  // expected-error@+1 {{'phobos.tril' op expects a rank-2 tile}}
  %0 = phobos.tril %t : !phobos.tile<16xf32>
  return
}

// -----

func.func @transpose_rank(%t: !phobos.tile<2x3x4xf32>) {
  // expected-error@+1 {{'phobos.transpose' op expects a rank-2 tile}}
  %0 = phobos.transpose %t : !phobos.tile<2x3x4xf32> -> !phobos.tile<4x3x2xf32>
  return
}

// -----

func.func @transpose_result(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.transpose' op result must be '!phobos.tile<32x16xf32>'}}
  %0 = phobos.transpose %t : !phobos.tile<16x32xf32> -> !phobos.tile<16x32xf32>
  return
}

// -----

func.func @transpose_element_type(%t: !phobos.tile<16x32xf32>) {
  // expected-error@+1 {{'phobos.transpose' op result must be '!phobos.tile<32x16xf32>'}}
  %0 = phobos.transpose %t : !phobos.tile<16x32xf32> -> !phobos.tile<32x16xf16>
  return
}

// -----

// Limits that every pass relies on: no size product may overflow, and a
// tile stays within what the interpreter and the layouts can hold.
// expected-error@+1 {{tile has more than 16777216 elements}}
func.func @tile_too_large(%t: !phobos.tile<1099511627776xf32>) {
  return
}

// -----

// expected-error@+1 {{tile has more than 16777216 elements}}
func.func @tile_product_too_large(%t: !phobos.tile<4096x4096x2xf32>) {
  return
}

// -----

// expected-error@+1 {{tile has 9 axes; at most 8 are allowed}}
func.func @tile_rank(%t: !phobos.tile<1x1x1x1x1x1x1x1x1xf32>) {
  return
}

// -----

// expected-error@+1 {{tensor extent 3000000000 is beyond the 32-bit index range (at most 2147483647)}}
phobos.kernel @tensor_extent(%A: !phobos.tensor<3000000000xi32>) {
  phobos.return
}

// -----

// expected-error@+1 {{shared memory buffer has more than 16777216 elements}}
func.func @smem_too_large(%t: !phobos.smem<8192x4096xf32, #phobos.shared<order = [1, 0], padding = 0>>) {
  return
}

// -----

func.func @in_flight_not_wgmma(%a: !phobos.tile<64x16xf16>, %b: !phobos.tile<16x64xf16>) {
  // expected-error@+1 {{in_flight needs kind(wgmma): only warpgroup MMAs run asynchronously}}
  %d = phobos.dot %a, %b kind(mma_sync) {in_flight = 1 : i32} : !phobos.tile<64x16xf16>, !phobos.tile<16x64xf16> -> !phobos.tile<64x64xf32>
  return
}

// -----

func.func @swap_ab_not_wgmma(%a: !phobos.tile<64x8xf32>, %b: !phobos.tile<8x64xf32>) {
  // expected-error@+1 {{swap_ab needs kind(wgmma) and a b that is not transposed}}
  %d = phobos.dot %a, %b precision(tf32) kind(mma_sync) swap_ab : !phobos.tile<64x8xf32>, !phobos.tile<8x64xf32> -> !phobos.tile<64x64xf32>
  return
}

// -----

func.func @wgmma_wait_f16(%d: !phobos.tile<64x64xf16>) {
  // expected-error@+1 {{'phobos.wgmma_wait' op waits for an f32 accumulator, got '!phobos.tile<64x64xf16>'}}
  %w = phobos.wgmma_wait %d {pending = 0 : i32} : !phobos.tile<64x64xf16>
  return
}

// -----

func.func @wgmma_wait_holds_f64(%d: !phobos.tile<64x64xf32>, %f: !phobos.tile<8x64xf64>) {
  // expected-error@+1 {{'phobos.wgmma_wait' op holds f32 (tf32 fragments), f16 or bf16 registers (a register A operand), got '!phobos.tile<8x64xf64>'}}
  %w = phobos.wgmma_wait %d holding %f : !phobos.tile<8x64xf64> {pending = 0 : i32} : !phobos.tile<64x64xf32>
  return
}

// -----

func.func @local_store_shape(%t: !phobos.tile<32x64xf32>, %s: !phobos.smem<32x32xf32, #phobos.shared<order = [0, 1], padding = 0>>) {
  // expected-error@+1 {{'phobos.local_store' op the buffer must have the tile's shape and element type}}
  phobos.local_store %t into %s : !phobos.tile<32x64xf32>, !phobos.smem<32x32xf32, #phobos.shared<order = [0, 1], padding = 0>>
  return
}

// -----

func.func @mbarrier_arrive_type(%b: !phobos.smem<4xi32, #phobos.shared<order = [0], padding = 0>>, %i: i32) {
  // expected-error@+1 {{'phobos.mbarrier_arrive' op mbarriers are a one-axis buffer of i64, got '!phobos.smem<4xi32, #phobos.shared<order = [0], padding = 0>>'}}
  phobos.mbarrier_arrive %b[%i] : !phobos.smem<4xi32, #phobos.shared<order = [0], padding = 0>>
  return
}

// -----

phobos.kernel @tma_released_count(%B: !phobos.tensor<?x?xf16>, %i: i32) {
  %buf = phobos.local_buffer : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %s = phobos.buffer_slot %buf[%i] lag 0 : !phobos.smem<3x64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>> -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>
  %full = phobos.local_barriers {arrivals = 1 : i32} : !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>
  %empty = phobos.local_barriers {arrivals = 4 : i32} : !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
  // expected-error@+1 {{'phobos.tma_copy' op the released mbarriers pair with the arrival ones (one per slot), got '!phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>' and '!phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>'}}
  phobos.tma_copy %B[%i, %i] into %s arrive %full[%i] after %empty, %i : !phobos.tensor<?x?xf16>, !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>>, !phobos.smem<3xi64, #phobos.shared<order = [0], padding = 0>>, !phobos.smem<2xi64, #phobos.shared<order = [0], padding = 0>>
  phobos.return
}

// -----

phobos.kernel @warp_specialize_cta(%n: i32) attributes {max_threads = 96 : i32} {
  // expected-error@+1 {{'phobos.warp_specialize' op needs a CTA of whole warpgroups (a multiple of 128 threads), got 96}}
  phobos.warp_specialize producer(40) {
  } consumer(232) {
  }
  phobos.return
}

// -----

phobos.kernel @warp_specialize_registers(%n: i32) {
  // expected-error@+1 {{'phobos.warp_specialize' op register counts are multiples of 8 (setmaxnreg), got 44}}
  phobos.warp_specialize producer(44) {
  } consumer(232) {
  }
  phobos.return
}

// -----

phobos.kernel @warp_specialize_barrier(%n: i32) {
  phobos.warp_specialize producer(40) {
    // expected-error@+1 {{'phobos.barrier' op is not allowed in a warp_specialize producer (only the consumers synchronise this way)}}
    phobos.barrier
  } consumer(232) {
  }
  phobos.return
}

// -----

phobos.kernel @warp_specialize_tile(%x: f32) {
  phobos.warp_specialize producer(40) {
    // expected-error@+1 {{'phobos.fill' op computes on a tile in a warp_specialize producer, whose threads hold none}}
    %t = phobos.fill %x : !phobos.tile<128x64xf32, #phobos.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>>
  } consumer(232) {
  }
  phobos.return
}

// -----

phobos.kernel @warp_specialize_twice(%n: i32) {
  // expected-error@+1 {{'phobos.warp_specialize' op a kernel is split into roles once}}
  phobos.warp_specialize producer(40) {
  } consumer(232) {
  }
  phobos.warp_specialize producer(40) {
  } consumer(232) {
  }
  phobos.return
}

// -----

phobos.kernel @turn_outside(%n: i32) attributes {max_threads = 256 : i32} {
  // expected-error@+1 {{'phobos.warpgroup_turn' op orders the consumer warpgroups of a warp_specialize and belongs in its consumer region}}
  phobos.warpgroup_turn take
  phobos.return
}

// -----

phobos.kernel @turn_one_group(%n: i32) attributes {max_threads = 128 : i32} {
  phobos.warp_specialize producer(40) {
  } consumer(232) {
    // expected-error@+1 {{'phobos.warpgroup_turn' op needs at least two consumer warpgroups (256 threads), got 128}}
    phobos.warpgroup_turn give
  }
  phobos.return
}

// -----

func.func @transpose_a_in_registers(%a: !phobos.tile<32x64xf16>, %b: !phobos.tile<32x64xf16>) {
  // expected-error@+1 {{transpose_a needs kind(wgmma) without swap_ab and a 16-bit a in shared memory}}
  %d = phobos.dot %a, %b transpose_a kind(wgmma) : !phobos.tile<32x64xf16>, !phobos.tile<32x64xf16> -> !phobos.tile<64x64xf32>
  return
}

// -----

#s128 = #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 64>
func.func @transpose_a_shapes(%a: !phobos.smem<32x64xf16, #s128>, %b: !phobos.smem<64x64xf16, #s128>) {
  // expected-error@+1 {{inner dimensions differ: [32, 64] x [64, 64] (a transposed)}}
  %d = phobos.dot %a, %b transpose_a kind(wgmma) : !phobos.smem<32x64xf16, #s128>, !phobos.smem<64x64xf16, #s128> -> !phobos.tile<64x64xf32>
  return
}

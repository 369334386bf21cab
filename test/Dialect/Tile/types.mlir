// RUN: phobos-opt %s -split-input-file -verify-diagnostics

// Errors in the custom syntax of !phobos.tile, !phobos.tensor and
// #phobos.tune_dim, and the type verifiers reached through it.

//===----------------------------------------------------------------------===//
// !phobos.tile
//===----------------------------------------------------------------------===//

// A tile's extents are static.
// expected-error@+1 {{expected static shape}}
func.func private @tile_dynamic_leading(!phobos.tile<?x4xf32>)

// -----

// expected-error@+1 {{expected static shape}}
func.func private @tile_dynamic_trailing(!phobos.tile<4x?xf32>)

// -----

// expected-error@+1 {{tile must have rank 1 or more}}
func.func private @tile_rank_0(!phobos.tile<f32>)

// -----

// expected-error@+1 {{tile extents must be positive, got 0}}
func.func private @tile_zero_extent(!phobos.tile<4x0x4xf32>)

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'i8'}}
func.func private @tile_i8(!phobos.tile<4xi8>)

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'ui32'}}
func.func private @tile_unsigned(!phobos.tile<4xui32>)

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'f8E4M3FN'}}
func.func private @tile_f8(!phobos.tile<4xf8E4M3FN>)

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'vector<4xf32>'}}
func.func private @tile_of_vectors(!phobos.tile<4xvector<4xf32>>)

// -----

// expected-error@+1 {{tile element type must be f16, bf16, f32, f64, i1, i32 or i64, got '!phobos.tile<4xf32>'}}
func.func private @tile_of_tiles(!phobos.tile<4x!phobos.tile<4xf32>>)

// -----

// expected-error@+1 {{expected 'x' in dimension list}}
func.func private @tile_no_element_type(!phobos.tile<4x4>)

// -----

// expected-error@+1 {{expected '<'}}
func.func private @tile_no_shape(!phobos.tile)

// -----

// expected-error@+1 {{expected non-function type}}
func.func private @tile_empty(!phobos.tile<>)

// -----

// expected-error@+1 {{expected non-function type}}
func.func private @tile_negative_extent(!phobos.tile<-4xf32>)

// -----

// expected-error@+1 {{expected attribute value}}
func.func private @tile_missing_encoding(!phobos.tile<4xf32,>)

// -----

// A tile has at most one encoding.
// expected-error@+1 {{expected '>'}}
func.func private @tile_two_encodings(!phobos.tile<4xf32, "a", "b">)

// -----

// The encoding is verified like any attribute.
// expected-error@+1 {{search dimension needs a name}}
func.func private @tile_invalid_encoding(!phobos.tile<4xf32, #phobos.tune_dim<"", [1]>>)

// -----

// The encoding is a distributed layout: which thread holds which element.
// expected-error@+1 {{a tile's encoding must be a blocked, mma or slice layout, not "blocked"}}
func.func private @tile_string_encoding(!phobos.tile<4xf32, "blocked">)

// -----

// A shared layout describes shared memory, not a tile.
// expected-error@+1 {{a tile's encoding must be a blocked, mma or slice layout, not #phobos.shared}}
func.func private @tile_shared_encoding(!phobos.tile<4x4xf32, #phobos.shared<order = [1, 0], padding = 0>>)

// -----

// expected-error@+1 {{a rank-2 layout cannot hold a rank-1 tile}}
func.func private @tile_layout_rank(!phobos.tile<16xf32, #phobos.mma<warpsPerCTA = [1, 1]>>)

//===----------------------------------------------------------------------===//
// !phobos.tensor
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{tensor extents must be positive, got 0}}
func.func private @tensor_zero_extent(!phobos.tensor<0xf32>)

// -----

// expected-error@+1 {{tensor extents must be positive, got 0}}
func.func private @tensor_zero_extent_after_dynamic(!phobos.tensor<?x?x0xf16>)

// -----

// expected-error@+1 {{tensor must have rank 1 or more}}
func.func private @tensor_rank_0(!phobos.tensor<f32>)

// -----

// expected-error@+1 {{tensor element type must be f16, bf16, f32, f64, i1, i32 or i64, got 'i8'}}
func.func private @tensor_i8(!phobos.tensor<?xi8>)

// -----

// expected-error@+1 {{tensor element type must be f16, bf16, f32, f64, i1, i32 or i64, got '!phobos.tensor<4xf32>'}}
func.func private @tensor_of_tensors(!phobos.tensor<?x!phobos.tensor<4xf32>>)

// -----

// Tensors are ranked.
// expected-error@+1 {{expected non-function type}}
func.func private @tensor_unranked(!phobos.tensor<*xf32>)

// -----

// Tensors carry no encoding.
// expected-error@+1 {{expected '>'}}
func.func private @tensor_encoding(!phobos.tensor<?xf32, "enc">)

// -----

// expected-error@+1 {{unbalanced '<' character in pretty dialect name}}
func.func private @tensor_unterminated(!phobos.tensor<4xf32)

//===----------------------------------------------------------------------===//
// Unknown types and #phobos.tune_dim
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{unknown  type `memref` in dialect `phobos`}}
func.func private @unknown_type(!phobos.memref<4xf32>)

// -----

// expected-error@+1 {{expected ','}}
func.func private @tune_dim_no_comma() attributes {d = #phobos.tune_dim<"BM" [32]>}

// -----

// expected-error@+1 {{expected '['}}
func.func private @tune_dim_no_list() attributes {d = #phobos.tune_dim<"BM", 32>}

// -----

// expected-error@+1 {{search dimension 'BM' has a non-positive value 0}}
func.func private @tune_dim_zero() attributes {d = #phobos.tune_dim<"BM", [0]>}

// -----

// Shared layouts: a swizzle takes three powers of two, replaces the
// padding, and its xor must stay inside a row.

// expected-error@+1 {{swizzle takes [vec, perPhase, maxPhase]}}
func.func private @swizzle_two() -> !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2]>>

// -----

// expected-error@+1 {{shared layout swizzle maxPhase must be a power of two, got 3}}
func.func private @swizzle_not_pow2() -> !phobos.smem<64x48xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 3]>>

// -----

// expected-error@+1 {{a swizzled shared layout has no padding}}
func.func private @swizzle_and_padding() -> !phobos.smem<64x32xf16, #phobos.shared<order = [1, 0], padding = 8, swizzle = [8, 2, 4]>>

// -----

// expected-error@+1 {{a swizzle of 4 phases of 8 elements needs rows of a multiple of 32 elements, got 16}}
func.func private @swizzle_short_rows() -> !phobos.smem<64x16xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4]>>

// -----

// The contiguous axis is the row, also of a staged (3-D) buffer.
// expected-error@+1 {{needs rows of a multiple of 64 elements, got 32}}
func.func private @swizzle_staged_rows() -> !phobos.smem<3x64x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8]>>

// -----

// Atom layouts (what wgmma's descriptors read) split the row evenly into
// atoms that hold the swizzle's units, and whole groups of 8 rows.

// expected-error@+1 {{shared layout atom 48 must be a power of two, unpadded, and hold the swizzle's units (vec * maxPhase = 64)}}
func.func private @atom_not_pow2() -> !phobos.smem<64x96xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 48>>

// -----

// expected-error@+1 {{shared layout atom 32 must be a power of two, unpadded, and hold the swizzle's units (vec * maxPhase = 64)}}
func.func private @atom_smaller_than_swizzle() -> !phobos.smem<64x64xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 1, 8], atom = 32>>

// -----

// expected-error@+1 {{a shared layout of 64-element atoms needs rows of a multiple of 64 elements and a multiple of 8 rows, got 32 rows of 96}}
func.func private @atom_ragged_row() -> !phobos.smem<32x96xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 64>>

// -----

// expected-error@+1 {{a shared layout of 32-element atoms needs rows of a multiple of 32 elements and a multiple of 8 rows, got 12 rows of 32}}
func.func private @atom_few_rows() -> !phobos.smem<3x12x32xf16, #phobos.shared<order = [1, 0], padding = 0, swizzle = [8, 2, 4], atom = 32>>

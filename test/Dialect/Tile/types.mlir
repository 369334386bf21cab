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

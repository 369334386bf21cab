//===- TileTypes.td - Types of the phobos dialect ----------*- tablegen -*-===//
//
// Tiles (CTA-wide values) and tensors (kernel parameters in global memory).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILETYPES_TD
#define PHOBOS_DIALECT_TILE_IR_TILETYPES_TD

include "Phobos/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

// Tiles are values, not references (mlir::ValueSemantics).
def Tile_ValueSemantics : NativeTypeTrait<"ValueSemantics"> {
  let cppNamespace = "::mlir";
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_TileType : Tile_Type<"Tile", "tile",
                              [ShapedTypeInterface, Tile_ValueSemantics]> {
  let summary = "a CTA-wide tile of statically shaped elements";
  let description = [{
    A tile is the unit of computation of a Phobos kernel: a value of static
    shape, held collectively by the threads of one CTA. Every extent is a
    positive constant (tile shapes become static once an `@autotune`
    variant is bound). Elements are `f16`, `bf16`, `f32`, `f64`, `i1`,
    `i32` or `i64`.

    The optional `encoding` is the layout: which thread of the CTA holds
    which element, a `#phobos.blocked`, `#phobos.mma` or `#phobos.slice`
    layout of the tile's rank. The front end never sets it; the GPU
    pipeline's layout assignment does, and the interpreter ignores it.

    Example:

    ```mlir
    !phobos.tile<128x64xf32>
    !phobos.tile<64xi1>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        OptionalParameter<"::mlir::Attribute">:$encoding);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType,
                   ::mlir::Attribute());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    using ::mlir::ShapedType::Trait<TileType>::clone;
    using ::mlir::ShapedType::Trait<TileType>::getElementTypeBitWidth;
    using ::mlir::ShapedType::Trait<TileType>::getRank;
    using ::mlir::ShapedType::Trait<TileType>::getNumElements;
    using ::mlir::ShapedType::Trait<TileType>::getDimSize;

    /// Tiles are always ranked.
    bool hasRank() const { return true; }

    /// A tile of the same kind with another shape and/or element type; the
    /// encoding is dropped when the shape changes.
    TileType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                       ::mlir::Type elementType) const;
  }];
}

def Tile_GlobalTensorType : Tile_Type<"GlobalTensor", "tensor",
                                [ShapedTypeInterface]> {
  let summary = "a row-major tensor in global memory";
  let description = [{
    A kernel parameter that lives in global memory, dense and row-major.
    Each extent is static or dynamic (`?`); a dynamic extent is bound at
    launch from the argument's shape. The source names of the extents
    (`M`, `K`) are kept on the kernel's argument attributes (`phobos.dims`),
    so that every tensor naming the same dim can be checked to agree.

    Example:

    ```mlir
    !phobos.tensor<?x?xf32>
    !phobos.tensor<?x64xf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    using ::mlir::ShapedType::Trait<GlobalTensorType>::clone;
    using ::mlir::ShapedType::Trait<GlobalTensorType>::getRank;
    using ::mlir::ShapedType::Trait<GlobalTensorType>::getDimSize;
    using ::mlir::ShapedType::Trait<GlobalTensorType>::isDynamicDim;

    /// Tensors are always ranked.
    bool hasRank() const { return true; }

    GlobalTensorType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                         ::mlir::Type elementType) const;
  }];
}

def Tile_SharedMemoryType : Tile_Type<"SharedMemory", "smem"> {
  let summary = "a tile's copy in the CTA's shared memory";
  let description = [{
    A buffer in shared memory holding a tile, laid out as `layout` (a
    `#phobos.shared`) says. Made by `phobos.local_alloc`; read by
    `phobos.local_load` and by `phobos.dot`.

    ```mlir
    !phobos.smem<64x16xf32, #phobos.shared<order = [0, 1], padding = 4>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

// Element types a tile or tensor may hold.
def Tile_ElementType : AnyTypeOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Tile_FloatElementType : AnyTypeOf<[F16, BF16, F32, F64]>;

def Tile_AnyTile : Type<CPred<"::llvm::isa<::phobos::tile::TileType>($_self)">,
                        "tile", "::phobos::tile::TileType">;
def Tile_AnySharedMemory : Type<CPred<"::llvm::isa<::phobos::tile::SharedMemoryType>($_self)">,
                                 "shared memory buffer", "::phobos::tile::SharedMemoryType">;
def Tile_AnyTensor : Type<CPred<"::llvm::isa<::phobos::tile::GlobalTensorType>($_self)">,
                          "tensor", "::phobos::tile::GlobalTensorType">;

// A tile whose elements satisfy `elem`.
class Tile_TileOf<Type elem> : Type<
  And<[Tile_AnyTile.predicate,
       SubstLeaves<"$_self",
                   "::llvm::cast<::phobos::tile::TileType>($_self).getElementType()",
                   elem.predicate>]>,
  "tile of " # elem.summary, "::phobos::tile::TileType">;

def Tile_FloatTile : Tile_TileOf<Tile_FloatElementType>;
def Tile_BoolTile : Tile_TileOf<I1>;
def Tile_NumericTile : Tile_TileOf<AnyTypeOf<[F16, BF16, F32, F64, I32, I64]>>;

// A scalar that may take part in tile arithmetic.
def Tile_Scalar : AnyTypeOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Tile_TileOrScalar : AnyTypeOf<[Tile_AnyTile, Tile_Scalar]>;

#endif // PHOBOS_DIALECT_TILE_IR_TILETYPES_TD

//===- TileAttrs.td - Attributes of the phobos dialect -----*- tablegen -*-===//
//
// Enumerations used by the ops, and the attributes that record a kernel's
// @autotune / @cluster search space.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEATTRS_TD
#define PHOBOS_DIALECT_TILE_IR_TILEATTRS_TD

include "Phobos/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Tile_AxisAttr : I32EnumAttr<"Axis", "a grid axis", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_CmpPredicateAttr : I32EnumAttr<"CmpPredicate", "a comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_ReduceKindAttr : I32EnumAttr<"ReduceKind", "a reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::phobos::tile";
}

def Tile_DotPrecisionAttr : I32EnumAttr<"DotPrecision",
    "the precision a dot rounds its operands to", [
    I32EnumAttrCase<"ieee", 0>, I32EnumAttrCase<"tf32", 1>,
    I32EnumAttrCase<"f16", 2>, I32EnumAttrCase<"bf16", 3>
  ]> {
  let cppNamespace = "::phobos::tile";
}

// `@tensorcore`'s precision on a kernel, spelled as in the source.
def Tile_TensorcoreAttr : ConfinedAttr<StrAttr, [AttrConstraint<CPred<[{
    ::llvm::cast<::mlir::StringAttr>($_self).getValue() == "f16" ||
    ::llvm::cast<::mlir::StringAttr>($_self).getValue() == "tf32" ||
    ::llvm::cast<::mlir::StringAttr>($_self).getValue() == "bf16"
  }]>, "one of \"f16\", \"tf32\" or \"bf16\"">]>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_TuneDimAttr : Tile_Attr<"TuneDim", "tune_dim"> {
  let summary = "one dimension of an @autotune or @cluster search space";
  let description = [{
    A named compile-time constant and the values it may take, in the order
    the source lists them (after expanding `[a, b]` bounds in doubling
    steps). The first value is the default variant's.

    Example: `#phobos.tune_dim<"TILE_M", [32, 64, 128]>`
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        ArrayRefParameter<"int64_t">:$values);
  let assemblyFormat = "`<` $name `,` `[` $values `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_TuneSpaceAttr : TypedArrayAttrBase<Tile_TuneDimAttr,
                                            "a search space">;

#endif // PHOBOS_DIALECT_TILE_IR_TILEATTRS_TD

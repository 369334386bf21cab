// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-order-global))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-order-global,tile-order-global))' --split-input-file | FileCheck %s

// A barrier goes between two global accesses of one tensor argument, one of
// them a write, that may touch one element from two threads of the CTA.
// Running the pass twice changes nothing (second RUN line).

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The in-place shift of issue 46: the statement's read of X[s :+ 512] and
// its store into X[0 :+ 512] may overlap, and the next statement reads
// X[s :+ 512] after the store. Reading back the slice just stored in the
// same layout needs nothing: each thread reads what it wrote.
// CHECK-LABEL: phobos.kernel @shift
// CHECK: phobos.load %arg0[%arg1]
// CHECK-NEXT: phobos.mul
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.store
// CHECK-NEXT: phobos.load %arg0[%c0_i32]
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.load %arg0[%arg1]
// CHECK-NEXT: phobos.add
// CHECK-NEXT: phobos.store
// CHECK-NEXT: phobos.return
phobos.kernel @shift(%X: !phobos.tensor<?xf32>, %s: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %two = arith.constant 2.0 : f32
  %a = phobos.load %X[%s] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  %b = phobos.mul %a, %two : !phobos.tile<512xf32, #b>, f32
  phobos.store %b, %X[%c0] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  %c = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  %d = phobos.load %X[%s] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  %e = phobos.add %d, %c : !phobos.tile<512xf32, #b>, !phobos.tile<512xf32, #b>
  phobos.store %e, %X[%s] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#c = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Nothing between: other tensors, two reads, slices a known distance
// apart (`(b + 1) * 512` and `b * 512`), two atomic additions.
// CHECK-LABEL: phobos.kernel @unordered_needs_nothing
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: phobos.return
phobos.kernel @unordered_needs_nothing(%X: !phobos.tensor<?xf32>, %Y: !phobos.tensor<?xf32>, %b: i32) attributes {max_threads = 128 : i32} {
  %c1 = arith.constant 1 : i32
  %c512 = arith.constant 512 : i32
  %next = arith.addi %b, %c1 : i32
  %o1 = arith.muli %next, %c512 : i32
  %o0 = arith.muli %b, %c512 : i32
  %x = phobos.load %X[%o1] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  %x2 = phobos.load %X[%o1] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #c>
  phobos.store %x, %Y[%o1] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  phobos.store %x, %X[%o0] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  phobos.atomic_add %x, %Y[%o0] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  phobos.atomic_add %x2, %Y[%o0] : !phobos.tile<512xf32, #c>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#c = #phobos.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The same slice in another layout gives its elements to other threads; a
// layout that gives an element to several threads (64 elements over 128
// threads) does too; an atomic addition orders with a plain read.
// CHECK-LABEL: phobos.kernel @other_threads
// CHECK: phobos.load %arg0[%c0_i32] {{.*}}sizePerThread = [4]
// CHECK-NEXT: phobos.convert_layout
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.store {{.*}}sizePerThread = [1]
// CHECK-NEXT: phobos.load %arg1[%c0_i32] {{.*}}tile<64xf32
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.store {{.*}}tile<64xf32
// CHECK-NEXT: phobos.atomic_add
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.load %arg2{{.*}}sizePerThread = [1]
// CHECK-NEXT: phobos.return
phobos.kernel @other_threads(%X: !phobos.tensor<?xf32>, %Y: !phobos.tensor<?xf32>, %Z: !phobos.tensor<?xf32>) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  %xc = phobos.convert_layout %x : !phobos.tile<512xf32, #b> -> !phobos.tile<512xf32, #c>
  phobos.store %xc, %X[%c0] : !phobos.tile<512xf32, #c>, !phobos.tensor<?xf32>
  %y = phobos.load %Y[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32, #b>
  phobos.store %y, %Y[%c0] : !phobos.tile<64xf32, #b>, !phobos.tensor<?xf32>
  phobos.atomic_add %x, %Z[%c0] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  %z = phobos.load %Z[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #c>
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A scalar is read by every thread and written by one: reading an element
// back, or writing one that was read, needs a barrier.
// CHECK-LABEL: phobos.kernel @scalars
// CHECK: phobos.load_scalar
// CHECK-NEXT: arith.addf
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.store_scalar
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.load_scalar
// CHECK-NEXT: phobos.return
phobos.kernel @scalars(%C: !phobos.tensor<?xf32>) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  %v = phobos.load_scalar %C[%c0] : !phobos.tensor<?xf32>
  %w = arith.addf %v, %one : f32
  phobos.store_scalar %w, %C[%c0] : !phobos.tensor<?xf32>
  %u = phobos.load_scalar %C[%c0] : !phobos.tensor<?xf32>
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Loops. In place, block by block: each iteration reads and writes its own
// block, and the next iteration's block lies one step (the block's extent)
// further: nothing. Reading the block ahead and writing it in the next
// iteration (an in-place shift by one block) is a write after read across
// iterations, and the first loop's stores reach the second loop's reads:
// one barrier per iteration, in front of the read, orders both.
// CHECK-LABEL: phobos.kernel @loops
// CHECK: scf.for
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.load
// CHECK-NEXT: phobos.store
// CHECK-NEXT: }
// CHECK-NEXT: phobos.return
phobos.kernel @loops(%X: !phobos.tensor<?xf32>, %n: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c512 : i32 {
    %x = phobos.load %X[%i] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
    %y = phobos.mul %x, %two : !phobos.tile<512xf32, #b>, f32
    phobos.store %y, %X[%i] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  }
  scf.for %i = %c0 to %n step %c512 : i32 {
    %ahead = arith.addi %i, %c512 : i32
    %x = phobos.load %X[%ahead] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
    phobos.store %x, %X[%i] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  }
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// tile-split-ragged-loops' remainder starts where the main loop of whole
// steps ends: its block is past every block of the main loop.
// CHECK-LABEL: phobos.kernel @ragged
// CHECK-NOT: phobos.barrier{{$}}
// CHECK: phobos.return
phobos.kernel @ragged(%X: !phobos.tensor<?xf32>, %Y: !phobos.tensor<?xf32>, %n: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %q = arith.divsi %n, %c512 : i32
  %full = arith.muli %q, %c512 : i32
  scf.for %i = %c0 to %full step %c512 : i32 {
    %x = phobos.load %X[%i] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
    phobos.store %x, %Y[%i] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  }
  scf.for %i = %full to %n step %c512 : i32 {
    %x = phobos.load %X[%i] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
    phobos.store %x, %Y[%i] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  } {phobos.ragged_remainder}
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A branch leaves what either side left pending; an existing barrier
// (tile-insert-barriers') orders everything before it.
// CHECK-LABEL: phobos.kernel @branches
// CHECK: scf.if
// CHECK-NEXT: phobos.store
// CHECK-NEXT: } else {
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.store
// CHECK: }
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.load %arg0[%arg1]
// CHECK-NEXT: phobos.store
// CHECK-NEXT: phobos.return
phobos.kernel @branches(%X: !phobos.tensor<?xf32>, %s: i32, %p: i1) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  scf.if %p {
    phobos.store %x, %X[%c0] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  } else {
    phobos.barrier
    phobos.store %x, %X[%s] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  }
  %y = phobos.load %X[%s] : !phobos.tensor<?xf32> -> !phobos.tile<512xf32, #b>
  phobos.store %y, %X[%s] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

#b = #phobos.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#s = #phobos.shared<order = [0], padding = 0>

// An asynchronous copy reads its slice when it runs: a store into that
// slice from another thread first commits and waits for the thread's
// copies, then for the CTA.
// CHECK-LABEL: phobos.kernel @async_read
// CHECK: phobos.async_copy
// CHECK-NEXT: phobos.fill
// CHECK-NEXT: phobos.async_commit
// CHECK-NEXT: phobos.async_wait 0
// CHECK-NEXT: phobos.barrier{{$}}
// CHECK-NEXT: phobos.store
phobos.kernel @async_read(%X: !phobos.tensor<?xf32>, %s: i32) attributes {max_threads = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %buf = phobos.local_buffer {offset = 0 : i64} : !phobos.smem<1x512xf32, #s>
  %slot = phobos.buffer_slot %buf[%c0] lag 0 : !phobos.smem<1x512xf32, #s> -> !phobos.smem<512xf32, #s>
  phobos.async_copy %X[%c0] into %slot : !phobos.tensor<?xf32>, !phobos.tile<512xf32, #b>, !phobos.smem<512xf32, #s>
  %t = phobos.fill %zero : !phobos.tile<512xf32, #b>
  phobos.store %t, %X[%s] : !phobos.tile<512xf32, #b>, !phobos.tensor<?xf32>
  phobos.return
}

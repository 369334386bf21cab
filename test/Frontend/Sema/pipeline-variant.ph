// RUN: phobos-translate --import-phobos %s | FileCheck %s
// RUN: phobos-translate --import-phobos %s --variant STAGES=3 | FileCheck %s --check-prefix=S3
// RUN: not phobos-translate --import-phobos %s --variant STAGES=9 2>&1 | FileCheck %s --check-prefix=BAD

// @pipeline's stage count may be an expression of the @autotune names, so
// that whether and how deep a loop is pipelined is a tuning choice, as
// num_stages is in a Triton config (1: not pipelined). It is resolved, and
// checked, for each variant.
@autotune(STAGES in [1, 3, 9])
@pipeline(STAGES)
kernel staged(o: tensor<i32>[N]) {
    o[0] = STAGES
}
// CHECK-LABEL: phobos.kernel @staged
// CHECK-SAME: pipeline, pipeline_stages = 1 : i32
// S3-LABEL: phobos.kernel @staged
// S3-SAME: pipeline, pipeline_stages = 3 : i32

// BAD: pipeline-variant.ph:10:11: error: @pipeline's number of stages must be between 1 and 8, got 9

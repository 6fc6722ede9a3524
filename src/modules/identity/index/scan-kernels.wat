;; Gallery scan kernels for the identity index (WebAssembly SIMD, 128-bit).
;;
;; Source of truth for scan-kernels.wasm.ts: `node scripts/build-wasm-kernels.mjs` compiles
;; this file with wabt and embeds the bytes; test/identity/scan-kernels.test.ts fails when the
;; two drift apart.
;;
;; Both kernels score every gallery row against one query and write one f32 per row to `out`.
;; They walk two rows per pass so each query load is shared by both rows. When n is odd the
;; last pass also reads row n and writes out[n]: the caller keeps capacity even (so row n is
;; inside the region) and ignores out[n].
(module
  (memory (export "memory") 1)

  ;; Exact: out[i] = dot(query, vecs[i]) in float32. dim % 4 == 0; query and rows are f32.
  (func (export "scan_f32") (param $q i32) (param $vecs i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $i i32) (local $p i32) (local $j i32) (local $bytes i32)
    (local $a0 v128) (local $a1 v128) (local $qv v128)
    (local.set $bytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $p (local.get $vecs))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $inner
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $j))))
          (local.set $a0 (f32x4.add (local.get $a0)
            (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $p) (local.get $j))))))
          (local.set $a1 (f32x4.add (local.get $a1)
            (f32x4.mul (local.get $qv) (v128.load (i32.add (i32.add (local.get $p) (local.get $bytes)) (local.get $j))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $inner (i32.lt_u (local.get $j) (local.get $bytes))))
        (f32.store (local.get $out)
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
                   (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (f32.store offset=4 (local.get $out)
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a1)) (f32x4.extract_lane 1 (local.get $a1)))
                   (f32.add (f32x4.extract_lane 2 (local.get $a1)) (f32x4.extract_lane 3 (local.get $a1)))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $bytes) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $pair))))

  ;; Approximate: out[i] = scales[i] * dot(query16, codes[i]), rows quantised to int8 with a
  ;; per-row scale, the query to int16 (one scale for the whole query, so it is left out:
  ;; it does not change the order). dim % 16 == 0. i32x4.dot_i16x8_s is one pmaddwd on x86
  ;; and one smull/sadalp pair on ARM, so a 128-D row costs 16 multiply-adds of 8 lanes.
  (func (export "scan_i8") (param $q i32) (param $codes i32) (param $scales i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $i i32) (local $p i32) (local $j i32) (local $qp i32)
    (local $a0 v128) (local $a1 v128) (local $b v128) (local $c v128) (local $ql v128) (local $qh v128)
    (local.set $p (local.get $codes))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $inner
          (local.set $qp (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1))))
          (local.set $ql (v128.load (local.get $qp)))
          (local.set $qh (v128.load offset=16 (local.get $qp)))
          (local.set $b (v128.load (i32.add (local.get $p) (local.get $j))))
          (local.set $c (v128.load (i32.add (i32.add (local.get $p) (local.get $dim)) (local.get $j))))
          (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b)) (local.get $ql))))
          (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $c)) (local.get $ql))))
          (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b)) (local.get $qh))))
          (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $c)) (local.get $qh))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $inner (i32.lt_u (local.get $j) (local.get $dim))))
        (f32.store (local.get $out)
          (f32.mul (f32.load (local.get $scales))
            (f32.convert_i32_s (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
                                        (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))))
        (f32.store offset=4 (local.get $out)
          (f32.mul (f32.load offset=4 (local.get $scales))
            (f32.convert_i32_s (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a1)) (i32x4.extract_lane 1 (local.get $a1)))
                                        (i32.add (i32x4.extract_lane 2 (local.get $a1)) (i32x4.extract_lane 3 (local.get $a1)))))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $scales (i32.add (local.get $scales) (i32.const 8)))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $dim) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $pair))))
)

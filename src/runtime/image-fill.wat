;; The image feed's fill (image-feed.ts) in WebAssembly SIMD, 128-bit: interleaved RGB bytes
;; into three float32 planes, value = (byte - mean) * inv.
;;
;; Source of truth for image-fill.wasm.ts: `node scripts/build-wasm-kernels.mjs` compiles this
;; file with wabt and embeds the bytes; test/runtime/wasm-kernels.test.ts fails when the two
;; drift apart. image-feed-arena.ts uses it only for a mean and scale whose float32 arithmetic
;; gives, for every byte, the same float as fillImageTensor's table (checked there), so the two
;; fills are bit-identical.
;;
;; fill_planes reads n pixels (a multiple of 16) from src, 48 bytes a pass: each plane's 16 bytes
;; are gathered from the three loads with swizzles (an index of -1 gives 0, so OR joins them),
;; widened to 32-bit integers, converted and stored as four f32x4 per plane.
(module
  (memory (export "memory") 1)
  ;; 16 bytes of one plane, widened and converted, into 16 floats at dst.
  (func $chan (param $v v128) (param $dst i32) (param $mean v128) (param $inv v128)
    (local $lo v128) (local $hi v128)
    (local.set $lo (i16x8.extend_low_i8x16_u (local.get $v)))
    (local.set $hi (i16x8.extend_high_i8x16_u (local.get $v)))
    (v128.store (local.get $dst)
      (f32x4.mul (f32x4.sub (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $lo))) (local.get $mean)) (local.get $inv)))
    (v128.store offset=16 (local.get $dst)
      (f32x4.mul (f32x4.sub (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $lo))) (local.get $mean)) (local.get $inv)))
    (v128.store offset=32 (local.get $dst)
      (f32x4.mul (f32x4.sub (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $hi))) (local.get $mean)) (local.get $inv)))
    (v128.store offset=48 (local.get $dst)
      (f32x4.mul (f32x4.sub (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $hi))) (local.get $mean)) (local.get $inv))))
  ;; n pixels (multiple of 16) of interleaved RGB at src into three float planes.
  (func (export "fill_planes") (param $src i32) (param $n i32) (param $r i32) (param $g i32) (param $b i32) (param $mean_s f32) (param $inv_s f32)
    (local $a v128) (local $bb v128) (local $c v128) (local $mean v128) (local $inv v128) (local $end i32)
    (local.set $mean (f32x4.splat (local.get $mean_s)))
    (local.set $inv (f32x4.splat (local.get $inv_s)))
    (local.set $end (i32.add (local.get $src) (i32.mul (local.get $n) (i32.const 3))))
    (block $done
      (loop $px
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $a (v128.load (local.get $src)))
        (local.set $bb (v128.load offset=16 (local.get $src)))
        (local.set $c (v128.load offset=32 (local.get $src)))
        (call $chan (v128.or (v128.or
            (i8x16.swizzle (local.get $a) (v128.const i8x16 0 3 6 9 12 15 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1))
            (i8x16.swizzle (local.get $bb) (v128.const i8x16 -1 -1 -1 -1 -1 -1 2 5 8 11 14 -1 -1 -1 -1 -1)))
            (i8x16.swizzle (local.get $c) (v128.const i8x16 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 1 4 7 10 13)))
          (local.get $r) (local.get $mean) (local.get $inv))
        (call $chan (v128.or (v128.or
            (i8x16.swizzle (local.get $a) (v128.const i8x16 1 4 7 10 13 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1))
            (i8x16.swizzle (local.get $bb) (v128.const i8x16 -1 -1 -1 -1 -1 0 3 6 9 12 15 -1 -1 -1 -1 -1)))
            (i8x16.swizzle (local.get $c) (v128.const i8x16 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 2 5 8 11 14)))
          (local.get $g) (local.get $mean) (local.get $inv))
        (call $chan (v128.or (v128.or
            (i8x16.swizzle (local.get $a) (v128.const i8x16 2 5 8 11 14 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1))
            (i8x16.swizzle (local.get $bb) (v128.const i8x16 -1 -1 -1 -1 -1 1 4 7 10 13 -1 -1 -1 -1 -1 -1)))
            (i8x16.swizzle (local.get $c) (v128.const i8x16 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 0 3 6 9 12 15)))
          (local.get $b) (local.get $mean) (local.get $inv))
        (local.set $src (i32.add (local.get $src) (i32.const 48)))
        (local.set $r (i32.add (local.get $r) (i32.const 64)))
        (local.set $g (i32.add (local.get $g) (i32.const 64)))
        (local.set $b (i32.add (local.get $b) (i32.const 64)))
        (br $px)))))

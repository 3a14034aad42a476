;; A float matrix product whose left operand is mostly zeros (the sentence model's feed-forward layer after its
;; ReLU, about nine in ten), for search/sparse-rows.ts. It runs on tfjs's own WebAssembly memory (imported), so
;; operands and result stay where tfjs keeps them. Each output starts at +0 and receives a[i][k] * w[k][j] in k
;; order (f32 multiply, then f32 add), as XNNPACK's GEMM sums it, but only for the nonzero a[i][k]: a zero term
;; adds +0 or -0 to a sum that is never -0 (it starts at +0, and a sum that cancels to zero is +0), which leaves
;; it as it was, so the result is XNNPACK's bit for bit. Built into sparse-rows.wasm by `npm run kernel` (wabt).
;;
;; product(a, w, out, at, m, k, n): out[m x n] = a[m x k] times w[k x n], dense row-major f32 at byte offsets;
;; n a multiple of 32; `at` is scratch for k i32 (the nonzero columns of one row of a).
(module
  (import "env" "memory" (memory 0))
  (func (export "product")
    (param $a i32) (param $w i32) (param $out i32) (param $at i32) (param $m i32) (param $k i32) (param $n i32)
    (local $i i32) (local $c i32) (local $kk i32) (local $t i32) (local $j i32) (local $row i32) (local $p i32)
    (local $s v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $s4 v128) (local $s5 v128) (local $s6 v128) (local $s7 v128)
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $row (i32.add (local.get $a) (i32.shl (i32.mul (local.get $i) (local.get $k)) (i32.const 2))))
        ;; The row's nonzero columns, in order.
        (local.set $c (i32.const 0))
        (local.set $kk (i32.const 0))
        (block $scan_done
          (loop $scan
            (br_if $scan_done (i32.ge_u (local.get $kk) (local.get $k)))
            (if (f32.ne (f32.load (i32.add (local.get $row) (i32.shl (local.get $kk) (i32.const 2)))) (f32.const 0))
              (then
                (i32.store (i32.add (local.get $at) (i32.shl (local.get $c) (i32.const 2))) (local.get $kk))
                (local.set $c (i32.add (local.get $c) (i32.const 1)))))
            (local.set $kk (i32.add (local.get $kk) (i32.const 1)))
            (br $scan)))
        (local.set $j (i32.const 0))
        (block $cols_done
          (loop $cols
            (br_if $cols_done (i32.ge_u (local.get $j) (local.get $n)))
            (local.set $s0 (v128.const f32x4 0 0 0 0)) (local.set $s1 (v128.const f32x4 0 0 0 0))
            (local.set $s2 (v128.const f32x4 0 0 0 0)) (local.set $s3 (v128.const f32x4 0 0 0 0))
            (local.set $s4 (v128.const f32x4 0 0 0 0)) (local.set $s5 (v128.const f32x4 0 0 0 0))
            (local.set $s6 (v128.const f32x4 0 0 0 0)) (local.set $s7 (v128.const f32x4 0 0 0 0))
            (local.set $t (i32.const 0))
            (block $terms_done
              (loop $terms
                (br_if $terms_done (i32.ge_u (local.get $t) (local.get $c)))
                (local.set $kk (i32.load (i32.add (local.get $at) (i32.shl (local.get $t) (i32.const 2)))))
                (local.set $s (v128.load32_splat (i32.add (local.get $row) (i32.shl (local.get $kk) (i32.const 2)))))
                ;; Byte offset of w[kk][j].
                (local.set $p (i32.add (local.get $w)
                  (i32.shl (i32.add (i32.mul (local.get $kk) (local.get $n)) (local.get $j)) (i32.const 2))))
                (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (local.get $s) (v128.load (local.get $p)))))
                (local.set $s1 (f32x4.add (local.get $s1) (f32x4.mul (local.get $s) (v128.load offset=16 (local.get $p)))))
                (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (local.get $s) (v128.load offset=32 (local.get $p)))))
                (local.set $s3 (f32x4.add (local.get $s3) (f32x4.mul (local.get $s) (v128.load offset=48 (local.get $p)))))
                (local.set $s4 (f32x4.add (local.get $s4) (f32x4.mul (local.get $s) (v128.load offset=64 (local.get $p)))))
                (local.set $s5 (f32x4.add (local.get $s5) (f32x4.mul (local.get $s) (v128.load offset=80 (local.get $p)))))
                (local.set $s6 (f32x4.add (local.get $s6) (f32x4.mul (local.get $s) (v128.load offset=96 (local.get $p)))))
                (local.set $s7 (f32x4.add (local.get $s7) (f32x4.mul (local.get $s) (v128.load offset=112 (local.get $p)))))
                (local.set $t (i32.add (local.get $t) (i32.const 1)))
                (br $terms)))
            (local.set $p (i32.add (local.get $out)
              (i32.shl (i32.add (i32.mul (local.get $i) (local.get $n)) (local.get $j)) (i32.const 2))))
            (v128.store (local.get $p) (local.get $s0))
            (v128.store offset=16 (local.get $p) (local.get $s1))
            (v128.store offset=32 (local.get $p) (local.get $s2))
            (v128.store offset=48 (local.get $p) (local.get $s3))
            (v128.store offset=64 (local.get $p) (local.get $s4))
            (v128.store offset=80 (local.get $p) (local.get $s5))
            (v128.store offset=96 (local.get $p) (local.get $s6))
            (v128.store offset=112 (local.get $p) (local.get $s7))
            (local.set $j (i32.add (local.get $j) (i32.const 32)))
            (br $cols)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
)

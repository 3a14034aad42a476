;; Batched float matrix products for the sentence model's attention (search/batch-matmul.ts), summed in the
;; order of tfjs's WebAssembly BatchMatMul loop so that every product is that kernel's, bit for bit: each
;; output starts at +0 and receives, block by block of BLOCK = 48 shared indices in order, the block's sum,
;; itself started at +0 and accumulated in index order (f32 multiply, then f32 add; no fused multiply-add).
;; The loop below computes four rows by eight columns at once, one f32x4 lane per output, each lane in that
;; order. Built into batch-matmul.wasm by `npm run kernel` (wabt); both are committed.
;;
;; bmm(a, b, out, packed, tile, batch, m, k, n, transB): for each of `batch` matrices, out[m x n] = a[m x k]
;; times b, where b is [k x n], or [n x k] when transB is 1; a, b and out are dense row-major f32 at byte
;; offsets. `packed` is scratch for k x np floats (b as [k x np], np = n rounded up to 8, zero-padded),
;; `tile` scratch for mp x np floats (mp = m rounded up to 4).
(module
  (memory (export "memory") 1)
  (func (export "bmm")
    (param $a i32) (param $b i32) (param $out i32) (param $packed i32) (param $tile i32)
    (param $batch i32) (param $m i32) (param $k i32) (param $n i32) (param $transB i32)
    (local $np i32) (local $mp i32) (local $q i32)
    (local.set $np (i32.and (i32.add (local.get $n) (i32.const 7)) (i32.const -8)))
    (local.set $mp (i32.and (i32.add (local.get $m) (i32.const 3)) (i32.const -4)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $q) (local.get $batch)))
        (call $pack (local.get $b) (local.get $packed) (local.get $k) (local.get $n) (local.get $np) (local.get $transB))
        (memory.fill (local.get $tile) (i32.const 0) (i32.shl (i32.mul (local.get $mp) (local.get $np)) (i32.const 2)))
        (call $product (local.get $a) (local.get $packed) (local.get $tile) (local.get $m) (local.get $mp)
          (local.get $k) (local.get $np))
        (call $unpad (local.get $tile) (local.get $out) (local.get $m) (local.get $n) (local.get $np))
        (local.set $a (i32.add (local.get $a) (i32.shl (i32.mul (local.get $m) (local.get $k)) (i32.const 2))))
        (local.set $b (i32.add (local.get $b) (i32.shl (i32.mul (local.get $k) (local.get $n)) (i32.const 2))))
        (local.set $out (i32.add (local.get $out) (i32.shl (i32.mul (local.get $m) (local.get $n)) (i32.const 2))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $each))))

  ;; packed[r][c] = b[r][c] (or b[c][r] when transB) for c < n, 0 for n <= c < np.
  (func $pack (param $b i32) (param $packed i32) (param $k i32) (param $n i32) (param $np i32) (param $transB i32)
    (local $r i32) (local $c i32) (local $at i32)
    (memory.fill (local.get $packed) (i32.const 0) (i32.shl (i32.mul (local.get $k) (local.get $np)) (i32.const 2)))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $r) (local.get $k)))
        (local.set $c (i32.const 0))
        (block $cols_done
          (loop $cols
            (br_if $cols_done (i32.ge_u (local.get $c) (local.get $n)))
            (local.set $at
              (if (result i32) (local.get $transB)
                (then (i32.add (i32.mul (local.get $c) (local.get $k)) (local.get $r)))
                (else (i32.add (i32.mul (local.get $r) (local.get $n)) (local.get $c)))))
            (f32.store
              (i32.add (local.get $packed) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $np)) (local.get $c)) (i32.const 2)))
              (f32.load (i32.add (local.get $b) (i32.shl (local.get $at) (i32.const 2)))))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $cols)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))

  ;; out[r][c] = tile[r][c] for r < m, c < n.
  (func $unpad (param $tile i32) (param $out i32) (param $m i32) (param $n i32) (param $np i32)
    (local $r i32)
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $r) (local.get $m)))
        (memory.copy
          (i32.add (local.get $out) (i32.shl (i32.mul (local.get $r) (local.get $n)) (i32.const 2)))
          (i32.add (local.get $tile) (i32.shl (i32.mul (local.get $r) (local.get $np)) (i32.const 2)))
          (i32.shl (local.get $n) (i32.const 2)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))

  ;; tile[mp x np] += the block sums of a[m x k] times packed[k x np], block by block; rows of a past m read
  ;; its last row (their outputs are padding).
  (func $product (param $a i32) (param $packed i32) (param $tile i32) (param $m i32) (param $mp i32)
    (param $k i32) (param $np i32)
    (local $k0 i32) (local $kend i32) (local $i i32) (local $j i32) (local $kk i32)
    (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32) (local $bp i32) (local $t i32)
    (local $x v128) (local $y v128) (local $v v128)
    (local $s00 v128) (local $s01 v128) (local $s10 v128) (local $s11 v128)
    (local $s20 v128) (local $s21 v128) (local $s30 v128) (local $s31 v128)
    (local $last i32) (local $stride i32)
    (local.set $last (i32.sub (local.get $m) (i32.const 1)))
    (local.set $stride (i32.shl (local.get $np) (i32.const 2)))
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done (i32.ge_u (local.get $k0) (local.get $k)))
        (local.set $kend (i32.add (local.get $k0) (i32.const 48)))
        (if (i32.gt_u (local.get $kend) (local.get $k)) (then (local.set $kend (local.get $k))))
        (local.set $i (i32.const 0))
        (block $rows_done
          (loop $rows
            (br_if $rows_done (i32.ge_u (local.get $i) (local.get $mp)))
            ;; Byte offsets of the four rows' first element of this block.
            (local.set $a0 (call $row (local.get $a) (local.get $i) (local.get $last) (local.get $k) (local.get $k0)))
            (local.set $a1 (call $row (local.get $a) (i32.add (local.get $i) (i32.const 1)) (local.get $last) (local.get $k) (local.get $k0)))
            (local.set $a2 (call $row (local.get $a) (i32.add (local.get $i) (i32.const 2)) (local.get $last) (local.get $k) (local.get $k0)))
            (local.set $a3 (call $row (local.get $a) (i32.add (local.get $i) (i32.const 3)) (local.get $last) (local.get $k) (local.get $k0)))
            (local.set $j (i32.const 0))
            (block $cols_done
              (loop $cols
                (br_if $cols_done (i32.ge_u (local.get $j) (local.get $np)))
                (local.set $s00 (v128.const f32x4 0 0 0 0)) (local.set $s01 (v128.const f32x4 0 0 0 0))
                (local.set $s10 (v128.const f32x4 0 0 0 0)) (local.set $s11 (v128.const f32x4 0 0 0 0))
                (local.set $s20 (v128.const f32x4 0 0 0 0)) (local.set $s21 (v128.const f32x4 0 0 0 0))
                (local.set $s30 (v128.const f32x4 0 0 0 0)) (local.set $s31 (v128.const f32x4 0 0 0 0))
                (local.set $bp (i32.add (local.get $packed)
                  (i32.shl (i32.add (i32.mul (local.get $k0) (local.get $np)) (local.get $j)) (i32.const 2))))
                (local.set $kk (i32.const 0))
                (block $ks_done
                  (loop $ks
                    (br_if $ks_done (i32.ge_u (i32.add (local.get $k0) (local.get $kk)) (local.get $kend)))
                    (local.set $x (v128.load (local.get $bp)))
                    (local.set $y (v128.load offset=16 (local.get $bp)))
                    (local.set $t (i32.shl (local.get $kk) (i32.const 2)))
                    (local.set $v (v128.load32_splat (i32.add (local.get $a0) (local.get $t))))
                    (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $v) (local.get $x))))
                    (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $v) (local.get $y))))
                    (local.set $v (v128.load32_splat (i32.add (local.get $a1) (local.get $t))))
                    (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $v) (local.get $x))))
                    (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $v) (local.get $y))))
                    (local.set $v (v128.load32_splat (i32.add (local.get $a2) (local.get $t))))
                    (local.set $s20 (f32x4.add (local.get $s20) (f32x4.mul (local.get $v) (local.get $x))))
                    (local.set $s21 (f32x4.add (local.get $s21) (f32x4.mul (local.get $v) (local.get $y))))
                    (local.set $v (v128.load32_splat (i32.add (local.get $a3) (local.get $t))))
                    (local.set $s30 (f32x4.add (local.get $s30) (f32x4.mul (local.get $v) (local.get $x))))
                    (local.set $s31 (f32x4.add (local.get $s31) (f32x4.mul (local.get $v) (local.get $y))))
                    (local.set $bp (i32.add (local.get $bp) (local.get $stride)))
                    (local.set $kk (i32.add (local.get $kk) (i32.const 1)))
                    (br $ks)))
                ;; The block's sums added to the outputs, in block order.
                (local.set $t (i32.add (local.get $tile)
                  (i32.shl (i32.add (i32.mul (local.get $i) (local.get $np)) (local.get $j)) (i32.const 2))))
                (v128.store (local.get $t) (f32x4.add (v128.load (local.get $t)) (local.get $s00)))
                (v128.store offset=16 (local.get $t) (f32x4.add (v128.load offset=16 (local.get $t)) (local.get $s01)))
                (local.set $t (i32.add (local.get $t) (local.get $stride)))
                (v128.store (local.get $t) (f32x4.add (v128.load (local.get $t)) (local.get $s10)))
                (v128.store offset=16 (local.get $t) (f32x4.add (v128.load offset=16 (local.get $t)) (local.get $s11)))
                (local.set $t (i32.add (local.get $t) (local.get $stride)))
                (v128.store (local.get $t) (f32x4.add (v128.load (local.get $t)) (local.get $s20)))
                (v128.store offset=16 (local.get $t) (f32x4.add (v128.load offset=16 (local.get $t)) (local.get $s21)))
                (local.set $t (i32.add (local.get $t) (local.get $stride)))
                (v128.store (local.get $t) (f32x4.add (v128.load (local.get $t)) (local.get $s30)))
                (v128.store offset=16 (local.get $t) (f32x4.add (v128.load offset=16 (local.get $t)) (local.get $s31)))
                (local.set $j (i32.add (local.get $j) (i32.const 8)))
                (br $cols)))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $rows)))
        (local.set $k0 (local.get $kend))
        (br $blocks))))

  ;; Byte offset of a[min(i, last)][k0].
  (func $row (param $a i32) (param $i i32) (param $last i32) (param $k i32) (param $k0 i32) (result i32)
    (if (i32.gt_u (local.get $i) (local.get $last)) (then (local.set $i (local.get $last))))
    (i32.add (local.get $a) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $k)) (local.get $k0)) (i32.const 2)))))

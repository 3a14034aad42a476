;; Dot products of one int8 query with every row of an int8 matrix, for the semantic skill index
;; (search/int8-index.ts). Built into int8-dot.wasm by `npm run kernel` (wabt); both are committed.
;;
;; dots(q, m, rows, dim, out): for r in [0, rows), i32 out[r] = sum_j q[j] * m[r * dim + j], where q
;; and m are byte offsets into the exported memory and dim is a multiple of 16. Each 16 int8 lanes are
;; widened to i16 and multiplied pairwise into i32 lanes (i32x4.dot_i16x8_s): no overflow, since
;; |q[j] * m[j]| <= 127 * 128 and rows are at most a few thousand components long.
;;
;; dotsAt(q, m, at, n, dim, out): the same for the n rows listed as i32 row numbers at byte offset at:
;; i32 out[k] = sum_j q[j] * m[at[k] * dim + j].
;;
;; hamming(q, m, rows, bytes, out): i32 out[r] = the number of bits that differ between the bit string
;; of `bytes` bytes at q and row r of the bit matrix at m (bytes a multiple of 16; each
;; byte lane counts at most 8 bits per 16 bytes and must stay below 256, so at most 496 bytes).
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $q i32) (param $m i32) (param $rows i32) (param $dim i32) (param $out i32)
    (local $r i32)
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (call $dot (local.get $q) (i32.add (local.get $m) (i32.mul (local.get $r) (local.get $dim))) (local.get $dim)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row))))
  (func $dot (param $q i32) (param $row i32) (param $dim i32) (result i32)
    (local $j i32)
    (local $a v128)
    (local $b v128)
    (local $acc v128)
    (loop $each_16
      (local.set $a (v128.load (i32.add (local.get $q) (local.get $j))))
      (local.set $b (v128.load (i32.add (local.get $row) (local.get $j))))
      (local.set $acc
        (i32x4.add
          (local.get $acc)
          (i32x4.add
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b))))))
      (local.set $j (i32.add (local.get $j) (i32.const 16)))
      (br_if $each_16 (i32.lt_u (local.get $j) (local.get $dim))))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
      (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
  ;; Four listed rows at a time, so their memory is fetched in parallel (the rows are scattered).
  (func (export "dotsAt") (param $q i32) (param $m i32) (param $at i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $k i32)
    (local $j i32)
    (local $a v128)
    (local $b v128)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $o i32)
    (block $fours_done
      (loop $fours
        (br_if $fours_done (i32.gt_u (i32.add (local.get $k) (i32.const 4)) (local.get $n)))
        (local.set $o (i32.add (local.get $at) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $r0 (i32.add (local.get $m) (i32.mul (i32.load (local.get $o)) (local.get $dim))))
        (local.set $r1 (i32.add (local.get $m) (i32.mul (i32.load offset=4 (local.get $o)) (local.get $dim))))
        (local.set $r2 (i32.add (local.get $m) (i32.mul (i32.load offset=8 (local.get $o)) (local.get $dim))))
        (local.set $r3 (i32.add (local.get $m) (i32.mul (i32.load offset=12 (local.get $o)) (local.get $dim))))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0))
        (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $each_16
          (local.set $a (v128.load (i32.add (local.get $q) (local.get $j))))
          (local.set $b (v128.load (i32.add (local.get $r0) (local.get $j))))
          (local.set $s0 (i32x4.add (local.get $s0) (i32x4.add
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b))))))
          (local.set $b (v128.load (i32.add (local.get $r1) (local.get $j))))
          (local.set $s1 (i32x4.add (local.get $s1) (i32x4.add
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b))))))
          (local.set $b (v128.load (i32.add (local.get $r2) (local.get $j))))
          (local.set $s2 (i32x4.add (local.get $s2) (i32x4.add
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b))))))
          (local.set $b (v128.load (i32.add (local.get $r3) (local.get $j))))
          (local.set $s3 (i32x4.add (local.get $s3) (i32x4.add
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $each_16 (i32.lt_u (local.get $j) (local.get $dim))))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))))
        (i32.store (local.get $o) (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $s0)) (i32x4.extract_lane 1 (local.get $s0)))
      (i32.add (i32x4.extract_lane 2 (local.get $s0)) (i32x4.extract_lane 3 (local.get $s0)))))
        (i32.store offset=4 (local.get $o) (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $s1)) (i32x4.extract_lane 1 (local.get $s1)))
      (i32.add (i32x4.extract_lane 2 (local.get $s1)) (i32x4.extract_lane 3 (local.get $s1)))))
        (i32.store offset=8 (local.get $o) (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $s2)) (i32x4.extract_lane 1 (local.get $s2)))
      (i32.add (i32x4.extract_lane 2 (local.get $s2)) (i32x4.extract_lane 3 (local.get $s2)))))
        (i32.store offset=12 (local.get $o) (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $s3)) (i32x4.extract_lane 1 (local.get $s3)))
      (i32.add (i32x4.extract_lane 2 (local.get $s3)) (i32x4.extract_lane 3 (local.get $s3)))))
        (local.set $k (i32.add (local.get $k) (i32.const 4)))
        (br $fours)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $k) (local.get $n)))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
          (call $dot
            (local.get $q)
            (i32.add
              (local.get $m)
              (i32.mul (i32.load (i32.add (local.get $at) (i32.shl (local.get $k) (i32.const 2)))) (local.get $dim)))
            (local.get $dim)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each))))
  (func (export "hamming") (param $q i32) (param $m i32) (param $rows i32) (param $bytes i32) (param $out i32)
    (local $r i32)
    (local $j i32)
    (local $row i32)
    (local $acc v128)
    (local.set $row (local.get $m))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $each_16
          (local.set $acc
            (i8x16.add
              (local.get $acc)
              (i8x16.popcnt
                (v128.xor
                  (v128.load (i32.add (local.get $q) (local.get $j)))
                  (v128.load (i32.add (local.get $row) (local.get $j)))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $each_16 (i32.lt_u (local.get $j) (local.get $bytes))))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row)))))

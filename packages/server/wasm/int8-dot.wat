;; Dot products of one int8 query with every row of an int8 matrix, for the semantic skill index
;; (search/int8-index.ts). Built into int8-dot.wasm by `npm run kernel` (wabt); both are committed.
;;
;; dots(q, m, rows, dim, out): for r in [0, rows), i32 out[r] = sum_j q[j] * m[r * dim + j], where q
;; and m are byte offsets into the exported memory and dim is a multiple of 16. Each 16 int8 lanes are
;; widened to i16 and multiplied pairwise into i32 lanes (i32x4.dot_i16x8_s): no overflow, since
;; |q[j] * m[j]| <= 127 * 128 and rows are at most a few thousand components long.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $q i32) (param $m i32) (param $rows i32) (param $dim i32) (param $out i32)
    (local $r i32)
    (local $j i32)
    (local $row i32)
    (local $a v128)
    (local $b v128)
    (local $acc v128)
    (local.set $row (local.get $m))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
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
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $dim)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row)))))

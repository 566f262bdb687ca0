//go:build !purego

#include "textflag.h"

// func rows8AVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, chunkBytes int, alpha, beta, gam, ck, c0 float64, first int)
// rows8Go: for rows i in [lo, hi) and each chunk of eight columns below
// chunkBytes/8 (two YMM registers of four columns, byte offset o in the
// row, rows stride bytes apart), s = deg[i]·x_i − Σ_p (w[p]·)x_{col[p]} in
// the row's order, v = α·s + β·x_i (+ γ·z_i when z is not empty; z_i is
// read before out_i is written, so z may be out), out_i = v, and
// acc_i = c0·x_i + ck·v when first ≠ 0, else acc_i += ck·v. Each product
// is rounded on its own (no FMA), as in Go.
TEXT ·rows8AVX2(SB), NOSPLIT, $0-272
	MOVQ out_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ z_base+48(FP), R12
	MOVQ z_len+56(FP), AX
	TESTQ AX, AX
	JNE hasz
	XORQ R12, R12

hasz:
	MOVQ acc_base+72(FP), R15
	MOVQ rowPtr_base+96(FP), BX
	MOVQ col_base+120(FP), R9
	MOVQ w_base+144(FP), R10
	MOVQ w_len+152(FP), AX
	TESTQ AX, AX
	JNE hasw
	XORQ R10, R10

hasw:
	MOVQ deg_base+168(FP), R8
	VBROADCASTSD alpha+224(FP), Y13
	VBROADCASTSD beta+232(FP), Y14
	VBROADCASTSD gam+240(FP), Y15
	VBROADCASTSD ck+248(FP), Y12
	VBROADCASTSD c0+256(FP), Y11
	MOVQ lo+192(FP), CX

row:
	CMPQ CX, hi+200(FP)
	JGE done
	MOVQ CX, AX
	IMULQ stride+208(FP), AX
	XORQ R13, R13

chunk:
	CMPQ R13, chunkBytes+216(FP)
	JGE nextrow
	LEAQ (AX)(R13*1), R11
	VBROADCASTSD (R8)(CX*8), Y4
	VMULPD 0(SI)(R11*1), Y4, Y0
	VMULPD 32(SI)(R11*1), Y4, Y1
	MOVQ (BX)(CX*8), DX
	MOVQ 8(BX)(CX*8), R14
	TESTQ R10, R10
	JNE weighted

plain:
	CMPQ DX, R14
	JGE epilogue
	MOVLQSX (R9)(DX*4), R11
	IMULQ stride+208(FP), R11
	ADDQ R13, R11
	VSUBPD 0(SI)(R11*1), Y0, Y0
	VSUBPD 32(SI)(R11*1), Y1, Y1
	INCQ DX
	JMP plain

weighted:
	CMPQ DX, R14
	JGE epilogue
	MOVLQSX (R9)(DX*4), R11
	IMULQ stride+208(FP), R11
	ADDQ R13, R11
	VBROADCASTSD (R10)(DX*8), Y4
	VMULPD 0(SI)(R11*1), Y4, Y5
	VSUBPD Y5, Y0, Y0
	VMULPD 32(SI)(R11*1), Y4, Y6
	VSUBPD Y6, Y1, Y1
	INCQ DX
	JMP weighted

epilogue:
	LEAQ (AX)(R13*1), R11
	VMULPD Y0, Y13, Y0
	VMULPD 0(SI)(R11*1), Y14, Y5
	VADDPD Y5, Y0, Y0
	VMULPD Y1, Y13, Y1
	VMULPD 32(SI)(R11*1), Y14, Y6
	VADDPD Y6, Y1, Y1
	TESTQ R12, R12
	JEQ store
	VMULPD 0(R12)(R11*1), Y15, Y5
	VADDPD Y5, Y0, Y0
	VMULPD 32(R12)(R11*1), Y15, Y6
	VADDPD Y6, Y1, Y1

store:
	VMOVUPD Y0, 0(DI)(R11*1)
	VMOVUPD Y1, 32(DI)(R11*1)
	VMULPD Y0, Y12, Y0
	VMULPD Y1, Y12, Y1
	CMPQ first+264(FP), $0
	JEQ accumulate
	VMULPD 0(SI)(R11*1), Y11, Y5
	VADDPD Y0, Y5, Y5
	VMOVUPD Y5, 0(R15)(R11*1)
	VMULPD 32(SI)(R11*1), Y11, Y6
	VADDPD Y1, Y6, Y6
	VMOVUPD Y6, 32(R15)(R11*1)
	JMP nextchunk

accumulate:
	VADDPD 0(R15)(R11*1), Y0, Y5
	VMOVUPD Y5, 0(R15)(R11*1)
	VADDPD 32(R15)(R11*1), Y1, Y6
	VMOVUPD Y6, 32(R15)(R11*1)

nextchunk:
	ADDQ $64, R13
	JMP chunk

nextrow:
	INCQ CX
	JMP row

done:
	VZEROUPPER
	RET

// func rows32AVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)
// rows32AVX2 is rows8AVX2 on groups of 32 columns (8 YMM accumulators,
// groupBytes a multiple of 256): a neighbour's index is read once a group,
// its row is prefetched 16 neighbours ahead, and the 8 sums are
// independent chains (rows8AVX2's two wait on their add's latency). Per
// column the operations and their order are rows8AVX2's: the same bits.
TEXT ·rows32AVX2(SB), NOSPLIT, $0-272
	MOVQ out_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ z_base+48(FP), R12
	MOVQ z_len+56(FP), AX
	TESTQ AX, AX
	JNE hasz32
	XORQ R12, R12

hasz32:
	MOVQ acc_base+72(FP), R15
	MOVQ rowPtr_base+96(FP), BX
	MOVQ col_base+120(FP), R9
	MOVQ w_base+144(FP), R10
	MOVQ w_len+152(FP), AX
	TESTQ AX, AX
	JNE hasw32
	XORQ R10, R10

hasw32:
	MOVQ deg_base+168(FP), R8
	VBROADCASTSD alpha+224(FP), Y13
	VBROADCASTSD beta+232(FP), Y14
	VBROADCASTSD gam+240(FP), Y15
	VBROADCASTSD ck+248(FP), Y12
	VBROADCASTSD c0+256(FP), Y11
	MOVQ lo+192(FP), CX

row32:
	CMPQ CX, hi+200(FP)
	JGE done32
	MOVQ CX, AX
	IMULQ stride+208(FP), AX
	XORQ R13, R13

group32:
	CMPQ R13, groupBytes+216(FP)
	JGE nextrow32
	LEAQ (AX)(R13*1), R11
	VBROADCASTSD (R8)(CX*8), Y8
	VMULPD 0(SI)(R11*1), Y8, Y0
	VMULPD 32(SI)(R11*1), Y8, Y1
	VMULPD 64(SI)(R11*1), Y8, Y2
	VMULPD 96(SI)(R11*1), Y8, Y3
	VMULPD 128(SI)(R11*1), Y8, Y4
	VMULPD 160(SI)(R11*1), Y8, Y5
	VMULPD 192(SI)(R11*1), Y8, Y6
	VMULPD 224(SI)(R11*1), Y8, Y7
	MOVQ (BX)(CX*8), DX

next32:
	CMPQ DX, 8(BX)(CX*8)
	JGE epilogue32
	LEAQ 16(DX), R14
	CMPQ R14, col_len+128(FP)
	JGE nopf32
	MOVLQSX (R9)(R14*4), R14
	IMULQ stride+208(FP), R14
	ADDQ R13, R14
	PREFETCHT0 0(SI)(R14*1)
	PREFETCHT0 64(SI)(R14*1)
	PREFETCHT0 128(SI)(R14*1)
	PREFETCHT0 192(SI)(R14*1)

nopf32:
	MOVLQSX (R9)(DX*4), R11
	IMULQ stride+208(FP), R11
	ADDQ R13, R11
	TESTQ R10, R10
	JNE weighted32
	VSUBPD 0(SI)(R11*1), Y0, Y0
	VSUBPD 32(SI)(R11*1), Y1, Y1
	VSUBPD 64(SI)(R11*1), Y2, Y2
	VSUBPD 96(SI)(R11*1), Y3, Y3
	VSUBPD 128(SI)(R11*1), Y4, Y4
	VSUBPD 160(SI)(R11*1), Y5, Y5
	VSUBPD 192(SI)(R11*1), Y6, Y6
	VSUBPD 224(SI)(R11*1), Y7, Y7
	INCQ DX
	JMP next32

weighted32:
	VBROADCASTSD (R10)(DX*8), Y8
	VMULPD 0(SI)(R11*1), Y8, Y9
	VSUBPD Y9, Y0, Y0
	VMULPD 32(SI)(R11*1), Y8, Y10
	VSUBPD Y10, Y1, Y1
	VMULPD 64(SI)(R11*1), Y8, Y9
	VSUBPD Y9, Y2, Y2
	VMULPD 96(SI)(R11*1), Y8, Y10
	VSUBPD Y10, Y3, Y3
	VMULPD 128(SI)(R11*1), Y8, Y9
	VSUBPD Y9, Y4, Y4
	VMULPD 160(SI)(R11*1), Y8, Y10
	VSUBPD Y10, Y5, Y5
	VMULPD 192(SI)(R11*1), Y8, Y9
	VSUBPD Y9, Y6, Y6
	VMULPD 224(SI)(R11*1), Y8, Y10
	VSUBPD Y10, Y7, Y7
	INCQ DX
	JMP next32

epilogue32:
	LEAQ (AX)(R13*1), R11
	VMULPD Y0, Y13, Y0
	VMULPD 0(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y0, Y0
	VMULPD Y1, Y13, Y1
	VMULPD 32(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y1, Y1
	VMULPD Y2, Y13, Y2
	VMULPD 64(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y2, Y2
	VMULPD Y3, Y13, Y3
	VMULPD 96(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y3, Y3
	VMULPD Y4, Y13, Y4
	VMULPD 128(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y4, Y4
	VMULPD Y5, Y13, Y5
	VMULPD 160(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y5, Y5
	VMULPD Y6, Y13, Y6
	VMULPD 192(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y6, Y6
	VMULPD Y7, Y13, Y7
	VMULPD 224(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y7, Y7
	TESTQ R12, R12
	JEQ store32
	VMULPD 0(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y0, Y0
	VMULPD 32(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y1, Y1
	VMULPD 64(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y2, Y2
	VMULPD 96(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y3, Y3
	VMULPD 128(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y4, Y4
	VMULPD 160(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y5, Y5
	VMULPD 192(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y6, Y6
	VMULPD 224(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y7, Y7

store32:
	VMOVUPD Y0, 0(DI)(R11*1)
	VMULPD Y0, Y12, Y0
	VMOVUPD Y1, 32(DI)(R11*1)
	VMULPD Y1, Y12, Y1
	VMOVUPD Y2, 64(DI)(R11*1)
	VMULPD Y2, Y12, Y2
	VMOVUPD Y3, 96(DI)(R11*1)
	VMULPD Y3, Y12, Y3
	VMOVUPD Y4, 128(DI)(R11*1)
	VMULPD Y4, Y12, Y4
	VMOVUPD Y5, 160(DI)(R11*1)
	VMULPD Y5, Y12, Y5
	VMOVUPD Y6, 192(DI)(R11*1)
	VMULPD Y6, Y12, Y6
	VMOVUPD Y7, 224(DI)(R11*1)
	VMULPD Y7, Y12, Y7
	CMPQ first+264(FP), $0
	JEQ accumulate32
	VMULPD 0(SI)(R11*1), Y11, Y9
	VADDPD Y0, Y9, Y9
	VMOVUPD Y9, 0(R15)(R11*1)
	VMULPD 32(SI)(R11*1), Y11, Y9
	VADDPD Y1, Y9, Y9
	VMOVUPD Y9, 32(R15)(R11*1)
	VMULPD 64(SI)(R11*1), Y11, Y9
	VADDPD Y2, Y9, Y9
	VMOVUPD Y9, 64(R15)(R11*1)
	VMULPD 96(SI)(R11*1), Y11, Y9
	VADDPD Y3, Y9, Y9
	VMOVUPD Y9, 96(R15)(R11*1)
	VMULPD 128(SI)(R11*1), Y11, Y9
	VADDPD Y4, Y9, Y9
	VMOVUPD Y9, 128(R15)(R11*1)
	VMULPD 160(SI)(R11*1), Y11, Y9
	VADDPD Y5, Y9, Y9
	VMOVUPD Y9, 160(R15)(R11*1)
	VMULPD 192(SI)(R11*1), Y11, Y9
	VADDPD Y6, Y9, Y9
	VMOVUPD Y9, 192(R15)(R11*1)
	VMULPD 224(SI)(R11*1), Y11, Y9
	VADDPD Y7, Y9, Y9
	VMOVUPD Y9, 224(R15)(R11*1)
	JMP nextgroup32

accumulate32:
	VADDPD 0(R15)(R11*1), Y0, Y9
	VMOVUPD Y9, 0(R15)(R11*1)
	VADDPD 32(R15)(R11*1), Y1, Y9
	VMOVUPD Y9, 32(R15)(R11*1)
	VADDPD 64(R15)(R11*1), Y2, Y9
	VMOVUPD Y9, 64(R15)(R11*1)
	VADDPD 96(R15)(R11*1), Y3, Y9
	VMOVUPD Y9, 96(R15)(R11*1)
	VADDPD 128(R15)(R11*1), Y4, Y9
	VMOVUPD Y9, 128(R15)(R11*1)
	VADDPD 160(R15)(R11*1), Y5, Y9
	VMOVUPD Y9, 160(R15)(R11*1)
	VADDPD 192(R15)(R11*1), Y6, Y9
	VMOVUPD Y9, 192(R15)(R11*1)
	VADDPD 224(R15)(R11*1), Y7, Y9
	VMOVUPD Y9, 224(R15)(R11*1)

nextgroup32:
	ADDQ $256, R13
	JMP group32

nextrow32:
	INCQ CX
	JMP row32

done32:
	VZEROUPPER
	RET

// func rows16AVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)
// rows16AVX2 is rows8AVX2 on groups of 16 columns (4 YMM accumulators,
// groupBytes a multiple of 128): a neighbour's index is read once a group,
// its row is prefetched 16 neighbours ahead, and the 4 sums are
// independent chains (rows8AVX2's two wait on their add's latency). Per
// column the operations and their order are rows8AVX2's: the same bits.
TEXT ·rows16AVX2(SB), NOSPLIT, $0-272
	MOVQ out_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ z_base+48(FP), R12
	MOVQ z_len+56(FP), AX
	TESTQ AX, AX
	JNE hasz16
	XORQ R12, R12

hasz16:
	MOVQ acc_base+72(FP), R15
	MOVQ rowPtr_base+96(FP), BX
	MOVQ col_base+120(FP), R9
	MOVQ w_base+144(FP), R10
	MOVQ w_len+152(FP), AX
	TESTQ AX, AX
	JNE hasw16
	XORQ R10, R10

hasw16:
	MOVQ deg_base+168(FP), R8
	VBROADCASTSD alpha+224(FP), Y13
	VBROADCASTSD beta+232(FP), Y14
	VBROADCASTSD gam+240(FP), Y15
	VBROADCASTSD ck+248(FP), Y12
	VBROADCASTSD c0+256(FP), Y11
	MOVQ lo+192(FP), CX

row16:
	CMPQ CX, hi+200(FP)
	JGE done16
	MOVQ CX, AX
	IMULQ stride+208(FP), AX
	XORQ R13, R13

group16:
	CMPQ R13, groupBytes+216(FP)
	JGE nextrow16
	LEAQ (AX)(R13*1), R11
	VBROADCASTSD (R8)(CX*8), Y8
	VMULPD 0(SI)(R11*1), Y8, Y0
	VMULPD 32(SI)(R11*1), Y8, Y1
	VMULPD 64(SI)(R11*1), Y8, Y2
	VMULPD 96(SI)(R11*1), Y8, Y3
	MOVQ (BX)(CX*8), DX

next16:
	CMPQ DX, 8(BX)(CX*8)
	JGE epilogue16
	LEAQ 16(DX), R14
	CMPQ R14, col_len+128(FP)
	JGE nopf16
	MOVLQSX (R9)(R14*4), R14
	IMULQ stride+208(FP), R14
	ADDQ R13, R14
	PREFETCHT0 0(SI)(R14*1)
	PREFETCHT0 64(SI)(R14*1)

nopf16:
	MOVLQSX (R9)(DX*4), R11
	IMULQ stride+208(FP), R11
	ADDQ R13, R11
	TESTQ R10, R10
	JNE weighted16
	VSUBPD 0(SI)(R11*1), Y0, Y0
	VSUBPD 32(SI)(R11*1), Y1, Y1
	VSUBPD 64(SI)(R11*1), Y2, Y2
	VSUBPD 96(SI)(R11*1), Y3, Y3
	INCQ DX
	JMP next16

weighted16:
	VBROADCASTSD (R10)(DX*8), Y8
	VMULPD 0(SI)(R11*1), Y8, Y9
	VSUBPD Y9, Y0, Y0
	VMULPD 32(SI)(R11*1), Y8, Y10
	VSUBPD Y10, Y1, Y1
	VMULPD 64(SI)(R11*1), Y8, Y9
	VSUBPD Y9, Y2, Y2
	VMULPD 96(SI)(R11*1), Y8, Y10
	VSUBPD Y10, Y3, Y3
	INCQ DX
	JMP next16

epilogue16:
	LEAQ (AX)(R13*1), R11
	VMULPD Y0, Y13, Y0
	VMULPD 0(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y0, Y0
	VMULPD Y1, Y13, Y1
	VMULPD 32(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y1, Y1
	VMULPD Y2, Y13, Y2
	VMULPD 64(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y2, Y2
	VMULPD Y3, Y13, Y3
	VMULPD 96(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y3, Y3
	TESTQ R12, R12
	JEQ store16
	VMULPD 0(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y0, Y0
	VMULPD 32(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y1, Y1
	VMULPD 64(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y2, Y2
	VMULPD 96(R12)(R11*1), Y15, Y9
	VADDPD Y9, Y3, Y3

store16:
	VMOVUPD Y0, 0(DI)(R11*1)
	VMULPD Y0, Y12, Y0
	VMOVUPD Y1, 32(DI)(R11*1)
	VMULPD Y1, Y12, Y1
	VMOVUPD Y2, 64(DI)(R11*1)
	VMULPD Y2, Y12, Y2
	VMOVUPD Y3, 96(DI)(R11*1)
	VMULPD Y3, Y12, Y3
	CMPQ first+264(FP), $0
	JEQ accumulate16
	VMULPD 0(SI)(R11*1), Y11, Y9
	VADDPD Y0, Y9, Y9
	VMOVUPD Y9, 0(R15)(R11*1)
	VMULPD 32(SI)(R11*1), Y11, Y9
	VADDPD Y1, Y9, Y9
	VMOVUPD Y9, 32(R15)(R11*1)
	VMULPD 64(SI)(R11*1), Y11, Y9
	VADDPD Y2, Y9, Y9
	VMOVUPD Y9, 64(R15)(R11*1)
	VMULPD 96(SI)(R11*1), Y11, Y9
	VADDPD Y3, Y9, Y9
	VMOVUPD Y9, 96(R15)(R11*1)
	JMP nextgroup16

accumulate16:
	VADDPD 0(R15)(R11*1), Y0, Y9
	VMOVUPD Y9, 0(R15)(R11*1)
	VADDPD 32(R15)(R11*1), Y1, Y9
	VMOVUPD Y9, 32(R15)(R11*1)
	VADDPD 64(R15)(R11*1), Y2, Y9
	VMOVUPD Y9, 64(R15)(R11*1)
	VADDPD 96(R15)(R11*1), Y3, Y9
	VMOVUPD Y9, 96(R15)(R11*1)

nextgroup16:
	ADDQ $128, R13
	JMP group16

nextrow16:
	INCQ CX
	JMP row16

done16:
	VZEROUPPER
	RET

// func rows16lnAVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)
// rows16lnAVX2 is rows16AVX2 in fewer instructions a neighbour, the
// step's limit when a block stays in cache (about 26 micro-operations a
// neighbour there, 13 here): col must hold 16 entries past the last row
// (prefetchCols; the prefetch reads them unchecked, and a prefetch
// faults on no address), the stride is held in R12, x plus the group's
// offset in R15, the weighted and unweighted loops are apart, and the
// sums read their neighbour's row through a plain base register (an
// indexed address costs a second micro-operation). out, z and acc are
// read from the frame for the epilogue. Per column the operations and
// their order are rows8AVX2's: the same bits.
TEXT ·rows16lnAVX2(SB), NOSPLIT, $0-272
	MOVQ x_base+24(FP), SI
	MOVQ rowPtr_base+96(FP), BX
	MOVQ col_base+120(FP), R9
	MOVQ w_base+144(FP), R10
	MOVQ deg_base+168(FP), R8
	MOVQ stride+208(FP), R12
	VBROADCASTSD alpha+224(FP), Y13
	VBROADCASTSD beta+232(FP), Y14
	VBROADCASTSD gam+240(FP), Y15
	VBROADCASTSD ck+248(FP), Y12
	VBROADCASTSD c0+256(FP), Y11
	MOVQ lo+192(FP), CX

row16ln:
	CMPQ CX, hi+200(FP)
	JGE done16ln
	MOVQ CX, AX
	IMULQ R12, AX
	XORQ R13, R13

group16ln:
	CMPQ R13, groupBytes+216(FP)
	JGE nextrow16ln
	LEAQ (AX)(R13*1), R11
	LEAQ (SI)(R13*1), R15
	VBROADCASTSD (R8)(CX*8), Y8
	VMULPD 0(SI)(R11*1), Y8, Y0
	VMULPD 32(SI)(R11*1), Y8, Y1
	VMULPD 64(SI)(R11*1), Y8, Y2
	VMULPD 96(SI)(R11*1), Y8, Y3
	MOVQ (BX)(CX*8), DX
	MOVQ 8(BX)(CX*8), DI
	CMPQ DX, DI
	JGE epilogue16ln
	CMPQ w_len+152(FP), $0
	JNE weighted16ln

plain16ln:
	MOVLQSX 64(R9)(DX*4), R14
	IMULQ R12, R14
	PREFETCHT0 0(R15)(R14*1)
	PREFETCHT0 64(R15)(R14*1)
	MOVLQSX (R9)(DX*4), R11
	IMULQ R12, R11
	ADDQ R15, R11
	VSUBPD 0(R11), Y0, Y0
	VSUBPD 32(R11), Y1, Y1
	VSUBPD 64(R11), Y2, Y2
	VSUBPD 96(R11), Y3, Y3
	INCQ DX
	CMPQ DX, DI
	JLT plain16ln
	JMP epilogue16ln

weighted16ln:
	MOVLQSX 64(R9)(DX*4), R14
	IMULQ R12, R14
	PREFETCHT0 0(R15)(R14*1)
	PREFETCHT0 64(R15)(R14*1)
	MOVLQSX (R9)(DX*4), R11
	IMULQ R12, R11
	ADDQ R15, R11
	VBROADCASTSD (R10)(DX*8), Y8
	VMULPD 0(R11), Y8, Y9
	VSUBPD Y9, Y0, Y0
	VMULPD 32(R11), Y8, Y10
	VSUBPD Y10, Y1, Y1
	VMULPD 64(R11), Y8, Y9
	VSUBPD Y9, Y2, Y2
	VMULPD 96(R11), Y8, Y10
	VSUBPD Y10, Y3, Y3
	INCQ DX
	CMPQ DX, DI
	JLT weighted16ln
	JMP epilogue16ln

epilogue16ln:
	LEAQ (AX)(R13*1), R11
	VMULPD Y0, Y13, Y0
	VMULPD 0(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y0, Y0
	VMULPD Y1, Y13, Y1
	VMULPD 32(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y1, Y1
	VMULPD Y2, Y13, Y2
	VMULPD 64(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y2, Y2
	VMULPD Y3, Y13, Y3
	VMULPD 96(SI)(R11*1), Y14, Y9
	VADDPD Y9, Y3, Y3
	MOVQ z_base+48(FP), R14
	CMPQ z_len+56(FP), $0
	JEQ store16ln
	VMULPD 0(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y0, Y0
	VMULPD 32(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y1, Y1
	VMULPD 64(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y2, Y2
	VMULPD 96(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y3, Y3

store16ln:
	MOVQ out_base+0(FP), R14
	VMOVUPD Y0, 0(R14)(R11*1)
	VMULPD Y0, Y12, Y0
	VMOVUPD Y1, 32(R14)(R11*1)
	VMULPD Y1, Y12, Y1
	VMOVUPD Y2, 64(R14)(R11*1)
	VMULPD Y2, Y12, Y2
	VMOVUPD Y3, 96(R14)(R11*1)
	VMULPD Y3, Y12, Y3
	MOVQ acc_base+72(FP), R14
	CMPQ first+264(FP), $0
	JEQ accumulate16ln
	VMULPD 0(SI)(R11*1), Y11, Y9
	VADDPD Y0, Y9, Y9
	VMOVUPD Y9, 0(R14)(R11*1)
	VMULPD 32(SI)(R11*1), Y11, Y9
	VADDPD Y1, Y9, Y9
	VMOVUPD Y9, 32(R14)(R11*1)
	VMULPD 64(SI)(R11*1), Y11, Y9
	VADDPD Y2, Y9, Y9
	VMOVUPD Y9, 64(R14)(R11*1)
	VMULPD 96(SI)(R11*1), Y11, Y9
	VADDPD Y3, Y9, Y9
	VMOVUPD Y9, 96(R14)(R11*1)
	JMP nextgroup16ln

accumulate16ln:
	VADDPD 0(R14)(R11*1), Y0, Y9
	VMOVUPD Y9, 0(R14)(R11*1)
	VADDPD 32(R14)(R11*1), Y1, Y9
	VMOVUPD Y9, 32(R14)(R11*1)
	VADDPD 64(R14)(R11*1), Y2, Y9
	VMOVUPD Y9, 64(R14)(R11*1)
	VADDPD 96(R14)(R11*1), Y3, Y9
	VMOVUPD Y9, 96(R14)(R11*1)

nextgroup16ln:
	ADDQ $128, R13
	JMP group16ln

nextrow16ln:
	INCQ CX
	JMP row16ln

done16ln:
	VZEROUPPER
	RET

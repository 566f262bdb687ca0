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

// func rows16lnAVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)
// rows16lnAVX2 is rows8AVX2 on groups of 16 columns (4 YMM sums,
// groupBytes a multiple of 128): a neighbour's index is read once a group
// and its row prefetched 16 neighbours ahead, in few micro-operations a
// neighbour (the step's limit when a block stays in cache: about 13 here,
// 26 in the kernel this one replaced). col must hold 16 entries past the
// last row (prefetchCols; the prefetch reads them unchecked, and a
// prefetch faults on no address), the stride is held in R12, x plus the
// group's offset in R15, the weighted and unweighted loops are apart,
// and the sums read their neighbour's row through a plain base register
// (an indexed address costs a second micro-operation). out, z and acc are
// read from the frame for the epilogue (z_i before out_i is written, so z
// may be out). Per column the operations and their order are rows8AVX2's:
// the same bits.
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

// func rows32lnAVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)
// rows32lnAVX2 is rows16lnAVX2 on groups of 32 columns (8 YMM sums,
// groupBytes a multiple of 256, four lines prefetched a neighbour). Per
// column the operations and their order are rows8AVX2's: the same bits.
TEXT ·rows32lnAVX2(SB), NOSPLIT, $0-272
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

row32ln:
	CMPQ CX, hi+200(FP)
	JGE done32ln
	MOVQ CX, AX
	IMULQ R12, AX
	XORQ R13, R13

group32ln:
	CMPQ R13, groupBytes+216(FP)
	JGE nextrow32ln
	LEAQ (AX)(R13*1), R11
	LEAQ (SI)(R13*1), R15
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
	MOVQ 8(BX)(CX*8), DI
	CMPQ DX, DI
	JGE epilogue32ln
	CMPQ w_len+152(FP), $0
	JNE weighted32ln

plain32ln:
	MOVLQSX 64(R9)(DX*4), R14
	IMULQ R12, R14
	PREFETCHT0 0(R15)(R14*1)
	PREFETCHT0 64(R15)(R14*1)
	PREFETCHT0 128(R15)(R14*1)
	PREFETCHT0 192(R15)(R14*1)
	MOVLQSX (R9)(DX*4), R11
	IMULQ R12, R11
	ADDQ R15, R11
	VSUBPD 0(R11), Y0, Y0
	VSUBPD 32(R11), Y1, Y1
	VSUBPD 64(R11), Y2, Y2
	VSUBPD 96(R11), Y3, Y3
	VSUBPD 128(R11), Y4, Y4
	VSUBPD 160(R11), Y5, Y5
	VSUBPD 192(R11), Y6, Y6
	VSUBPD 224(R11), Y7, Y7
	INCQ DX
	CMPQ DX, DI
	JLT plain32ln
	JMP epilogue32ln

weighted32ln:
	MOVLQSX 64(R9)(DX*4), R14
	IMULQ R12, R14
	PREFETCHT0 0(R15)(R14*1)
	PREFETCHT0 64(R15)(R14*1)
	PREFETCHT0 128(R15)(R14*1)
	PREFETCHT0 192(R15)(R14*1)
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
	VMULPD 128(R11), Y8, Y9
	VSUBPD Y9, Y4, Y4
	VMULPD 160(R11), Y8, Y10
	VSUBPD Y10, Y5, Y5
	VMULPD 192(R11), Y8, Y9
	VSUBPD Y9, Y6, Y6
	VMULPD 224(R11), Y8, Y10
	VSUBPD Y10, Y7, Y7
	INCQ DX
	CMPQ DX, DI
	JLT weighted32ln
	JMP epilogue32ln

epilogue32ln:
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
	MOVQ z_base+48(FP), R14
	CMPQ z_len+56(FP), $0
	JEQ store32ln
	VMULPD 0(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y0, Y0
	VMULPD 32(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y1, Y1
	VMULPD 64(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y2, Y2
	VMULPD 96(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y3, Y3
	VMULPD 128(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y4, Y4
	VMULPD 160(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y5, Y5
	VMULPD 192(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y6, Y6
	VMULPD 224(R14)(R11*1), Y15, Y9
	VADDPD Y9, Y7, Y7

store32ln:
	MOVQ out_base+0(FP), R14
	VMOVUPD Y0, 0(R14)(R11*1)
	VMULPD Y0, Y12, Y0
	VMOVUPD Y1, 32(R14)(R11*1)
	VMULPD Y1, Y12, Y1
	VMOVUPD Y2, 64(R14)(R11*1)
	VMULPD Y2, Y12, Y2
	VMOVUPD Y3, 96(R14)(R11*1)
	VMULPD Y3, Y12, Y3
	VMOVUPD Y4, 128(R14)(R11*1)
	VMULPD Y4, Y12, Y4
	VMOVUPD Y5, 160(R14)(R11*1)
	VMULPD Y5, Y12, Y5
	VMOVUPD Y6, 192(R14)(R11*1)
	VMULPD Y6, Y12, Y6
	VMOVUPD Y7, 224(R14)(R11*1)
	VMULPD Y7, Y12, Y7
	MOVQ acc_base+72(FP), R14
	CMPQ first+264(FP), $0
	JEQ accumulate32ln
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
	VMULPD 128(SI)(R11*1), Y11, Y9
	VADDPD Y4, Y9, Y9
	VMOVUPD Y9, 128(R14)(R11*1)
	VMULPD 160(SI)(R11*1), Y11, Y9
	VADDPD Y5, Y9, Y9
	VMOVUPD Y9, 160(R14)(R11*1)
	VMULPD 192(SI)(R11*1), Y11, Y9
	VADDPD Y6, Y9, Y9
	VMOVUPD Y9, 192(R14)(R11*1)
	VMULPD 224(SI)(R11*1), Y11, Y9
	VADDPD Y7, Y9, Y9
	VMOVUPD Y9, 224(R14)(R11*1)
	JMP nextgroup32ln

accumulate32ln:
	VADDPD 0(R14)(R11*1), Y0, Y9
	VMOVUPD Y9, 0(R14)(R11*1)
	VADDPD 32(R14)(R11*1), Y1, Y9
	VMOVUPD Y9, 32(R14)(R11*1)
	VADDPD 64(R14)(R11*1), Y2, Y9
	VMOVUPD Y9, 64(R14)(R11*1)
	VADDPD 96(R14)(R11*1), Y3, Y9
	VMOVUPD Y9, 96(R14)(R11*1)
	VADDPD 128(R14)(R11*1), Y4, Y9
	VMOVUPD Y9, 128(R14)(R11*1)
	VADDPD 160(R14)(R11*1), Y5, Y9
	VMOVUPD Y9, 160(R14)(R11*1)
	VADDPD 192(R14)(R11*1), Y6, Y9
	VMOVUPD Y9, 192(R14)(R11*1)
	VADDPD 224(R14)(R11*1), Y7, Y9
	VMOVUPD Y9, 224(R14)(R11*1)

nextgroup32ln:
	ADDQ $256, R13
	JMP group32ln

nextrow32ln:
	INCQ CX
	JMP row32ln

done32ln:
	VZEROUPPER
	RET

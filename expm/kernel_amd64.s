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

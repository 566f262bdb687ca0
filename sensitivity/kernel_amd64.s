//go:build !purego

#include "textflag.h"

// The AVX2 kernels of kernel_amd64.go. A row of a block holds 16 columns,
// four YMM registers of four columns each; each macro below does one such
// quarter (byte offset off = 0, 32, 64 or 96 in the row) and is used four
// times. Per column every kernel performs its Go version's operations in
// the same order, each product rounded on its own (no FMA).

// rowsAVX2: acc = d·x_i (d broadcast in Y4) ...
#define DEGREE(off, acc) VMULPD off(SI)(AX*1), Y4, acc
// ... acc −= x_j (unweighted) or acc −= w·x_j (w broadcast in Y4) ...
#define PLAIN(off, acc) VSUBPD off(SI)(R11*1), acc, acc
#define WEIGHTED(off, acc, tmp) VMULPD off(SI)(R11*1), Y4, tmp; VSUBPD tmp, acc, acc
// ... then acc = a·acc + c·x_i (a in Y13, c in Y14) and acc += e·z_i (e in Y15).
#define SCALE(off, acc, tmp) VMULPD acc, Y13, acc; VMULPD off(SI)(AX*1), Y14, tmp; VADDPD tmp, acc, acc
#define ADDZ(off, acc, tmp) VMULPD off(R12)(AX*1), Y15, tmp; VADDPD tmp, acc, acc
#define STORE(off, acc) VMOVUPD acc, off(DI)(AX*1)

// func rowsAVX2(dst, x, z []float64, idx []int32, rowPtr []int64, col []int32, w, deg []float64, lo, hi int, a, c, e float64)
// rowsGo: for t in [lo, hi) and i = idx[t] (t when idx is empty),
// acc = deg[i]·x_i, then acc −= w[p]·x_{col[p]} for p in row i in order
// (no product when w is empty), then dst_i = a·acc + c·x_i (+ e·z_i when z
// is not empty; z_i is read before dst_i is written, so z may be dst).
TEXT ·rowsAVX2(SB), NOSPLIT, $0-232
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ idx_base+72(FP), R8
	MOVQ idx_len+80(FP), R12
	TESTQ R12, R12
	JNE hasidx
	XORQ R8, R8

hasidx:
	MOVQ rowPtr_base+96(FP), BX
	MOVQ col_base+120(FP), R9
	MOVQ w_base+144(FP), R10
	MOVQ w_len+152(FP), R12
	TESTQ R12, R12
	JNE hasw
	XORQ R10, R10

hasw:
	VBROADCASTSD a+208(FP), Y13
	VBROADCASTSD c+216(FP), Y14
	VBROADCASTSD e+224(FP), Y15
	MOVQ lo+192(FP), CX

row:
	CMPQ CX, hi+200(FP)
	JGE done
	MOVQ CX, R13
	TESTQ R8, R8
	JEQ direct
	MOVLQSX (R8)(CX*4), R13

direct:
	MOVQ R13, AX
	SHLQ $7, AX
	MOVQ deg_base+168(FP), R12
	VBROADCASTSD (R12)(R13*8), Y4
	DEGREE(0, Y0)
	DEGREE(32, Y1)
	DEGREE(64, Y2)
	DEGREE(96, Y3)
	MOVQ (BX)(R13*8), DX
	MOVQ 8(BX)(R13*8), R14
	TESTQ R10, R10
	JNE weighted

plain:
	CMPQ DX, R14
	JGE epilogue
	MOVLQSX (R9)(DX*4), R11
	SHLQ $7, R11
	PLAIN(0, Y0)
	PLAIN(32, Y1)
	PLAIN(64, Y2)
	PLAIN(96, Y3)
	INCQ DX
	JMP plain

weighted:
	CMPQ DX, R14
	JGE epilogue
	MOVLQSX (R9)(DX*4), R11
	SHLQ $7, R11
	VBROADCASTSD (R10)(DX*8), Y4
	WEIGHTED(0, Y0, Y5)
	WEIGHTED(32, Y1, Y6)
	WEIGHTED(64, Y2, Y7)
	WEIGHTED(96, Y3, Y8)
	INCQ DX
	JMP weighted

epilogue:
	SCALE(0, Y0, Y5)
	SCALE(32, Y1, Y6)
	SCALE(64, Y2, Y7)
	SCALE(96, Y3, Y8)
	MOVQ z_len+56(FP), R12
	TESTQ R12, R12
	JEQ store
	MOVQ z_base+48(FP), R12
	ADDZ(0, Y0, Y5)
	ADDZ(32, Y1, Y6)
	ADDZ(64, Y2, Y7)
	ADDZ(96, Y3, Y8)

store:
	STORE(0, Y0)
	STORE(32, Y1)
	STORE(64, Y2)
	STORE(96, Y3)
	INCQ CX
	JMP row

done:
	VZEROUPPER
	RET

// dotsAVX2: the three sums α, ‖Lv‖² and Σω_r v_r² (pointers in R8, R9, R10).
#define LOAD3(off, a, wn, es) VMOVUPD off(R8), a; VMOVUPD off(R9), wn; VMOVUPD off(R10), es
#define STORE3(off, a, wn, es) VMOVUPD a, off(R8); VMOVUPD wn, off(R9); VMOVUPD es, off(R10)
// a += x·w, wn += w·w, es += (o·x)·x, with w, x the row's quarter and o in Y15.
#define DOTS(off, a, wn, es) VMOVUPD off(DI), Y12; VMOVUPD off(SI), Y13; VMULPD Y12, Y13, Y14; VADDPD Y14, a, a; VMULPD Y12, Y12, Y14; VADDPD Y14, wn, wn; VMULPD Y13, Y15, Y14; VMULPD Y13, Y14, Y14; VADDPD Y14, es, es

// func dotsAVX2(w, x, om []float64, a, wn, es *[16]float64)
// dotsGo: per row r < len(om) and column t, a[t] += x·w, wn[t] += w·w,
// es[t] += (om[r]·x)·x with x, w the row's entries.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-96
	MOVQ w_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ om_base+48(FP), BX
	MOVQ om_len+56(FP), CX
	MOVQ a+72(FP), R8
	MOVQ wn+80(FP), R9
	MOVQ es+88(FP), R10
	LOAD3(0, Y0, Y4, Y8)
	LOAD3(32, Y1, Y5, Y9)
	LOAD3(64, Y2, Y6, Y10)
	LOAD3(96, Y3, Y7, Y11)
	XORQ DX, DX

dloop:
	CMPQ DX, CX
	JGE ddone
	VBROADCASTSD (BX)(DX*8), Y15
	DOTS(0, Y0, Y4, Y8)
	DOTS(32, Y1, Y5, Y9)
	DOTS(64, Y2, Y6, Y10)
	DOTS(96, Y3, Y7, Y11)
	ADDQ $128, DI
	ADDQ $128, SI
	INCQ DX
	JMP dloop

ddone:
	STORE3(0, Y0, Y4, Y8)
	STORE3(32, Y1, Y5, Y9)
	STORE3(64, Y2, Y6, Y10)
	STORE3(96, Y3, Y7, Y11)
	VZEROUPPER
	RET

// axpy2AVX2: w = (w − a·x) − bp·p and bb += w·w (a, bp, bb in registers).
#define LOADSTEP(off, a, bp, bb) VMOVUPD off(R8), a; VMOVUPD off(R9), bp; VMOVUPD off(R10), bb
#define AXPY2(off, a, bp, bb) VMULPD off(SI), a, Y12; VMOVUPD off(DI), Y13; VSUBPD Y12, Y13, Y13; VMULPD off(BX), bp, Y12; VSUBPD Y12, Y13, Y13; VMOVUPD Y13, off(DI); VMULPD Y13, Y13, Y12; VADDPD Y12, bb, bb

// func axpy2AVX2(w, x, p []float64, a, bp, bb *[16]float64)
// axpy2Go: per row of w (len(w)/16 rows) and column t,
// w = (w − a[t]·x) − bp[t]·p and bb[t] += w·w.
TEXT ·axpy2AVX2(SB), NOSPLIT, $0-96
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	MOVQ p_base+48(FP), BX
	MOVQ a+72(FP), R8
	MOVQ bp+80(FP), R9
	MOVQ bb+88(FP), R10
	SHRQ $4, CX
	LOADSTEP(0, Y0, Y4, Y8)
	LOADSTEP(32, Y1, Y5, Y9)
	LOADSTEP(64, Y2, Y6, Y10)
	LOADSTEP(96, Y3, Y7, Y11)

aloop:
	TESTQ CX, CX
	JEQ adone
	AXPY2(0, Y0, Y4, Y8)
	AXPY2(32, Y1, Y5, Y9)
	AXPY2(64, Y2, Y6, Y10)
	AXPY2(96, Y3, Y7, Y11)
	ADDQ $128, DI
	ADDQ $128, SI
	ADDQ $128, BX
	DECQ CX
	JMP aloop

adone:
	VMOVUPD Y8, 0(R10)
	VMOVUPD Y9, 32(R10)
	VMOVUPD Y10, 64(R10)
	VMOVUPD Y11, 96(R10)
	VZEROUPPER
	RET

// scaleShiftAVX2: y = w·inv, p = x, x = y and vn += y·y (inv, vn in registers).
#define LOAD2(off, inv, vn) VMOVUPD off(R8), inv; VMOVUPD off(R9), vn
#define SHIFT(off, inv, vn) VMULPD off(DI), inv, Y12; VMOVUPD off(SI), Y13; VMOVUPD Y13, off(BX); VMOVUPD Y12, off(SI); VMULPD Y12, Y12, Y13; VADDPD Y13, vn, vn

// func scaleShiftAVX2(w, x, p []float64, inv, vn *[16]float64)
// scaleShiftGo: per row of w and column t, y = w·inv[t], p = x, x = y and
// vn[t] += y·y.
TEXT ·scaleShiftAVX2(SB), NOSPLIT, $0-88
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	MOVQ p_base+48(FP), BX
	MOVQ inv+72(FP), R8
	MOVQ vn+80(FP), R9
	SHRQ $4, CX
	LOAD2(0, Y0, Y4)
	LOAD2(32, Y1, Y5)
	LOAD2(64, Y2, Y6)
	LOAD2(96, Y3, Y7)

sloop:
	TESTQ CX, CX
	JEQ sdone
	SHIFT(0, Y0, Y4)
	SHIFT(32, Y1, Y5)
	SHIFT(64, Y2, Y6)
	SHIFT(96, Y3, Y7)
	ADDQ $128, DI
	ADDQ $128, SI
	ADDQ $128, BX
	DECQ CX
	JMP sloop

sdone:
	VMOVUPD Y4, 0(R9)
	VMOVUPD Y5, 32(R9)
	VMOVUPD Y6, 64(R9)
	VMOVUPD Y7, 96(R9)
	VZEROUPPER
	RET

// The 16 column values at R8 in Y0–Y3, and back.
#define LOADS VMOVUPD 0(R8), Y0; VMOVUPD 32(R8), Y1; VMOVUPD 64(R8), Y2; VMOVUPD 96(R8), Y3
#define STORES VMOVUPD Y0, 0(R8); VMOVUPD Y1, 32(R8); VMOVUPD Y2, 64(R8); VMOVUPD Y3, 96(R8)

// func colSumsAVX2(t []float64, s *[16]float64)
// colSumsGo: per row of t (len(t)/16 rows) in order and column k, s[k] += t.
TEXT ·colSumsAVX2(SB), NOSPLIT, $0-32
	MOVQ t_base+0(FP), DI
	MOVQ t_len+8(FP), CX
	MOVQ s+24(FP), R8
	SHRQ $4, CX
	LOADS

csloop:
	TESTQ CX, CX
	JEQ csdone
	VADDPD 0(DI), Y0, Y0
	VADDPD 32(DI), Y1, Y1
	VADDPD 64(DI), Y2, Y2
	VADDPD 96(DI), Y3, Y3
	ADDQ $128, DI
	DECQ CX
	JMP csloop

csdone:
	STORES
	VZEROUPPER
	RET

// centerAccAVX2: v = t − s, t = v, acc += ck·v (s in Y0–Y3, ck in Y15).
#define CENTER(off, s) VMOVUPD off(DI), Y12; VSUBPD s, Y12, Y12; VMOVUPD Y12, off(DI); VMULPD Y12, Y15, Y12; VADDPD off(SI), Y12, Y12; VMOVUPD Y12, off(SI)

// func centerAccAVX2(t, acc []float64, s *[16]float64, ck float64)
// centerAccGo: per row of t (len(t)/16 rows) and column k, v = t − s[k],
// t = v and acc += ck·v.
TEXT ·centerAccAVX2(SB), NOSPLIT, $0-64
	MOVQ t_base+0(FP), DI
	MOVQ t_len+8(FP), CX
	MOVQ acc_base+24(FP), SI
	MOVQ s+48(FP), R8
	VBROADCASTSD ck+56(FP), Y15
	SHRQ $4, CX
	LOADS

caloop:
	TESTQ CX, CX
	JEQ cadone
	CENTER(0, Y0)
	CENTER(32, Y1)
	CENTER(64, Y2)
	CENTER(96, Y3)
	ADDQ $128, DI
	ADDQ $128, SI
	DECQ CX
	JMP caloop

cadone:
	VZEROUPPER
	RET

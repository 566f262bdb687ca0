#!/usr/bin/awk -f
# Turns answer.TestFaultOutputOracle's ROW lines into docs/guarantee.md's
# table: one row per imperfection (its sensors pooled), ε = 1 and 4 side
# by side. Per ε: violations of P_s(o) ≤ e^ε·P_t(o) + δ over the (edge,
# output) tests, the largest ln(P_s/P_t) the Clopper–Pearson bounds prove,
# the largest exact coupled loss between the two centres of an edge, the
# accuracy, and the one-hop allowance's largest coupled loss on the same
# centres with the number of faults that took it beyond ε.
/graph n=/ { sub(/.*graph /, ""); print "<!-- " $0 " -->" }
/ROW eps=/ {
	split($0, halves, "|")
	e = field(halves[1], "eps"); f = field(halves[1], "fault"); sub(/@.*/, "", f)
	if (!(f in n)) order[++m] = f
	k = f SUBSEP e
	n[f] += (e == 1); draws[f] = field(halves[1], "draws")
	tests[k] += field(halves[1], "tests"); bad[k] += field(halves[1], "violations")
	big(proven, k, field(halves[1], "proven")); big(L, k, field(halves[1], "L"))
	a = field(halves[1], "acc"); if (!(k in lo) || a + 0 < lo[k]) lo[k] = a + 0; big(hi, k, a)
	big(oL, k, field(halves[2], "L")); if (field(halves[2], "beyond") + 0 > 0) ob[k]++
}
/^(ok|FAIL|--- )|User time|Elapsed/ { tail = tail $0 "; " }
function field(s, name,   r) {
	if (!match(s, name "=[^ ]+")) return ""
	r = substr(s, RSTART + length(name) + 1, RLENGTH - length(name) - 1); return r
}
function big(arr, k, v) { if (!(k in arr) || v + 0 > arr[k]) arr[k] = v + 0 }
function acc(k) { return lo[k] == hi[k] ? sprintf("%.3f", lo[k]) : sprintf("%.3f–%.3f", lo[k], hi[k]) }
END {
	print "| imperfection | faults | draws a source | ε = 1: violations / tests | proven ln ratio | coupled L | accuracy | one-hop L (faults beyond ε) | ε = 4: violations / tests | proven ln ratio | coupled L | accuracy | one-hop L (faults beyond ε) |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= m; i++) {
		f = order[i]; line = sprintf("| %s | %d | %s ", f, n[f], draws[f])
		for (e = 1; e <= 4; e += 3) {
			k = f SUBSEP e
			line = line sprintf("| %d / %d | %.3f | %.3f | %s | %.3f (%d) ", bad[k], tests[k], proven[k], L[k], acc(k), oL[k], ob[k])
		}
		print line "|"
	}
	print "<!-- " tail "-->"
}

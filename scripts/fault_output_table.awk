#!/usr/bin/awk -f
# Turns answer.TestFaultOutputOracle's ROW lines into docs/guarantee.md's
# table: one row per ε and imperfection (its sensors pooled).
/graph n=/ { sub(/.*graph /, ""); print "<!-- " $0 " -->" }
/ROW eps=/ {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[2] != "") v[kv[1]] = kv[2] }
	# the first L= and acc= are the default's, the ones after "|" the one-hop allowance's
	split($0, halves, "|")
	match(halves[1], /L=[0-9.]+/); L = substr(halves[1], RSTART + 2, RLENGTH - 2)
	match(halves[1], /acc=[0-9.]+/); acc = substr(halves[1], RSTART + 4, RLENGTH - 4)
	match(halves[2], /L=[0-9.]+/); oL = substr(halves[2], RSTART + 2, RLENGTH - 2)
	match(halves[2], /beyond=[0-9]+/); ob = substr(halves[2], RSTART + 7, RLENGTH - 7)
	f = v["fault"]; sub(/@.*/, "", f); k = v["eps"] SUBSEP f
	if (!(k in n)) { order[++m] = k; lo[k] = 1; hi[k] = 0 }
	n[k]++; tests[k] += v["tests"]; bad[k] += v["violations"]; draws[k] = v["draws"]
	if (v["proven"] + 0 > proven[k]) proven[k] = v["proven"] + 0
	if (L + 0 > maxL[k]) maxL[k] = L + 0
	if (acc + 0 < lo[k]) lo[k] = acc + 0
	if (acc + 0 > hi[k]) hi[k] = acc + 0
	if (oL + 0 > maxOL[k]) maxOL[k] = oL + 0
	if (ob + 0 > 0) obad[k]++
	if (ob + 0 > maxOB[k]) maxOB[k] = ob + 0
}
/--- (PASS|FAIL)|^(ok|FAIL)/ { tail = tail $0 " " }
/Maximum resident|User time|Elapsed/ { tail = tail $0 " " }
END {
	print "| ε | imperfection | faults (sensors) | draws a source | (edge, output) tests | violations | largest proven ln(P_s/P_t) | largest coupled L | accuracy | one-hop allowance: largest L, faults (draws) beyond ε |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= m; i++) {
		k = order[i]; split(k, p, SUBSEP)
		printf "| %s | %s | %d | %s | %d | %d | %.3f | %.3f | %.3f–%.3f | %.3f, %d (≤ %d) |\n", p[1], p[2], n[k], draws[k], tests[k], bad[k], proven[k], maxL[k], lo[k], hi[k], maxOL[k], obad[k], maxOB[k]
	}
	print "<!-- " tail " -->"
}

package community

import "math"

// NMI returns the normalised mutual information between two partitions of
// the same nodes,
//
//	NMI(a, b) = 2 I(a; b) / (H(a) + H(b)),
//
// (Danon, Díaz-Guilera, Duch & Arenas, J. Stat. Mech. 2005, P09008). It is
// 1 exactly when the partitions agree up to relabelling, and 1 by convention
// when both are a single community. Labels may be any ints.
//
// NMI panics if the lengths differ or are zero.
func NMI(a, b []int) float64 {
	if len(a) != len(b) || len(a) == 0 {
		panic("community: NMI needs two non-empty partitions of equal length")
	}
	n := float64(len(a))
	ca, cb := map[int]float64{}, map[int]float64{}
	joint := map[[2]int]float64{}
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		joint[[2]int{a[i], b[i]}]++
	}
	h := func(c map[int]float64) float64 {
		s := 0.0
		for _, x := range c {
			p := x / n
			s -= p * math.Log(p)
		}
		return s
	}
	ha, hb := h(ca), h(cb)
	if ha+hb == 0 {
		return 1
	}
	mi := 0.0
	for k, x := range joint {
		p := x / n
		mi += p * math.Log(p/((ca[k[0]]/n)*(cb[k[1]]/n)))
	}
	return 2 * mi / (ha + hb)
}

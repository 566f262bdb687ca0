package inputfiles

// NodeCount is how many distinct node keys the edge list names: the nodes
// a load writes (its estimate's count).
func (f *LoadFiles) NodeCount() int {
	nodes := map[string]bool{}
	for _, e := range f.Edges {
		nodes[e.Source], nodes[e.Target] = true, true
	}
	return len(nodes) + len(f.Isolated)
}

package laplacian

import "strconv"

// karateEdges is Zachary's karate club friendship network in Zachary's own
// 1-based numbering: 78 unweighted edges among 34 members. It is the edge
// list of networkx's karate_club_graph (networkx 3.6.1), with the weights
// (interaction counts) dropped.
var karateEdges = [78][2]int32{
	{1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {1, 7}, {1, 8}, {1, 9}, {1, 11}, {1, 12},
	{1, 13}, {1, 14}, {1, 18}, {1, 20}, {1, 22}, {1, 32}, {2, 3}, {2, 4}, {2, 8}, {2, 14},
	{2, 18}, {2, 20}, {2, 22}, {2, 31}, {3, 4}, {3, 8}, {3, 9}, {3, 10}, {3, 14}, {3, 28},
	{3, 29}, {3, 33}, {4, 8}, {4, 13}, {4, 14}, {5, 7}, {5, 11}, {6, 7}, {6, 11}, {6, 17},
	{7, 17}, {9, 31}, {9, 33}, {9, 34}, {10, 34}, {14, 34}, {15, 33}, {15, 34}, {16, 33}, {16, 34},
	{19, 33}, {19, 34}, {20, 34}, {21, 33}, {21, 34}, {23, 33}, {23, 34}, {24, 26}, {24, 28}, {24, 30},
	{24, 33}, {24, 34}, {25, 26}, {25, 28}, {25, 32}, {26, 32}, {27, 30}, {27, 34}, {28, 34}, {29, 32},
	{29, 34}, {30, 33}, {30, 34}, {31, 33}, {31, 34}, {32, 33}, {32, 34}, {33, 34},
}

// karateOfficer lists the members (1-based) who joined the Officer's
// club after the split; everyone else joined Mr. Hi's.
var karateOfficer = []int{10, 15, 16, 19, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34}

// Karate returns Zachary's karate club network — 34 members, 78 edges,
// unit weights — with keys "1".."34" in Zachary's numbering (key "k" is
// index k−1), and the faction of each node: 0 for the club of Mr. Hi
// (the instructor, member 1), 1 for the club of the Officer (the
// president, member 34). The factions are the clubs the members joined
// after the fission, 17 and 17, as recorded in networkx's `club` node
// attribute.
//
// Source: W. W. Zachary, "An information flow model for conflict and
// fission in small groups", J. Anthropol. Res. 33(4):452–473, 1977; edge
// list as in networkx's karate_club_graph.
func Karate() (*Graph, []int) {
	keys := make([]string, 34)
	for i := range keys {
		keys[i] = strconv.Itoa(i + 1)
	}
	edges := make([]Edge, len(karateEdges))
	for k, e := range karateEdges {
		edges[k] = Edge{e[0] - 1, e[1] - 1, 1}
	}
	g, err := FromEdges(34, keys, edges, Options{Duplicates: DuplicatesReject})
	if err != nil {
		panic("laplacian: karate edge list invalid: " + err.Error())
	}
	faction := make([]int, 34)
	for _, m := range karateOfficer {
		faction[m-1] = 1
	}
	return g, faction
}

package sensitivity

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Sharded Δ2 (docs/sharding.md). The sparse schemes are a maximum over
// edges (edge classes for Lanczos), refined one by one against the best
// proven lower bound; the work divides by edges. GraphShard i of N runs
// the scheme Graph would run on the whole graph, with three changes:
//
//   - every shard computes every edge's cheap bound and runs the shared
//     start of the scheme — the Lanczos seeds, the column scheme's
//     candidate pass and pilot blocks — identically, so that each begins
//     its own refinement with the lower bound a single run has there;
//   - from then on it refines only its own edges: Lanczos class c
//     belongs to shard c mod N, a column scheme's edge to the shard of
//     its lower end's chunk of nodes (markEdges);
//     other shards' edges whose columns it computes anyway still raise its
//     lower bound, never its maximum;
//   - it reports a proven upper bound on the maximum over its own edges
//     and a proven lower bound on Δ2 of the whole graph.
//
// MergePartials takes the largest upper bound (its edge is the
// maximiser), the largest lower bound, and calls the result exact under
// the rule Graph applies (every shard complete, relative slack at most
// ExactRelativeSlack). Every edge's term is computed by the same
// arithmetic in a shard as in the single run, so where the single run is
// exact the merged Δ2 is the same float64. The methods that are not a
// maximum over independent edges (dense, panels, slow modes) are not
// divided: shard 0 computes the whole result and the others are empty.

// shardSpec is Options.shard: this process's share, index of count
// (count 0: not sharded).
type shardSpec struct{ index, count int }

// share says how a Result relates to a sharded computation.
type share int

const (
	shareNone    share = iota // not sharded
	shareDivided              // a shard of a sparse scheme: its own edges
	shareWhole                // a method that is not divided: shard 0 holds the whole result
	shareEmpty                // a method that is not divided: another shard holds it
)

func (s shardSpec) sharded() bool { return s.count > 0 }

// idle: a method that is not divided runs on shard 0 only.
func (s shardSpec) idle() bool { return s.count > 0 && s.index != 0 }

func (s shardSpec) whole() share {
	if s.count > 0 {
		return shareWhole
	}
	return shareNone
}

func (s shardSpec) divided() share {
	if s.count > 0 {
		return shareDivided
	}
	return shareNone
}

// owns reports whether edge (or class) k is this shard's.
func (s shardSpec) owns(k int) bool { return s.count <= 1 || k%s.count == s.index }

// markClasses marks the classes of other shards, in edgeClasses' order.
func (s shardSpec) markClasses(cl []edgeClass) {
	if s.count <= 1 {
		return
	}
	for c := range cl {
		cl[c].foreign = !s.owns(c)
	}
}

// ownClasses is order without the classes of other shards.
func (s shardSpec) ownClasses(cl []edgeClass, order []int) []int {
	if s.count <= 1 {
		return order
	}
	var own []int
	for _, c := range order {
		if !cl[c].foreign {
			own = append(own, c)
		}
	}
	return own
}

// markEdges returns the foreign flags of the column scheme's edges (nil
// when not divided), which need the columns of both ends: an edge (i, j),
// i < j, belongs to the shard of i's chunk of consecutive nodes, chunks
// dealt round-robin (8 per shard, at least 64 nodes each). In the local
// (Cuthill–McKee) order a chunk's neighbours are mostly in it or the next,
// so a shard computes about its share of the columns; edges dealt one by
// one would have every shard compute nearly every candidate's columns
// (measured: 3.2× the single run's CPU over 4 shards on a 5 000-node SBM).
func (s shardSpec) markEdges(n int, edges []sparseEdge) []bool {
	if s.count <= 1 {
		return nil
	}
	chunk := max(4*columnBlock, (n+8*s.count-1)/(8*s.count))
	f := make([]bool, len(edges))
	for e, ed := range edges {
		f[e] = !s.owns(int(min(ed.i, ed.j)) / chunk)
	}
	return f
}

func shardEmpty(base Result) Result {
	base.share = shareEmpty
	base.Method = "shard-empty"
	base.Kappa2 = math.NaN()
	return base
}

// ParseShard parses "i/N" (0 ≤ i < N).
func ParseShard(s string) (index, count int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		_, err = fmt.Sscanf(a+" "+b, "%d %d", &index, &count)
	}
	if !ok || err != nil || fmt.Sprintf("%d/%d", index, count) != s {
		return 0, 0, fmt.Errorf("sensitivity: shard %q is not i/N", s)
	}
	if count < 1 || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("sensitivity: shard %q: need 0 ≤ i < N", s)
	}
	return index, count, nil
}

// Partial is one shard's share of a Δ2 computation (GraphShard).
type Partial struct {
	Index, Count int
	// Scheme is how the work was divided: "columns" or "lanczos" (by
	// edges), "whole" (a method that is not divided: shard 0 computed it).
	Scheme string
	Empty  bool // Scheme whole: another shard holds the result
	// Delta2 is a proven upper bound on α·max ‖exp(−τL)(e_i − e_j)‖ over
	// this shard's edges (whole: the result's Δ2); Edge its edge (−1 when
	// the shard owns none).
	Delta2 float64
	Edge   [2]int
	// Lower is a proven lower bound on Δ2 of the whole graph.
	Lower float64
	// Complete: every edge of the shard settled (no time budget hit).
	Complete bool
	// Exact, Slack: the whole result's (Scheme whole); unused otherwise.
	Exact                    bool
	Slack                    float64
	Method                   string
	Alpha                    float64
	Nodes, Edges, Components int
}

// GraphShard computes shard index of count of Graph(g, tau, alpha, opt):
// alone it certifies nothing about Δ2; MergePartials of all count shards
// (as certificates) is the certificate Graph's result would give.
func GraphShard(g *laplacian.Graph, tau, alpha float64, opt Options, index, count int) (Partial, error) {
	if count < 1 || index < 0 || index >= count {
		return Partial{}, fmt.Errorf("sensitivity: shard %d/%d: need 0 ≤ i < N", index, count)
	}
	opt.shard = shardSpec{index: index, count: count}
	s, err := Graph(g, tau, alpha, opt)
	if err != nil {
		return Partial{}, err
	}
	p := Partial{Index: index, Count: count, Delta2: s.Delta2, Edge: s.Edge, Method: s.Method, Alpha: s.Alpha,
		Nodes: s.Nodes, Edges: s.Edges, Components: s.Components}
	switch s.share {
	case shareDivided:
		p.Scheme = "columns"
		if s.Method == "lanczos-edges" {
			p.Scheme = "lanczos"
		}
		p.Lower, p.Complete = s.lower, s.complete
	case shareWhole:
		p.Scheme, p.Exact, p.Slack, p.Complete = "whole", s.Exact, s.Slack, true
		p.Lower = math.Max(0, s.Delta2-s.Slack)
	case shareEmpty:
		p.Scheme, p.Empty, p.Complete, p.Edge = "whole", true, true, [2]int{-1, -1}
	default:
		return Partial{}, errors.New("sensitivity: internal error: the computation did not say how it was sharded")
	}
	return p, nil
}

// PartialKind names the file format of a partial certificate.
const PartialKind = "graphcloak.sensitivity-partial-certificate"

// PartialCertificate is a Partial as stored (SavePartialCertificate, one shard i of N): what MergePartials needs and what it checks, on the graph's
// fingerprint, τ, α and software version, like a Certificate. It is not
// a certificate: release refuses it (its kind differs).
type PartialCertificate struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schemaVersion"`
	Shard         int    `json:"shard"`
	Shards        int    `json:"shards"`
	Scheme        string `json:"scheme"`
	Empty         bool   `json:"empty,omitempty"`
	// Delta2 bounds this shard's edges only (Scheme whole: the result).
	Delta2     float64               `json:"delta2"`
	Lower      float64               `json:"lower"`
	Complete   bool                  `json:"complete"`
	Exact      bool                  `json:"exact"`
	Slack      float64               `json:"slack"`
	Tau        float64               `json:"tau"`
	Alpha      float64               `json:"alpha"`
	Method     string                `json:"method"`
	Edge       [2]string             `json:"edge"`
	Components int                   `json:"components"`
	Graph      laplacian.Fingerprint `json:"graph"`
	// KeyOrder is the graph's fingerprint in key order, which the merged
	// certificate names (as a single run's does); Graph, the order the
	// shard ran in, must agree across parts (they split edges by index).
	KeyOrder laplacian.Fingerprint `json:"graphKeyOrder"`
	Software string                `json:"software"`
	Created  time.Time             `json:"created"`
	MAC      string                `json:"mac,omitempty"`
}

// NewPartialCertificate records shard p, computed on g at τ.
func NewPartialCertificate(g *laplacian.Graph, p Partial, tau float64, software string) (PartialCertificate, error) {
	sorted, _, err := laplacian.SortedByKey(g)
	if err != nil {
		return PartialCertificate{}, err
	}
	c := PartialCertificate{KeyOrder: sorted.Fingerprint(), Kind: PartialKind, SchemaVersion: CertificateSchemaVersion, Shard: p.Index, Shards: p.Count,
		Scheme: p.Scheme, Empty: p.Empty, Delta2: p.Delta2, Lower: p.Lower, Complete: p.Complete, Exact: p.Exact,
		Slack: p.Slack, Tau: tau, Alpha: p.Alpha, Method: p.Method, Components: p.Components, Graph: g.Fingerprint(),
		Software: software, Created: time.Now().UTC().Truncate(time.Second)}
	if p.Edge[0] >= 0 {
		c.Edge = [2]string{g.Key(p.Edge[0]), g.Key(p.Edge[1])}
	}
	return c, c.validate()
}

func (c PartialCertificate) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("sensitivity: invalid partial certificate: "+format, a...)
	}
	finite := func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }
	switch {
	case c.Kind != PartialKind:
		return bad("kind %q, want %q", c.Kind, PartialKind)
	case c.SchemaVersion != CertificateSchemaVersion:
		return bad("schemaVersion %d, want %d", c.SchemaVersion, CertificateSchemaVersion)
	case c.Shards < 1 || c.Shard < 0 || c.Shard >= c.Shards:
		return bad("shard %d/%d: need 0 ≤ i < N", c.Shard, c.Shards)
	case c.Scheme != "columns" && c.Scheme != "lanczos" && c.Scheme != "whole":
		return bad("scheme %q, want columns, lanczos or whole", c.Scheme)
	case c.Empty && c.Scheme != "whole":
		return bad("only a shard of a method that is not divided may be empty")
	case !finite(c.Delta2) || !finite(c.Lower) || !finite(c.Slack):
		return bad("delta2 %v, lower %v and slack %v must be finite numbers ≥ 0", c.Delta2, c.Lower, c.Slack)
	case !(c.Tau > 0) || math.IsInf(c.Tau, 0):
		return bad("tau %v is not finite and > 0", c.Tau)
	case !(c.Alpha > 0) || math.IsInf(c.Alpha, 0):
		return bad("alpha %v is not finite and > 0", c.Alpha)
	case c.Graph.Nodes <= 0 || c.Graph.Edges < 0:
		return bad("graph has %d nodes and %d edges", c.Graph.Nodes, c.Graph.Edges)
	case c.KeyOrder.Nodes != c.Graph.Nodes || c.KeyOrder.Edges != c.Graph.Edges:
		return bad("graphKeyOrder has %d nodes and %d edges, the graph %d and %d", c.KeyOrder.Nodes, c.KeyOrder.Edges, c.Graph.Nodes, c.Graph.Edges)
	case c.Method == "":
		return bad("method is empty")
	}
	for _, f := range []laplacian.Fingerprint{c.Graph, c.KeyOrder} {
		if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != 32 {
			return bad("graph sha256 %q is not 64 hex digits", f.SHA256)
		}
	}
	return nil
}

// Seal sets the partial certificate's MAC under the certificate key K_cert
// (nil: removes it), as Certificate.Seal: HMAC-SHA256 of its JSON without
// the mac. Its kind differs from a certificate's, so neither MAC verifies
// as the other.
func (c *PartialCertificate) Seal(key []byte) error {
	c.MAC = ""
	if key == nil {
		return nil
	}
	mac, err := partialMAC(*c, key)
	c.MAC = mac
	return err
}

func partialMAC(c PartialCertificate, key []byte) (string, error) {
	c.MAC = ""
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil)), nil
}

// CheckMAC verifies the MAC under K_cert (nil key: nothing to verify).
func (c PartialCertificate) CheckMAC(key []byte) error {
	if key == nil {
		return nil
	}
	if c.MAC == "" {
		return &CertificateMACError{Missing: true}
	}
	want, err := partialMAC(c, key)
	if err != nil {
		return fmt.Errorf("sensitivity: partial certificate MAC: %w", err)
	}
	if !hmac.Equal([]byte(want), []byte(c.MAC)) {
		return &CertificateMACError{}
	}
	return nil
}

// SavePartialCertificate writes c as indented JSON, atomically.
func SavePartialCertificate(path string, c PartialCertificate) error {
	if err := c.validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'))
}

// writeAtomic writes data to path whole (atomicfile.Write).
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("sensitivity: save: %w", err)
	}
	return nil
}

// LoadPartialCertificate reads and validates a partial certificate
// (unknown fields and trailing data are errors).
func LoadPartialCertificate(path string) (PartialCertificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return PartialCertificate{}, fmt.Errorf("sensitivity: load partial certificate: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c PartialCertificate
	if err := dec.Decode(&c); err != nil {
		return PartialCertificate{}, fmt.Errorf("sensitivity: load partial certificate %s: %w", path, err)
	}
	if dec.More() {
		return PartialCertificate{}, fmt.Errorf("sensitivity: load partial certificate %s: data after the JSON object", path)
	}
	if err := c.validate(); err != nil {
		return PartialCertificate{}, fmt.Errorf("%w (%s)", err, path)
	}
	return c, nil
}

// MergeError is a set of partial certificates that is not one complete
// computation: a shard missing, duplicated, or foreign (another graph, τ,
// α, software version, shard count or scheme).
type MergeError struct {
	Reason string
	// reason is Reason naming parameters, when it does.
	reason errkind.Renderer
}

func (e *MergeError) Error() string { return e.RenderText(nil) }

// RenderText is its text naming parameters as name does.
func (e *MergeError) RenderText(name func(errkind.Param) string) string {
	reason := e.Reason
	if e.reason != nil && name != nil {
		reason = e.reason.RenderText(name)
	}
	return "sensitivity: merge: " + reason
}

func (*MergeError) Kind() errkind.Kind { return errkind.BadInput }

// MergePartials checks that parts (names: their files, for messages) are
// every shard of one computation exactly once — one graph fingerprint, τ,
// α, software version, shard count and scheme, each verified under key
// (K_cert; nil: unkeyed) — and returns the certificate the single run
// would have written. Its Created is the latest shard's (so a merge of the
// same files is the same bytes); its MAC is unset (Seal it).
func MergePartials(parts []PartialCertificate, names []string, key []byte) (Certificate, error) {
	if len(parts) == 0 {
		return Certificate{}, &MergeError{Reason: "no partial certificates"}
	}
	name := func(k int) string {
		if k < len(names) {
			return names[k]
		}
		return fmt.Sprintf("part %d", k+1)
	}
	for k, p := range parts {
		if err := p.validate(); err != nil {
			return Certificate{}, fmt.Errorf("%w (%s)", err, name(k))
		}
		if err := p.CheckMAC(key); err != nil {
			return Certificate{}, fmt.Errorf("%s: %w", name(k), err)
		}
	}
	ref := parts[0]
	for k, p := range parts[1:] {
		k++
		diff := func(field string, a, b any) error {
			return &MergeError{Reason: fmt.Sprintf("%s is foreign: its %s is %v, %s's is %v", name(k), field, b, name(0), a)}
		}
		switch {
		case p.Graph != ref.Graph || p.KeyOrder != ref.KeyOrder:
			return Certificate{}, diff("graph", ref.Graph.String(), p.Graph.String()+" ("+p.Graph.Diff(ref.Graph)+")")
		case p.Tau != ref.Tau:
			return Certificate{}, diff("tau", ref.Tau, p.Tau)
		case p.Alpha != ref.Alpha:
			return Certificate{}, diff("alpha", ref.Alpha, p.Alpha)
		case p.Software != ref.Software:
			return Certificate{}, diff("software version", ref.Software, p.Software)
		case p.Shards != ref.Shards:
			return Certificate{}, diff("shard count N", ref.Shards, p.Shards)
		case p.Scheme != ref.Scheme:
			r := errkind.Errorf("%s ran the %s scheme, %s the %s scheme: the shards chose different methods (give the %s explicitly to every shard)",
				name(k), p.Scheme, name(0), ref.Scheme, ParamMethod).(errkind.Renderer)
			return Certificate{}, &MergeError{Reason: r.Error(), reason: r}
		}
	}
	byIndex := make(map[int]int)
	for k, p := range parts {
		if first, ok := byIndex[p.Shard]; ok {
			return Certificate{}, &MergeError{Reason: fmt.Sprintf("shard %d/%d is given twice (%s and %s)", p.Shard, p.Shards, name(first), name(k))}
		}
		byIndex[p.Shard] = k
	}
	var missing []string
	for i := range ref.Shards {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, ref.Shards))
		}
	}
	if len(missing) > 0 {
		return Certificate{}, &MergeError{Reason: fmt.Sprintf("shard %s missing: all %d shards are needed", strings.Join(missing, ", "), ref.Shards)}
	}
	sorted := slices.Clone(parts)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Shard < sorted[b].Shard })
	c := Certificate{Kind: CertificateKind, SchemaVersion: CertificateSchemaVersion, Tau: ref.Tau, Alpha: ref.Alpha,
		Graph: ref.KeyOrder, Software: ref.Software}
	for _, p := range sorted {
		if p.Created.After(c.Created) {
			c.Created = p.Created
		}
	}
	if ref.Scheme == "whole" {
		for _, p := range sorted {
			if p.Empty != (p.Shard != 0) {
				return Certificate{}, &MergeError{Reason: fmt.Sprintf("shard %d/%d of a method that is not divided: shard 0 holds the result and the others are empty", p.Shard, p.Shards)}
			}
		}
		p := sorted[0]
		c.Delta2, c.Exact, c.Slack, c.Method, c.Edge = p.Delta2, p.Exact, p.Slack, p.Method, p.Edge
		return c, c.validate()
	}
	// Divided: the largest upper bound (the first shard's on a tie), the
	// largest lower bound; exact under Graph's rule (honestExact).
	best, lower, complete := -1, 0.0, true
	pruned := false
	for k, p := range sorted {
		if p.Edge[0] != "" && (best < 0 || p.Delta2 > sorted[best].Delta2) {
			best = k
		}
		lower = math.Max(lower, p.Lower)
		complete = complete && p.Complete
		pruned = pruned || p.Method == "bound-and-refine"
	}
	if best < 0 {
		return Certificate{}, &MergeError{Reason: "no shard holds an edge"}
	}
	c.Delta2, c.Edge = sorted[best].Delta2, sorted[best].Edge
	if lower > c.Delta2 {
		// Proven bounds cannot cross: a part was not computed as it says.
		return Certificate{}, &MergeError{Reason: fmt.Sprintf("the parts contradict each other: a proven lower bound %v exceeds every proven upper bound (largest %v)", lower, c.Delta2)}
	}
	c.Slack = math.Max(0, c.Delta2-lower)
	c.Exact = complete
	if c.Delta2 > 0 && c.Slack/c.Delta2 > ExactRelativeSlack {
		c.Exact = false
	}
	switch {
	case ref.Scheme == "lanczos":
		c.Method = "lanczos-edges"
	case pruned || !complete:
		c.Method = "bound-and-refine"
	default:
		c.Method = "chebyshev-columns"
	}
	return c, c.validate()
}

package sensitivity

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/laplacian"
)

// CertificateKind names the file format of a sensitivity certificate.
const CertificateKind = "graphcloak.sensitivity-certificate"

// CertificateSchemaVersion is the version of the certificate JSON layout.
const CertificateSchemaVersion = 1

// Certificate is a stored Δ2 of the heat-diffusion measurement exp(−τL)
// on one exact graph: the graph's fingerprint, τ and α it was computed
// for, and how. Delta2 is a proven upper bound (Exact: also tight to
// Slack). A release may use it instead of recomputing Δ2 only after Verify
// against the graph and parameters at hand.
type Certificate struct {
	Kind          string                `json:"kind"`
	SchemaVersion int                   `json:"schemaVersion"`
	Delta2        float64               `json:"delta2"`
	Exact         bool                  `json:"exact"`
	Slack         float64               `json:"slack"`
	Tau           float64               `json:"tau"`
	Alpha         float64               `json:"alpha"`
	Method        string                `json:"method"`
	Edge          [2]string             `json:"edge"` // node keys of the maximising (or bounding) edge
	Graph         laplacian.Fingerprint `json:"graph"`
	Software      string                `json:"software"` // the graphcloak version that computed it
	Created       time.Time             `json:"created"`
	// MAC authenticates the certificate under the ledger key (Seal,
	// CheckMAC; see cert_mac.go); empty when sealed without one.
	MAC string `json:"mac,omitempty"`
}

// NewCertificate records s, computed by Graph on g at τ, as a
// certificate. It refuses a Result that is not certified.
func NewCertificate(g *laplacian.Graph, s Result, tau float64, software string) (Certificate, error) {
	if !s.Certified {
		return Certificate{}, errors.New("sensitivity: refusing to certify a sensitivity that is not a proven bound")
	}
	// Δ2 does not depend on the node order: the certificate names the
	// graph in key order, so the same graph read in any order (plan sorts
	// it, release does not, Neo4j has no order) verifies.
	sorted, _, err := laplacian.SortedByKey(g)
	if err != nil {
		return Certificate{}, err
	}
	c := Certificate{Kind: CertificateKind, SchemaVersion: CertificateSchemaVersion,
		Delta2: s.Delta2, Exact: s.Exact, Slack: s.Slack, Tau: tau, Alpha: s.Alpha, Method: s.Method,
		Graph: sorted.Fingerprint(), Software: software, Created: time.Now().UTC().Truncate(time.Second)}
	if s.Edge[0] >= 0 {
		c.Edge = [2]string{g.Key(s.Edge[0]), g.Key(s.Edge[1])}
	}
	return c, c.validate()
}

// ErrCertificateMismatch is wrapped by the *CertificateMismatchError that
// Verify returns.
var ErrCertificateMismatch = errors.New("sensitivity certificate does not match")

// CertificateMismatchError names what differs between a certificate and
// the graph or parameters it is used with.
type CertificateMismatchError struct {
	Field string // "graph", "tau"
	Cert  string // the certificate's value
	Have  string // the value at hand
	Why   string // why it cannot be used, when not obvious
}

func (e *CertificateMismatchError) Error() string {
	msg := fmt.Sprintf("sensitivity: %v: %s is %s in the certificate but %s here", ErrCertificateMismatch, e.Field, e.Cert, e.Have)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

func (e *CertificateMismatchError) Unwrap() error { return ErrCertificateMismatch }

// Verify checks that the certificate applies to graph g at diffusion time
// tau and radius alpha, and returns the Result to use. The graph must
// have the same fingerprint (keys, edges, weights). τ must be equal, or
// larger than the certificate's: Δ2 is non-increasing in τ (L ⪰ 0, see
// docs/derivations.md §2.7), so a bound at a smaller τ holds at tau too —
// as an upper bound, no longer exact. A certificate at a larger τ is
// refused with that reason. α may differ, since Δ2 is exactly
// proportional to α: the stored value is rescaled by alpha/c.Alpha and
// rounded up.
func (c Certificate) Verify(g *laplacian.Graph, tau, alpha float64) (Result, error) {
	if err := c.validate(); err != nil {
		return Result{}, err
	}
	if err := checkPositive("alpha", alpha); err != nil {
		return Result{}, err
	}
	if have := g.Fingerprint(); have != c.Graph {
		// Certificates name the graph in key order (NewCertificate);
		// older ones in the order it was read.
		sorted, _, err := laplacian.SortedByKey(g)
		if err != nil {
			return Result{}, err
		}
		if have = sorted.Fingerprint(); have != c.Graph {
			return Result{}, &CertificateMismatchError{Field: "graph", Cert: c.Graph.String(), Have: have.String() + " (" + have.Diff(c.Graph) + ")"}
		}
	}
	if !(tau >= c.Tau) {
		return Result{}, &CertificateMismatchError{Field: "tau", Cert: fmt.Sprint(c.Tau),
			Have: fmt.Sprint(tau), Why: "a Δ2 proven at a larger τ does not bound Δ2 at a smaller one: diffusion shrinks differences, so Δ2 grows as τ decreases"}
	}
	comps, _ := g.Components()
	s := Result{Delta2: c.Delta2, Certified: true, Exact: c.Exact, Method: "certificate:" + c.Method,
		Slack: c.Slack, Alpha: alpha, Edge: [2]int{-1, -1}, Kappa2: math.NaN(),
		Nodes: g.N(), Edges: g.NumEdges(), Components: comps}
	if tau != c.Tau {
		// A bound at c.Tau ≥ Δ2(tau): proven, but its tightness is not.
		s.Exact, s.Slack = false, c.Delta2
		s.Method += fmt.Sprintf("@tau=%g", c.Tau)
	}
	if alpha != c.Alpha {
		r := alpha / c.Alpha
		s.Delta2 = roundUpDelta(c.Delta2 * r)
		s.Slack = roundUpDelta(s.Slack*r) + (s.Delta2 - c.Delta2*r)
	}
	i, iok := g.IndexOf(c.Edge[0])
	j, jok := g.IndexOf(c.Edge[1])
	if iok && jok {
		s.Edge = [2]int{i, j}
	}
	return s, nil
}

// validate checks the fields a certificate must have to mean anything.
func (c Certificate) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("sensitivity: invalid sensitivity certificate: "+format, a...)
	}
	switch {
	case c.Kind != CertificateKind:
		return bad("kind %q, want %q", c.Kind, CertificateKind)
	case c.SchemaVersion != CertificateSchemaVersion:
		return bad("schemaVersion %d, want %d", c.SchemaVersion, CertificateSchemaVersion)
	case !(c.Delta2 >= 0) || math.IsInf(c.Delta2, 0):
		return bad("delta2 %v is not a finite number ≥ 0", c.Delta2)
	case !(c.Slack >= 0) || c.Slack > c.Delta2:
		return bad("slack %v is not in [0, delta2]", c.Slack)
	case !(c.Tau > 0) || math.IsInf(c.Tau, 0):
		return bad("tau %v is not finite and > 0", c.Tau)
	case !(c.Alpha > 0) || math.IsInf(c.Alpha, 0):
		return bad("alpha %v is not finite and > 0", c.Alpha)
	case c.Graph.Nodes <= 0 || c.Graph.Edges < 0:
		return bad("graph has %d nodes and %d edges", c.Graph.Nodes, c.Graph.Edges)
	case c.Method == "":
		return bad("method is empty")
	}
	if b, err := hex.DecodeString(c.Graph.SHA256); err != nil || len(b) != 32 {
		return bad("graph sha256 %q is not 64 hex digits", c.Graph.SHA256)
	}
	return nil
}

// SaveCertificate writes c as indented JSON to path, atomically (a
// temporary file in the same directory, synced, then renamed), so a
// reader never sees half a certificate.
func SaveCertificate(path string, c Certificate) error {
	if err := c.validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("sensitivity: save certificate: %w", err)
	}
	return nil
}

// LoadCertificate reads and validates a certificate written by
// SaveCertificate. Unknown fields, trailing data and invalid values are
// errors; it does not check the certificate against a graph (Verify does).
func LoadCertificate(path string) (Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Certificate{}, fmt.Errorf("sensitivity: load certificate: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Certificate
	if err := dec.Decode(&c); err != nil {
		return Certificate{}, fmt.Errorf("sensitivity: load certificate %s: %w", path, err)
	}
	if dec.More() {
		return Certificate{}, fmt.Errorf("sensitivity: load certificate %s: data after the JSON object", path)
	}
	if err := c.validate(); err != nil {
		return Certificate{}, fmt.Errorf("%w (%s)", err, path)
	}
	return c, nil
}

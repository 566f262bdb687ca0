package graphcloak

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/graphcloak/graphcloak/internal/jsonmac"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// The answer audit in shards (shard i of N): each process
// runs the certifier's pass over its share of the sources and writes a
// part; MergeAnswerParts checks that the parts are every shard of one
// pass — one graph, τ, fit tolerance, action and version — exactly once,
// and gives the certificate one process would (the same norms and
// classes), which AnswerCache then reuses.

// AnswerPartKind names the file format of one shard of the answer audit.
const AnswerPartKind = "graphcloak.answer-certificate-part"

// AnswerPart is one shard's pass, sealed like the certificate.
type AnswerPart struct {
	AnswerFileHeader
	Part recovery.CertifierPart `json:"part"`
	MAC  string                 `json:"mac,omitempty"`
}

func (p AnswerPart) mac(key []byte) (string, error) {
	p.MAC = ""
	return jsonmac.Sum(key, p)
}

// NewAnswerPart runs opt.Shard's share of the certifier's pass on g at τ.
func NewAnswerPart(ctx context.Context, g *laplacian.Graph, tau float64, opt recovery.CertifierOptions, software string) (AnswerPart, error) {
	part, err := recovery.NewCertifierPart(ctx, g, tau, opt)
	if err != nil {
		return AnswerPart{}, err
	}
	tol := opt.Tol
	if tol == 0 {
		tol = recovery.DefaultFitTolerance
	}
	return AnswerPart{AnswerFileHeader: newAnswerFileHeader(AnswerPartKind, g.Fingerprint(), tau, tol, fitKey{tol: tol}, software), Part: *part}, nil
}

// SaveAnswerPart writes p to path whole, sealed under macKey (nil: this
// installation's key, privacy.CacheMACKey).
func SaveAnswerPart(path string, p AnswerPart, macKey []byte) error {
	p.MAC = ""
	mac, err := AnswerCache{MACKey: macKey}.seal(p.mac)
	if err != nil {
		return err
	}
	p.MAC = mac
	return writeJSONFile(path, p)
}

// LoadAnswerPart reads a part and checks its MAC under macKey (nil: this
// installation's key): a part no key authenticates is refused, never
// merged as it is.
func LoadAnswerPart(path string, macKey []byte) (AnswerPart, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return AnswerPart{}, err
	}
	var p AnswerPart
	if err := json.Unmarshal(b, &p); err != nil || p.Kind != AnswerPartKind {
		return AnswerPart{}, fmt.Errorf("%w: %s is not a part of the answer audit (%v)", ErrAnswerCacheMismatch, path, err)
	}
	if err := (AnswerCache{MACKey: macKey}).checkMAC(p.MAC, p.mac); err != nil {
		return AnswerPart{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// MergeAnswerParts checks that parts are every shard of one pass on g at
// τ and tol by this software, merges them (recovery.MergeCertifierParts),
// refits the end-to-end sample and stores the certificate in cache.
func MergeAnswerParts(ctx context.Context, g *laplacian.Graph, tau, tol float64, parts []AnswerPart, cache AnswerCache) (*recovery.SourceClasses, error) {
	if tol == 0 {
		tol = recovery.DefaultFitTolerance
	}
	var cparts []*recovery.CertifierPart
	for i := range parts {
		p := &parts[i]
		if err := p.matches(AnswerPartKind, g.Fingerprint(), tau, fitKey{tol: tol}, cache.Software); err != nil {
			return nil, &recovery.ShardError{Reason: fmt.Sprintf("include shard %d/%d that is foreign: %v", p.Part.Shard.I, p.Part.Shard.N, err)}
		}
		cparts = append(cparts, &p.Part)
	}
	precise := len(parts) > 0 && parts[0].Part.Precise
	opt := recovery.CertifierOptions{Tol: tol, Precise: precise}
	cert, err := recovery.MergeCertifierParts(g, tau, opt, cparts)
	if err != nil {
		return nil, err
	}
	sc, err := cert.Classes(ctx)
	if err != nil {
		return nil, err
	}
	return sc, cache.store(g, tau, tol, fitKey{tol: tol}, cert.State(sc))
}

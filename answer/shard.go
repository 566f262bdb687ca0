package answer

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
// part; MergeParts checks that the parts are every shard of one
// pass — one graph, τ, fit tolerance, action and version — exactly once,
// and gives the certificate one process would (the same norms and
// classes), which Cache then reuses.

// PartKind names the file format of one shard of the answer audit.
const PartKind = "graphcloak.answer-certificate-part"

// Part is one shard's pass, sealed like the certificate.
type Part struct {
	FileHeader
	Part recovery.CertifierPart `json:"part"`
	MAC  string                 `json:"mac,omitempty"`
}

func (p Part) mac(key []byte) (string, error) {
	p.MAC = ""
	return jsonmac.Sum(key, p)
}

// NewPart runs opt.Shard's share of the certifier's pass on g at τ.
func NewPart(ctx context.Context, g *laplacian.Graph, tau float64, opt recovery.CertifierOptions, software string) (Part, error) {
	part, err := recovery.NewCertifierPart(ctx, g, tau, opt)
	if err != nil {
		return Part{}, err
	}
	tol := opt.Tol
	if tol == 0 {
		tol = recovery.DefaultFitTolerance
	}
	return Part{FileHeader: newAnswerFileHeader(PartKind, g.Fingerprint(), tau, tol, fitKey{tol: tol}, software), Part: *part}, nil
}

// SavePart writes p to path whole, sealed under macKey (nil: this
// installation's key, privacy.CacheMACKey).
func SavePart(path string, p Part, macKey []byte) error {
	p.MAC = ""
	mac, err := Cache{MACKey: macKey}.seal(p.mac)
	if err != nil {
		return err
	}
	p.MAC = mac
	return writeJSONFile(path, p)
}

// LoadPart reads a part and checks its MAC under macKey (nil: this
// installation's key): a part no key authenticates is refused, never
// merged as it is.
func LoadPart(path string, macKey []byte) (Part, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Part{}, err
	}
	var p Part
	if err := json.Unmarshal(b, &p); err != nil || p.Kind != PartKind {
		return Part{}, fmt.Errorf("%w: %s is not a part of the answer audit (%v)", ErrCacheMismatch, path, err)
	}
	if err := (Cache{MACKey: macKey}).checkMAC(p.MAC, p.mac); err != nil {
		return Part{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// MergeParts checks that parts are every shard of one pass on g at
// τ and tol by this software, merges them (recovery.MergeCertifierParts),
// refits the end-to-end sample and stores the certificate in cache.
func MergeParts(ctx context.Context, g *laplacian.Graph, tau, tol float64, parts []Part, cache Cache) (*recovery.SourceClasses, error) {
	if tol == 0 {
		tol = recovery.DefaultFitTolerance
	}
	var cparts []*recovery.CertifierPart
	for i := range parts {
		p := &parts[i]
		if err := p.matches(PartKind, g.Fingerprint(), tau, fitKey{tol: tol}, cache.Software); err != nil {
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

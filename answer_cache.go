package graphcloak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/internal/jsonmac"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// AnswerCertificateKind names the file format of a stored answer model.
const AnswerCertificateKind = "graphcloak.answer-certificate"

// AnswerFileHeader says what an answer certificate (or one shard's part)
// was computed on: one exact graph at τ and fit tolerance, by one version
// of graphcloak.
type AnswerFileHeader struct {
	Kind          string                `json:"kind"`
	SchemaVersion int                   `json:"schemaVersion"`
	Graph         laplacian.Fingerprint `json:"graph"`
	Tau           float64               `json:"tau"`
	FitTolerance  float64               `json:"fitTolerance"`
	Software      string                `json:"software"`
	Created       time.Time             `json:"created"`
}

func newAnswerFileHeader(kind string, g *laplacian.Graph, tau, tol float64, software string) AnswerFileHeader {
	return AnswerFileHeader{Kind: kind, SchemaVersion: 1, Graph: g.Fingerprint(), Tau: tau, FitTolerance: tol,
		Software: software, Created: time.Now().UTC().Truncate(time.Second)}
}

// matches refuses (ErrAnswerCacheMismatch) a file of another kind, graph,
// τ, fit tolerance or version.
func (h AnswerFileHeader) matches(kind string, g *laplacian.Graph, tau, tol float64, software string) error {
	switch {
	case h.Kind != kind || h.SchemaVersion != 1:
		return fmt.Errorf("%w: a %q file, not a %q", ErrAnswerCacheMismatch, h.Kind, kind)
	case h.Software != software:
		return fmt.Errorf("%w: made by %q, not by this version", ErrAnswerCacheMismatch, h.Software)
	case h.Tau != tau || h.FitTolerance != tol:
		return fmt.Errorf("%w: made for τ = %g, T = %g", ErrAnswerCacheMismatch, h.Tau, h.FitTolerance)
	case h.Graph != g.Fingerprint():
		return fmt.Errorf("%w: the graph changed", ErrAnswerCacheMismatch)
	}
	return nil
}

// AnswerCertificate is the expensive, ε-free part of a private answer's
// model stored for reuse: the certifier's pass (every source's norm) and
// the classes with their audit. A model restored from it is the model the
// pass would compute (the calibration and the per-edge audit, which depend
// on ε and the partition, are always recomputed).
type AnswerCertificate struct {
	AnswerFileHeader
	State recovery.CertifierState `json:"state"`
	// MAC authenticates the certificate under the ledger key's
	// certificate subkey (as the Δ2 certificate); empty without one.
	MAC string `json:"mac,omitempty"`
}

// AnswerCache is a stored answer model at Path (a private answer's cache,
// in a command or a scheduled service): trusted only when its MAC verifies under MACKey
// (when set) and it was made by Software on the same graph, τ and T.
type AnswerCache struct {
	Path     string // "" keeps no file (the memo only)
	MACKey   []byte
	Software string
	// Memo, when set, keeps the last model's state in memory (serve).
	Memo *AnswerMemo
}

// ErrAnswerCacheMismatch: the stored model is of another graph, τ, fit
// tolerance or version (routine: it is recomputed).
var ErrAnswerCacheMismatch = errors.New("graphcloak: the answer certificate does not match")

// AnswerCacheMACError: the stored model is not authenticated under the
// ledger key (forged, edited, or sealed under another key).
type AnswerCacheMACError struct{ Missing bool }

func (e *AnswerCacheMACError) Error() string {
	if e.Missing {
		return "graphcloak: the answer certificate carries no MAC and a ledger key is in use"
	}
	return "graphcloak: the answer certificate's MAC does not verify under the ledger key"
}

// mac is the certificate's MAC (its mac field left out) under key.
func (c AnswerCertificate) mac(key []byte) (string, error) {
	c.MAC = ""
	return jsonmac.Sum(key, c)
}

// Load returns the stored certifier state for g at τ and tol. Its errors
// say why it cannot be used: nothing stored (wrapping fs.ErrNotExist), an
// unreadable file, an *AnswerCacheMACError, or ErrAnswerCacheMismatch.
func (c AnswerCache) Load(g *laplacian.Graph, tau, tol float64) (recovery.CertifierState, error) {
	b, err := os.ReadFile(c.Path)
	if err != nil {
		return recovery.CertifierState{}, err
	}
	var cert AnswerCertificate
	if err := json.Unmarshal(b, &cert); err != nil {
		return recovery.CertifierState{}, fmt.Errorf("graphcloak: answer certificate %s: %w", c.Path, err)
	}
	if c.MACKey != nil {
		want, err := cert.mac(c.MACKey)
		if err != nil {
			return recovery.CertifierState{}, err
		}
		if cert.MAC == "" || !jsonmac.Equal(cert.MAC, want) {
			return recovery.CertifierState{}, &AnswerCacheMACError{Missing: cert.MAC == ""}
		}
	}
	if tol == 0 {
		tol = recovery.DefaultFitTolerance
	}
	if err := cert.matches(AnswerCertificateKind, g, tau, tol, c.Software); err != nil {
		return recovery.CertifierState{}, err
	}
	return cert.State, nil
}

// Store replaces the stored model with m's, sealed under MACKey; the file
// is written whole (a temporary file renamed), never half.
func (c AnswerCache) Store(m *AnswerModel) error {
	return c.store(m.Graph, m.Tau, m.Certifier.Tol(), m.Certifier.State(m.Classes))
}

// store writes the certificate of a certifier state of g at τ and tol.
func (c AnswerCache) store(g *laplacian.Graph, tau, tol float64, st recovery.CertifierState) error {
	cert := AnswerCertificate{AnswerFileHeader: newAnswerFileHeader(AnswerCertificateKind, g, tau, tol, c.Software), State: st}
	if c.MACKey != nil {
		mac, err := cert.mac(c.MACKey)
		if err != nil {
			return err
		}
		cert.MAC = mac
	}
	return writeJSONFile(c.Path, cert)
}

// writeJSONFile writes v's JSON to path whole (atomicfile.Write).
func writeJSONFile(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o644)
}

// Model returns the answer model of g at τ: restored from the process's
// memo or the cache file when either verifies, else computed
// (NewAnswerModel) and stored in both. A cache that cannot be used only
// costs the computation; why is logged at the level an operator needs (a
// forged or unreadable file is a warning, a changed graph routine). A nil
// cache computes.
func (c *AnswerCache) Model(ctx context.Context, g *laplacian.Graph, tau float64, part []int, names []string,
	opt recovery.CertifierOptions, log *slog.Logger) (*AnswerModel, error) {
	if c == nil {
		return NewAnswerModel(ctx, g, tau, part, names, opt)
	}
	tol := opt.Tol
	if tol == 0 {
		tol = recovery.DefaultFitTolerance
	}
	if m := c.Memo.model(g, tau, tol, c.Software, part, names); m != nil {
		log.Debug("answer model, calibrations and audits reused from memory: the graph and partition are unchanged")
		return m, nil
	}
	if st, ok := c.Memo.get(g, tau, tol, c.Software); ok {
		if m, err := RestoreAnswerModel(ctx, g, tau, tol, st, part, names); err == nil {
			c.Memo.put(g, tau, tol, c.Software, m)
			log.Debug("answer model reused from memory: the graph is unchanged")
			return m, nil
		}
	}
	if c.Path != "" {
		if m := c.fromFile(ctx, g, tau, tol, part, names, log); m != nil {
			c.Memo.put(g, tau, tol, c.Software, m)
			return m, nil
		}
	}
	m, err := NewAnswerModel(ctx, g, tau, part, names, opt)
	if err != nil {
		return nil, err
	}
	c.Memo.put(g, tau, tol, c.Software, m)
	if c.Path != "" {
		if err := c.Store(m); err != nil {
			log.Warn("could not store the answer certificate", "cache", c.Path, "error", err)
		}
	}
	return m, nil
}

// fromFile restores the model from the cache file, or returns nil (and
// logs why).
func (c *AnswerCache) fromFile(ctx context.Context, g *laplacian.Graph, tau, tol float64, part []int, names []string, log *slog.Logger) *AnswerModel {
	st, err := c.Load(g, tau, tol)
	var mac *AnswerCacheMACError
	switch {
	case err == nil:
		m, err := RestoreAnswerModel(ctx, g, tau, tol, st, part, names)
		if err == nil {
			log.Info("answer model reused from the certificate: the graph is unchanged", "cache", c.Path)
			return m
		}
		log.Warn("answer certificate unusable: recomputing", "cache", c.Path, "error", err)
	case errors.Is(err, fs.ErrNotExist):
		log.Info("no answer certificate cached yet: computing the model", "cache", c.Path)
	case errors.As(err, &mac):
		log.Warn("answer certificate not authenticated under the ledger key: recomputing and replacing it", "cache", c.Path, "reason", err)
	case errors.Is(err, ErrAnswerCacheMismatch):
		log.Info("answer certificate does not match: recomputing", "cache", c.Path, "reason", err)
	default:
		log.Warn("answer certificate unreadable: recomputing and replacing it", "cache", c.Path, "error", err)
	}
	return nil
}

// AnswerMemo keeps, in a long-running process (serve), the last answer
// model: a slot on an unchanged graph pays for no pass even without a
// cache file, and one on an unchanged graph and partition reuses the model
// itself — its geometry, the calibrations made on it and their audits, so
// that the answer's audit is not recomputed slot after slot. The zero
// value is empty; a nil memo keeps nothing. Safe for concurrent use.
type AnswerMemo struct {
	mu     sync.Mutex
	header AnswerFileHeader
	last   *AnswerModel
}

// model returns the remembered model when it was built on g at τ and tol
// with this partition and these names.
func (m *AnswerMemo) model(g *laplacian.Graph, tau, tol float64, software string, part []int, names []string) *AnswerModel {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil || m.header.matches(AnswerCertificateKind, g, tau, tol, software) != nil ||
		!slices.Equal(m.last.part, part) || !slices.Equal(m.last.partNames, names) {
		return nil
	}
	return m.last
}

func (m *AnswerMemo) get(g *laplacian.Graph, tau, tol float64, software string) (recovery.CertifierState, bool) {
	if m == nil {
		return recovery.CertifierState{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil || m.header.matches(AnswerCertificateKind, g, tau, tol, software) != nil {
		return recovery.CertifierState{}, false
	}
	return m.last.Certifier.State(m.last.Classes), true
}

func (m *AnswerMemo) put(g *laplacian.Graph, tau, tol float64, software string, model *AnswerModel) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.header, m.last = newAnswerFileHeader(AnswerCertificateKind, g, tau, tol, software), model
}

// RestoreAnswerModel is NewAnswerModel from a stored certifier state
// (AnswerCache.Load, verified for this graph, τ and tol): no pass.
func RestoreAnswerModel(ctx context.Context, g *laplacian.Graph, tau, tol float64, st recovery.CertifierState, part []int, names []string) (*AnswerModel, error) {
	cert, sc, err := recovery.RestoreCertifier(g, tau, tol, st)
	if err != nil {
		return nil, err
	}
	return answerModelOf(ctx, g, tau, cert, sc, part, names)
}

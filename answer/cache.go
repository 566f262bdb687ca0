package answer

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
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// CertificateKind names the file format of a stored answer model.
const CertificateKind = "graphcloak.answer-certificate"

// FileHeader says what an answer certificate (or one shard's part)
// was computed on: one exact graph at τ and fit tolerance (or the
// sensor-noise bound the tolerance was derived from), by one version of
// graphcloak.
type FileHeader struct {
	Kind          string                `json:"kind"`
	SchemaVersion int                   `json:"schemaVersion"`
	Graph         laplacian.Fingerprint `json:"graph"`
	Tau           float64               `json:"tau"`
	FitTolerance  float64               `json:"fitTolerance"`
	// SensorNoise is the bound ν FitTolerance was derived from (0: the
	// tolerance was given).
	SensorNoise float64 `json:"sensorNoise,omitempty"`
	Software    string  `json:"software"`
	// Created is left out of files written now: a certificate is a
	// function of the graph, τ, T and the version alone, so an audit
	// resumed after a kill writes the uninterrupted run's file byte for
	// byte. Files that carry it are still read.
	Created time.Time `json:"created,omitzero"`
}

// fitKey is what a model was asked for besides the graph and τ: a fit
// tolerance T, or a sensor-noise bound ν (which decides T).
type fitKey struct{ tol, noise float64 }

// fitKeyOf is opt's fitKey (T defaulted).
func fitKeyOf(opt recovery.CertifierOptions) fitKey {
	if opt.SensorNoise != 0 {
		return fitKey{noise: opt.SensorNoise}
	}
	if opt.Tol == 0 {
		return fitKey{tol: recovery.DefaultFitTolerance}
	}
	return fitKey{tol: opt.Tol}
}

// schema is a header's schema version: 2 for a stated sensor noise,
// whose meaning changed (a Gaussian rms, the model widened for it, not a
// hard bound), so that no certificate of the old meaning is taken.
func (k fitKey) schema() int {
	if k.noise != 0 {
		return 2
	}
	return 1
}

func newAnswerFileHeader(kind string, graph laplacian.Fingerprint, tau float64, tol float64, k fitKey, software string) FileHeader {
	return FileHeader{Kind: kind, SchemaVersion: k.schema(), Graph: graph, Tau: tau, FitTolerance: tol, SensorNoise: k.noise,
		Software: software}
}

// matches refuses (ErrCacheMismatch) a file of another kind, graph,
// τ, fit tolerance (or sensor-noise bound) or version.
func (h FileHeader) matches(kind string, graph laplacian.Fingerprint, tau float64, k fitKey, software string) error {
	switch {
	case h.Kind != kind || h.SchemaVersion != k.schema():
		return fmt.Errorf("%w: a %q file, not a %q", ErrCacheMismatch, h.Kind, kind)
	case h.Software != software:
		return fmt.Errorf("%w: made by %q, not by this version", ErrCacheMismatch, h.Software)
	case h.Tau != tau:
		return fmt.Errorf("%w: made for τ = %g", ErrCacheMismatch, h.Tau)
	case k.noise != 0 && h.SensorNoise != k.noise:
		return fmt.Errorf("%w: made for sensor noise %g, not %g", ErrCacheMismatch, h.SensorNoise, k.noise)
	case k.noise == 0 && (h.SensorNoise != 0 || h.FitTolerance != k.tol):
		return fmt.Errorf("%w: made for T = %g (sensor noise %g), not T = %g", ErrCacheMismatch, h.FitTolerance, h.SensorNoise, k.tol)
	case h.Graph != graph:
		return fmt.Errorf("%w: the graph changed (%s)", ErrCacheMismatch, graph.Diff(h.Graph))
	}
	return nil
}

// Certificate is the expensive, ε-free part of a private answer's
// model stored for reuse: the certifier's pass (every source's norm) and
// the classes with their audit. A model restored from it is the model the
// pass would compute (the calibration and the per-edge audit, which depend
// on ε and the partition, are always recomputed, and so is the refit of the
// recovery's sample). The graph and the state are in key order
// (laplacian.SortedByKey): the same graph read in any order — an edge list,
// Neo4j, a command that sorts it (plan) — names one certificate.
type Certificate struct {
	FileHeader
	State recovery.CertifierState `json:"state"`
	// MAC authenticates the certificate under the ledger key's
	// certificate subkey, or without a ledger key this installation's
	// (privacy.CacheMACKey).
	MAC string `json:"mac,omitempty"`
}

// Cache is a stored answer model at Path (a private answer's cache,
// in a command or a scheduled service): trusted only when its MAC verifies
// under MACKey (nil: this installation's key, privacy.CacheMACKey) and it
// was made by Software on the same graph, τ and T.
type Cache struct {
	Path     string // "" keeps no file (the memo only)
	MACKey   []byte
	Software string
	// Memo, when set, keeps the last model's state in memory (serve).
	Memo *Memo
}

// ErrCacheMismatch: the stored model is of another graph, τ, fit
// tolerance or version (routine: it is recomputed).
var ErrCacheMismatch = errors.New("graphcloak: the answer certificate does not match")

// CacheMACError: the stored model is not authenticated under the
// cache's key (forged, edited, sealed under another key, or made on
// another installation without a ledger key).
type CacheMACError struct{ Missing bool }

func (e *CacheMACError) Error() string {
	if e.Missing {
		return "graphcloak: the answer certificate carries no MAC: only certificates sealed under the ledger key (without one, this installation's key) are trusted"
	}
	return "graphcloak: the answer certificate's MAC does not verify under the ledger key (without one, this installation's key): it was edited, or sealed elsewhere — shards on other machines need the same ledger key"
}

// key is the key certificates are sealed under: MACKey, or this
// installation's.
func (c Cache) key() ([]byte, error) {
	if c.MACKey != nil {
		return c.MACKey, nil
	}
	return privacy.CacheMACKey(nil)
}

// checkMAC verifies a file's MAC (sum computes it with its mac left out).
func (c Cache) checkMAC(have string, sum func(key []byte) (string, error)) error {
	key, err := c.key()
	if err != nil {
		return err
	}
	want, err := sum(key)
	if err != nil {
		return err
	}
	if have == "" || !jsonmac.Equal(have, want) {
		return &CacheMACError{Missing: have == ""}
	}
	return nil
}

// seal returns a file's MAC under the cache's key.
func (c Cache) seal(sum func(key []byte) (string, error)) (string, error) {
	key, err := c.key()
	if err != nil {
		return "", err
	}
	return sum(key)
}

// mac is the certificate's MAC (its mac field left out) under key.
func (c Certificate) mac(key []byte) (string, error) {
	c.MAC = ""
	return jsonmac.Sum(key, c)
}

// Load returns the stored certifier state for g (in g's node order) at τ
// and opt's fit tolerance or sensor-noise bound, and the tolerance it was
// computed at. Its errors say why it cannot be used: nothing stored
// (wrapping fs.ErrNotExist), an unreadable file, an *CacheMACError,
// or ErrCacheMismatch.
func (c Cache) Load(g *laplacian.Graph, tau float64, opt recovery.CertifierOptions) (recovery.CertifierState, float64, error) {
	b, err := os.ReadFile(c.Path)
	if err != nil {
		return recovery.CertifierState{}, 0, err
	}
	var cert Certificate
	if err := json.Unmarshal(b, &cert); err != nil {
		return recovery.CertifierState{}, 0, fmt.Errorf("graphcloak: answer certificate %s: %w", c.Path, err)
	}
	if err := c.checkMAC(cert.MAC, cert.mac); err != nil {
		return recovery.CertifierState{}, 0, err
	}
	sorted, perm, err := laplacian.SortedByKey(g)
	if err != nil {
		return recovery.CertifierState{}, 0, err
	}
	if err := cert.matches(CertificateKind, sorted.Fingerprint(), tau, fitKeyOf(opt), c.Software); err != nil {
		return recovery.CertifierState{}, 0, err
	}
	st, err := stateFromKeyOrder(cert.State, perm)
	return st, cert.FitTolerance, err
}

// Store replaces the stored model with m's, sealed under the cache's key
// and in key order; the file is written whole (a temporary file renamed),
// never half.
func (c Cache) Store(m *Model) error {
	return c.store(m.Graph, m.Tau, m.Certifier.Tol(), m.fit, m.Certifier.State(m.Classes))
}

// store writes the certificate of a certifier state of g (in g's order)
// at τ, computed at tol for k.
func (c Cache) store(g *laplacian.Graph, tau, tol float64, k fitKey, st recovery.CertifierState) error {
	sorted, perm, err := laplacian.SortedByKey(g)
	if err != nil {
		return err
	}
	cert := Certificate{
		FileHeader: newAnswerFileHeader(CertificateKind, sorted.Fingerprint(), tau, tol, k, c.Software),
		State:      stateInKeyOrder(st, perm)}
	if cert.MAC, err = c.seal(cert.mac); err != nil {
		return err
	}
	return writeJSONFile(c.Path, cert)
}

// stateInKeyOrder moves a state in a graph's order to key order (perm[i]:
// the key-order index of node i); classes are renumbered by lowest member.
func stateInKeyOrder(st recovery.CertifierState, perm []int) recovery.CertifierState {
	out := st
	out.Norms = make([]float64, len(perm))
	class := make([]int, len(perm))
	for i, p := range perm {
		out.Norms[p] = st.Norms[i]
		class[p] = st.Classes.Class[i]
	}
	out.Classes.Class = byLowestMember(class)
	return out
}

// stateFromKeyOrder is stateInKeyOrder's inverse; it refuses a state whose
// length is not the graph's.
func stateFromKeyOrder(st recovery.CertifierState, perm []int) (recovery.CertifierState, error) {
	if len(st.Norms) != len(perm) || len(st.Classes.Class) != len(perm) {
		return st, fmt.Errorf("%w: the stored state has %d norms and %d classes for %d nodes", ErrCacheMismatch,
			len(st.Norms), len(st.Classes.Class), len(perm))
	}
	out := st
	out.Norms = make([]float64, len(perm))
	class := make([]int, len(perm))
	for i, p := range perm {
		out.Norms[i] = st.Norms[p]
		class[i] = st.Classes.Class[p]
	}
	out.Classes.Class = byLowestMember(class)
	return out, nil
}

// byLowestMember renumbers class labels 0, 1, … in order of first
// appearance (recovery.SourceClasses' numbering).
func byLowestMember(class []int) []int {
	ids := map[int]int{}
	for i, c := range class {
		id, ok := ids[c]
		if !ok {
			id = len(ids)
			ids[c] = id
		}
		class[i] = id
	}
	return class
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
// (NewModel) and stored in both. A cache that cannot be used only
// costs the computation; why is logged at the default level (a changed
// graph, τ or version included: a pass of minutes redone is worth a line).
// A nil cache computes.
func (c *Cache) Model(ctx context.Context, g *laplacian.Graph, tau float64, part []int, names []string,
	opt recovery.CertifierOptions, log *slog.Logger) (*Model, error) {
	if c == nil {
		return NewModel(ctx, g, tau, part, names, opt)
	}
	k := fitKeyOf(opt)
	if m := c.Memo.model(g, tau, k, c.Software, part, names); m != nil {
		log.Debug("answer model, calibrations and audits reused from memory: the graph and partition are unchanged")
		return m, nil
	}
	if st, tol, ok := c.Memo.get(g, tau, k, c.Software); ok {
		if m, err := restoreAnswerModel(ctx, g, tau, tol, k, st, part, names); err == nil {
			c.Memo.put(g, tau, k, c.Software, m)
			log.Debug("answer model reused from memory: the graph is unchanged")
			return m, nil
		}
	}
	if c.Path != "" {
		if m := c.fromFile(ctx, g, tau, opt, part, names, log); m != nil {
			c.Memo.put(g, tau, k, c.Software, m)
			return m, nil
		}
	}
	m, err := NewModel(ctx, g, tau, part, names, opt)
	if err != nil {
		return nil, err
	}
	c.Memo.put(g, tau, k, c.Software, m)
	if c.Path != "" {
		if err := c.Store(m); err != nil {
			log.Warn("could not store the answer certificate", "cache", c.Path, "error", err)
		}
	}
	return m, nil
}

// fromFile restores the model from the cache file, or returns nil (and
// logs why).
func (c *Cache) fromFile(ctx context.Context, g *laplacian.Graph, tau float64, opt recovery.CertifierOptions, part []int, names []string, log *slog.Logger) *Model {
	st, tol, err := c.Load(g, tau, opt)
	var mac *CacheMACError
	switch {
	case err == nil:
		m, err := restoreAnswerModel(ctx, g, tau, tol, fitKeyOf(opt), st, part, names)
		if err == nil {
			log.Info("answer model reused from the certificate: the graph is unchanged", "cache", c.Path)
			return m
		}
		log.Warn("answer certificate unusable: recomputing", "cache", c.Path, "error", err)
	case errors.Is(err, fs.ErrNotExist):
		log.Info("no answer certificate cached yet: computing the model", "cache", c.Path)
	case errors.As(err, &mac):
		log.Warn("answer certificate not authenticated: recomputing and replacing it", "cache", c.Path, "reason", err)
	case errors.Is(err, ErrCacheMismatch):
		log.Warn("answer certificate does not match: recomputing and replacing it", "cache", c.Path, "reason", err)
	default:
		log.Warn("answer certificate unreadable: recomputing and replacing it", "cache", c.Path, "error", err)
	}
	return nil
}

// Memo keeps, in a long-running process (serve), the last answer
// model: a slot on an unchanged graph pays for no pass even without a
// cache file, and one on an unchanged graph and partition reuses the model
// itself — its geometry, the calibrations made on it and their audits, so
// that the answer's audit is not recomputed slot after slot. The zero
// value is empty; a nil memo keeps nothing. Safe for concurrent use.
type Memo struct {
	mu     sync.Mutex
	header FileHeader
	last   *Model
}

// model returns the remembered model when it was built on g at τ and k
// with this partition and these names.
func (m *Memo) model(g *laplacian.Graph, tau float64, k fitKey, software string, part []int, names []string) *Model {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil || m.header.matches(CertificateKind, g.Fingerprint(), tau, k, software) != nil ||
		!slices.Equal(m.last.part, part) || !slices.Equal(m.last.partNames, names) {
		return nil
	}
	return m.last
}

func (m *Memo) get(g *laplacian.Graph, tau float64, k fitKey, software string) (recovery.CertifierState, float64, bool) {
	if m == nil {
		return recovery.CertifierState{}, 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil || m.header.matches(CertificateKind, g.Fingerprint(), tau, k, software) != nil {
		return recovery.CertifierState{}, 0, false
	}
	return m.last.Certifier.State(m.last.Classes), m.last.Certifier.Tol(), true
}

func (m *Memo) put(g *laplacian.Graph, tau float64, k fitKey, software string, model *Model) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.header = newAnswerFileHeader(CertificateKind, g.Fingerprint(), tau, model.Certifier.Tol(), k, software)
	m.last = model
}

// RestoreModel is NewModel from a stored certifier state
// (Cache.Load, verified for this graph, τ and tol): no pass. The
// refit of the recovery's sample is run again (recovery.RestoreCertifier),
// so the audit's refit counters are this run's.
func RestoreModel(ctx context.Context, g *laplacian.Graph, tau, tol float64, st recovery.CertifierState, part []int, names []string) (*Model, error) {
	return restoreAnswerModel(ctx, g, tau, tol, fitKey{tol: tol}, st, part, names)
}

func restoreAnswerModel(ctx context.Context, g *laplacian.Graph, tau, tol float64, k fitKey, st recovery.CertifierState, part []int, names []string) (*Model, error) {
	cert, sc, err := recovery.RestoreCertifier(ctx, g, tau, tol, st)
	if err != nil {
		return nil, err
	}
	m, err := answerModelOf(ctx, g, tau, cert, sc, part, names)
	if err != nil {
		return nil, err
	}
	m.fit, m.restored = k, true
	return m, nil
}

package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/internal/cancel"
	"github.com/graphcloak/graphcloak/internal/jsonmac"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// WorkCache is a directory where a plan keeps the work it reuses when run
// again on the same graph: the Δ2 certificate at each τ, the private
// answer's certificate, and the forecasts. Every file is named by what it
// depends on (the graph's fingerprint and the parameters), sealed under
// MACKey (the ledger key's certificate subkey, or this installation's key
// when nil: privacy.CacheMACKey) and stamped with Software; a file that
// does not verify, or that another version wrote, is computed again and
// replaced, never trusted.
type WorkCache struct {
	Dir      string
	MACKey   []byte
	Software string
	Logger   *slog.Logger
	// MaxBytes bounds the directory's size (0: DefaultStoreMaxBytes); Trim
	// prunes the least recently used files beyond it (workstore.go).
	MaxBytes int64

	// The last graph's canonical key, computed once per graph.
	mu      sync.Mutex
	keyOf   *laplacian.Graph
	keyLast laplacian.Fingerprint
	keyPerm []int
}

// name returns the file of kind for the parts it depends on.
func (w *WorkCache) name(kind string, parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return filepath.Join(w.Dir, kind+"-"+hex.EncodeToString(sum[:12])+".json")
}

// macKey is the key the files are sealed under (nil: none can be had, and
// nothing is kept).
func (w *WorkCache) macKey() []byte {
	if w.MACKey != nil {
		return w.MACKey
	}
	k, err := privacy.CacheMACKey(nil)
	if err != nil {
		return nil
	}
	return k
}

// ready creates the directory (0700); false when it cannot be had.
func (w *WorkCache) ready() bool {
	if w == nil || w.Dir == "" {
		return false
	}
	if err := os.MkdirAll(w.Dir, 0o700); err != nil {
		w.logger().Warn("the work cache directory cannot be created: nothing is kept", "dir", w.Dir, "error", err)
		return false
	}
	return true
}

func (w *WorkCache) logger() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// Sensitivity is the Δ2 certificate of g at τ and α (nil without a
// cache). Its file is named by the graph's fingerprint in key order, as
// the certificate itself is (sensitivity.NewCertificate): plan, which
// sorts the graph, and release, epoch and serve, which do not, name one
// file.
func (w *WorkCache) Sensitivity(g *laplacian.Graph, tau, alpha float64) *sensitivity.Cache {
	key := w.sealKey()
	if key == nil {
		return nil
	}
	fp, err := w.keyOrderFingerprint(g)
	if err != nil {
		return nil
	}
	return &sensitivity.Cache{Path: w.name("delta2", fp, math.Float64bits(tau), math.Float64bits(alpha)),
		MACKey: key, Software: w.Software}
}

// Answer is the private answer's certificate of g at τ, fit tolerance T
// and sensor-noise bound ν (nil without a cache). Its file is named by
// the graph's fingerprint in key order, as the certificate itself is: the
// same graph read in any order (plan sorts it; locate, serve and audit do
// not) names one file; and by the model asked for (ν, or T defaulted), so
// that every command's defaults meet.
func (w *WorkCache) Answer(g *laplacian.Graph, tau, tol, nu float64) *answer.Cache {
	if !w.ready() {
		return nil
	}
	fp, err := w.keyOrderFingerprint(g)
	if err != nil {
		return nil
	}
	switch {
	case nu != 0:
		tol = 0 // ν decides T
	case tol == 0:
		tol = recovery.DefaultFitTolerance
	}
	path := w.name("answer", fp, math.Float64bits(tau), math.Float64bits(tol), math.Float64bits(nu))
	touch(path) // asked for: used now (the store prunes the least recently used first)
	touch(path + answer.CalibrationsSuffix)
	return &answer.Cache{Path: path, MACKey: w.MACKey, Software: w.Software}
}

// keyOrderFingerprint is g's fingerprint in key order, computed once per
// graph.
func (w *WorkCache) keyOrderFingerprint(g *laplacian.Graph) (laplacian.Fingerprint, error) {
	fp, _, err := w.keyOrder(g)
	return fp, err
}

// keyOrder is g's fingerprint in key order and perm[i], the key-order
// index of g's node i (laplacian.SortedByKey), computed once per graph.
func (w *WorkCache) keyOrder(g *laplacian.Graph) (laplacian.Fingerprint, []int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keyOf != g {
		sorted, perm, err := laplacian.SortedByKey(g)
		if err != nil {
			return laplacian.Fingerprint{}, nil, err
		}
		w.keyOf, w.keyLast, w.keyPerm = g, sorted.Fingerprint(), perm
	}
	return w.keyLast, w.keyPerm, nil
}

// Forecasts is the memo of a sweep's forecasts (nil without a cache).
func (w *WorkCache) Forecasts() forecast.Memo {
	key := w.sealKey()
	if key == nil {
		return nil
	}
	return &forecastMemo{sealed[forecast.Forecast]{w: w, key: key, kind: "forecast"}}
}

// Audits is the memo of the private answer's audits (nil without a cache).
func (w *WorkCache) Audits() *AuditMemo {
	key := w.sealKey()
	if key == nil {
		return nil
	}
	return &AuditMemo{sealed[answer.KeptAudit]{w: w, key: key, kind: "audit"}}
}

// sealKey is the key files are sealed under, once the directory is
// there (nil: no directory or no key, and nothing is kept).
func (w *WorkCache) sealKey() []byte {
	if !w.ready() {
		return nil
	}
	return w.macKey()
}

// sealed keeps values of one kind in files of their own, one a key, each
// with the key it answers, the build that computed it and its MAC (over
// the file with mac empty): a file that does not verify, answers another
// key or another build wrote is not read.
type sealed[T any] struct {
	w    *WorkCache
	key  []byte
	kind string
}

// sealedFile is one kept value.
type sealedFile[T any] struct {
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Software string `json:"software"`
	Value    T      `json:"value"`
	MAC      string `json:"mac"`
}

func (m sealed[T]) path(key string) string { return filepath.Join(m.w.Dir, m.kind+"-"+key+".json") }

// load returns the value kept under key, when its file verifies.
func (m sealed[T]) load(key string) (T, bool) {
	var none T
	path := m.path(key)
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.w.logger().Warn("a kept "+m.kind+" cannot be read: computing it again", "file", path, "error", err)
		}
		return none, false
	}
	var f sealedFile[T]
	if err := json.Unmarshal(b, &f); err != nil || f.Kind != "graphcloak "+m.kind || f.Key != key {
		m.w.logger().Warn("a kept "+m.kind+" is not this one: computing it again and replacing it", "file", path)
		return none, false
	}
	if f.Software != m.w.Software {
		m.w.logger().Info("a kept "+m.kind+" was made by another version: computing it again", "file", path, "software", f.Software)
		return none, false
	}
	mac := f.MAC
	f.MAC = ""
	want, err := jsonmac.Sum(m.key, f)
	if err != nil || !jsonmac.Equal(mac, want) {
		m.w.logger().Warn("a kept "+m.kind+"'s MAC does not verify (edited, or sealed under another key): computing it again", "file", path)
		return none, false
	}
	touch(path)
	return f.Value, true
}

// store keeps v under key; a failure is logged (the next run computes).
func (m sealed[T]) store(key string, v T) {
	f := sealedFile[T]{Kind: "graphcloak " + m.kind, Key: key, Software: m.w.Software, Value: v}
	mac, err := jsonmac.Sum(m.key, f)
	if err == nil {
		f.MAC = mac
		var b []byte
		if b, err = json.Marshal(f); err == nil {
			err = atomicfile.Write(m.path(key), append(b, '\n'), 0o600)
		}
	}
	if err != nil {
		m.w.logger().Warn("could not keep a "+m.kind, "file", m.path(key), "error", err)
		return
	}
	m.w.Trim()
}

// forecastMemo is the sweep's forecast.Memo.
type forecastMemo struct{ s sealed[forecast.Forecast] }

// Load returns the forecast kept under key, when its file verifies.
func (m *forecastMemo) Load(key string) (forecast.Forecast, bool) {
	f, ok := m.s.load(key)
	if ok {
		m.s.w.logger().Info("forecast reused: same graph and parameters", "file", m.s.path(key), "mode", f.Mode, "epsilon", f.Epsilon)
	}
	return f, ok
}

// Store keeps f under key.
func (m *forecastMemo) Store(key string, f forecast.Forecast) { m.s.store(key, f) }

// AuditMemo keeps each audit of a calibration on an answer model: the
// audit is a function of the graph, τ, the fit tolerance and sensor-noise
// bound, the partition and the calibration (which its key names), so the
// audit read back is the one computed. The key names the graph and the
// partition in key order, and the file keeps each node's term in key
// order: plan, which sorts the graph, and locate, audit and serve, which
// do not, read one audit.
type AuditMemo struct{ s sealed[answer.KeptAudit] }

// Key names the audit of cal on m, g's answer model, at τ, T and ν with
// the partition part (of g's nodes; its labels do not matter, only which
// nodes share a community).
func (m *AuditMemo) Key(g *laplacian.Graph, model *answer.Model, tau, tol, nu float64, part []int, cal privacy.AnswerCalibration) string {
	if m == nil || len(part) != g.N() {
		return ""
	}
	fp, perm, err := m.s.w.keyOrder(g)
	if err != nil {
		return ""
	}
	mech, err := mechanismOf(model, cal)
	if err != nil {
		return ""
	}
	rec, err := json.Marshal(mech)
	if err != nil {
		return ""
	}
	b, err := json.Marshal([]any{auditVersion, fp, math.Float64bits(tau), math.Float64bits(tol), math.Float64bits(nu),
		canonicalPartition(nil, part, perm), string(rec)})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// mechanismOf is what defines cal's mechanism, its weights in the key
// order of the model's geometry (answer.Model.KeyOrderRecord: the weights
// index the geometry's nodes, not the graph's — keying them by the
// graph's order named two audits of one mechanism on e-mail Enron and
// football): not what is derived from them (the accuracy, the loss, ρ),
// whose last digits depend on the order a sum visited the nodes in —
// plan, which sorts the graph, and locate, which does not, derive them
// from one calibration a rounding apart. Any difference in what is kept
// names another audit, computed again.
func mechanismOf(model *answer.Model, cal privacy.AnswerCalibration) (privacy.CalibrationRecord, error) {
	rec, err := model.KeyOrderRecord(cal)
	if err != nil {
		return rec, err
	}
	rec.Calibration.Loss, rec.Calibration.Rho, rec.Calibration.Accuracy = 0, 0, 0
	return rec, nil
}

// auditVersion is the kept audits' version: a key of another names
// another file. 2: the audit carries its 90 % set's rate and size; 3: the
// key (the mechanism's weights, not what is derived from them) and the
// nodes' terms in key order; 4: the weights in the key order of the
// model's geometry.
const auditVersion = 4

// Load returns the audit of g kept under key, marked restored, when its
// file verifies.
func (m *AuditMemo) Load(g *laplacian.Graph, key string) (*answer.Audit, bool) {
	if m == nil || key == "" {
		return nil, false
	}
	k, ok := m.s.load(key)
	if !ok {
		return nil, false
	}
	_, perm, err := m.s.w.keyOrder(g)
	if err != nil || len(k.Own) != len(perm) {
		m.s.w.logger().Warn("a kept answer audit does not fit the graph: computing it again", "file", m.s.path(key))
		return nil, false
	}
	own := make([]float64, len(perm))
	for i, p := range perm {
		own[i] = k.Own[p]
	}
	k.Own = own
	m.s.w.logger().Info("answer audit reused: same model and calibration", "file", m.s.path(key))
	return k.Restore(), true
}

// Store keeps a, the audit of g, under key.
func (m *AuditMemo) Store(g *laplacian.Graph, key string, a *answer.Audit) {
	if m == nil || key == "" {
		return
	}
	_, perm, err := m.s.w.keyOrder(g)
	if err != nil {
		return
	}
	k := a.Kept()
	if len(k.Own) != len(perm) {
		return
	}
	own := make([]float64, len(perm))
	for i, p := range perm {
		own[p] = k.Own[i]
	}
	k.Own = own
	m.s.store(key, k)
}

// leidenVersion is the kept partitions' version: a key of another names
// another file.
const leidenVersion = 1

// Leiden is community.Leiden(g, opt), kept in the store and read back while
// its file verifies (Leiden's partition depends only on the graph in key
// order, γ and the seed, community.Leiden): plan and locate
// --private-answer detect the communities of one graph once. The file keeps
// the labels in key order, so the partition read back is the one computed,
// labels and all. Without a store it is community.Leiden.
func (w *WorkCache) Leiden(ctx context.Context, g *laplacian.Graph, opt community.LeidenOptions) ([]int, error) {
	detect := func() ([]int, error) {
		return cancel.Run(ctx, func() ([]int, error) { return community.Leiden(g, opt) })
	}
	key := w.sealKey()
	if key == nil {
		return detect()
	}
	fp, perm, err := w.keyOrder(g)
	if err != nil {
		return detect()
	}
	gamma := opt.Resolution
	if gamma == 0 {
		gamma = 1 // Leiden's default
	}
	passes := opt.MaxPasses
	if passes <= 0 {
		passes = 2 // Leiden's default
	}
	b, err := json.Marshal([]any{leidenVersion, fp, math.Float64bits(gamma), opt.Seed, passes})
	if err != nil {
		return detect()
	}
	sum := sha256.Sum256(b)
	name := hex.EncodeToString(sum[:])
	memo := sealed[[]int]{w: w, key: key, kind: "leiden"}
	if kept, ok := memo.load(name); ok && len(kept) == len(perm) {
		part := make([]int, len(perm))
		for i, p := range perm {
			part[i] = kept[p]
		}
		w.logger().Info("communities reused: same graph, resolution and seed", "file", memo.path(name))
		return part, nil
	}
	part, err := detect()
	if err != nil {
		return nil, err
	}
	kept := make([]int, len(perm))
	for i, p := range perm {
		kept[p] = part[i]
	}
	memo.store(name, kept)
	return part, nil
}

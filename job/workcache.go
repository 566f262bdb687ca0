package job

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/internal/jsonmac"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
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

// Sensitivity is the Δ2 certificate of g at τ and α (nil without a cache).
func (w *WorkCache) Sensitivity(g *laplacian.Graph, tau, alpha float64) *sensitivity.Cache {
	if !w.ready() {
		return nil
	}
	key := w.macKey()
	if key == nil {
		return nil
	}
	return &sensitivity.Cache{Path: w.name("delta2", g.Fingerprint(), math.Float64bits(tau), math.Float64bits(alpha)),
		MACKey: key, Software: w.Software}
}

// Answer is the private answer's certificate of g at τ, fit tolerance T
// and sensor-noise bound ν (nil without a cache).
func (w *WorkCache) Answer(g *laplacian.Graph, tau, tol, nu float64) *answer.Cache {
	if !w.ready() {
		return nil
	}
	return &answer.Cache{Path: w.name("answer", g.Fingerprint(), math.Float64bits(tau), math.Float64bits(tol), math.Float64bits(nu)),
		MACKey: w.MACKey, Software: w.Software}
}

// Forecasts is the memo of a sweep's forecasts (nil without a cache).
func (w *WorkCache) Forecasts() forecast.Memo {
	if !w.ready() {
		return nil
	}
	key := w.macKey()
	if key == nil {
		return nil
	}
	return &forecastMemo{w: w, key: key}
}

// Audits is the memo of the private answer's audits (nil without a cache).
func (w *WorkCache) Audits() *AuditMemo {
	if !w.ready() {
		return nil
	}
	key := w.macKey()
	if key == nil {
		return nil
	}
	return &AuditMemo{w: w, key: key}
}

// AuditMemo keeps each audit of a calibration on an answer model in a
// file of its own, sealed: the audit is a function of the graph, τ, the
// fit tolerance and sensor-noise bound, the partition and the calibration
// (which its key names), so the audit read back is the one computed.
type AuditMemo struct {
	w   *WorkCache
	key []byte
}

// auditFile is a kept audit, as memoFile a kept forecast.
type auditFile struct {
	Kind     string           `json:"kind"`
	Key      string           `json:"key"`
	Software string           `json:"software"`
	Audit    answer.KeptAudit `json:"audit"`
	MAC      string           `json:"mac"`
}

const auditKind = "graphcloak answer audit"

// Key names the audit of cal on g's answer model at τ, T and ν with the
// partition part.
func (m *AuditMemo) Key(g *laplacian.Graph, tau, tol, nu float64, part []int, cal privacy.AnswerCalibration) string {
	rec, err := json.Marshal(cal)
	if err != nil {
		return ""
	}
	b, err := json.Marshal([]any{g.Fingerprint(), math.Float64bits(tau), math.Float64bits(tol), math.Float64bits(nu), part, string(rec)})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (m *AuditMemo) path(key string) string { return filepath.Join(m.w.Dir, "audit-"+key+".json") }

// Load returns the audit kept under key, when its file verifies.
func (m *AuditMemo) Load(key string) (*answer.Audit, bool) {
	if m == nil || key == "" {
		return nil, false
	}
	b, err := os.ReadFile(m.path(key))
	if err != nil {
		return nil, false
	}
	var f auditFile
	if err := json.Unmarshal(b, &f); err != nil || f.Kind != auditKind || f.Key != key || f.Software != m.w.Software {
		m.w.logger().Info("a kept audit is not this one's: auditing again", "file", m.path(key))
		return nil, false
	}
	mac := f.MAC
	f.MAC = ""
	want, err := jsonmac.Sum(m.key, f)
	if err != nil || !jsonmac.Equal(mac, want) {
		m.w.logger().Warn("a kept audit's MAC does not verify (edited, or sealed under another key): auditing again", "file", m.path(key))
		return nil, false
	}
	m.w.logger().Info("answer audit reused: same model and calibration", "file", m.path(key))
	return f.Audit.Restore(), true
}

// Store keeps a under key; a failure is logged (the next run audits).
func (m *AuditMemo) Store(key string, a *answer.Audit) {
	if m == nil || key == "" {
		return
	}
	f := auditFile{Kind: auditKind, Key: key, Software: m.w.Software, Audit: a.Kept()}
	mac, err := jsonmac.Sum(m.key, f)
	if err == nil {
		f.MAC = mac
		var b []byte
		if b, err = json.Marshal(f); err == nil {
			err = atomicfile.Write(m.path(key), append(b, '\n'), 0o600)
		}
	}
	if err != nil {
		m.w.logger().Warn("could not keep an audit", "file", m.path(key), "error", err)
	}
}

// forecastMemo keeps each forecast in a file of its own, sealed.
type forecastMemo struct {
	w   *WorkCache
	key []byte
}

// memoFile is a kept forecast: the key it answers, the build that
// computed it, and its MAC (over the file with mac empty).
type memoFile struct {
	Kind     string            `json:"kind"`
	Key      string            `json:"key"`
	Software string            `json:"software"`
	Forecast forecast.Forecast `json:"forecast"`
	MAC      string            `json:"mac"`
}

const memoKind = "graphcloak forecast"

func (m *forecastMemo) path(key string) string {
	return filepath.Join(m.w.Dir, "forecast-"+key+".json")
}

// Load returns the forecast kept under key, when its file verifies.
func (m *forecastMemo) Load(key string) (forecast.Forecast, bool) {
	path := m.path(key)
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.w.logger().Warn("a kept forecast cannot be read: simulating it again", "file", path, "error", err)
		}
		return forecast.Forecast{}, false
	}
	var f memoFile
	if err := json.Unmarshal(b, &f); err != nil || f.Kind != memoKind || f.Key != key {
		m.w.logger().Warn("a kept forecast is not one: simulating it again and replacing it", "file", path)
		return forecast.Forecast{}, false
	}
	if f.Software != m.w.Software {
		m.w.logger().Info("a kept forecast was made by another version: simulating it again", "file", path, "software", f.Software)
		return forecast.Forecast{}, false
	}
	mac := f.MAC
	f.MAC = ""
	want, err := jsonmac.Sum(m.key, f)
	if err != nil || !jsonmac.Equal(mac, want) {
		m.w.logger().Warn("a kept forecast's MAC does not verify (edited, or sealed under another key): simulating it again", "file", path)
		return forecast.Forecast{}, false
	}
	m.w.logger().Info("forecast reused: same graph and parameters", "file", path, "mode", f.Forecast.Mode, "epsilon", f.Forecast.Epsilon)
	return f.Forecast, true
}

// Store keeps f under key; a failure is logged (the next run simulates).
func (m *forecastMemo) Store(key string, f forecast.Forecast) {
	file := memoFile{Kind: memoKind, Key: key, Software: m.w.Software, Forecast: f}
	mac, err := jsonmac.Sum(m.key, file)
	if err == nil {
		file.MAC = mac
		var b []byte
		if b, err = json.MarshalIndent(file, "", "  "); err == nil {
			err = atomicfile.Write(m.path(key), append(b, '\n'), 0o600)
		}
	}
	if err != nil {
		m.w.logger().Warn("could not keep a forecast", "file", m.path(key), "error", err)
	}
}

package answer

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"

	"github.com/graphcloak/graphcloak/internal/jsonmac"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// CalibrationsKind names the file of calibrations stored beside an
// answer certificate (Cache.Path + CalibrationsSuffix).
const CalibrationsKind = "graphcloak.answer-calibrations"

// CalibrationsSuffix is appended to an answer cache's path to name the
// file of its calibrations.
const CalibrationsSuffix = ".calibrations.json"

// Calibrations are the mechanisms calibrated on one answer model's
// geometry (its graph or quotient and partition), one per (ε, α, cap)
// request: they depend on the public graph, τ, T and partition only, and
// the envelope's takes minutes on large graphs at small ε.
type Calibrations struct {
	FileHeader
	// Geometry is the SHA-256 of the geometry's graph and partition.
	Geometry string             `json:"geometry"`
	Entries  []CalibrationEntry `json:"calibrations"`
	MAC      string             `json:"mac,omitempty"`
	// perm[i] is the key-order index of geometry node i (geometryOrder):
	// the entries' weights are stored in key order.
	perm []int
}

// CalibrationEntry is one stored calibration and its request.
type CalibrationEntry struct {
	Epsilon float64                   `json:"epsilon"`
	Alpha   float64                   `json:"alpha"`
	Cap     int                       `json:"cap"`
	Record  privacy.CalibrationRecord `json:"record"`
}

func (f Calibrations) mac(key []byte) (string, error) {
	f.MAC = ""
	return jsonmac.Sum(key, f)
}

// geometryOrder returns the key of the model's geometry — the SHA-256 of
// its graph's fingerprint in key order and the partition's ids in that
// order, numbered by first appearance — and perm[i], the key-order index
// of geometry node i. Calibrations are stored in that order, so that the
// same graph read in any order (plan sorts it; locate and serve do not)
// reuses them.
func geometryOrder(m *Model) (string, []int, error) {
	sorted, perm, err := laplacian.SortedByKey(m.Geometry.Graph())
	if err != nil {
		return "", nil, err
	}
	part := make([]int, len(perm))
	for i, c := range m.Geometry.Partition() {
		part[perm[i]] = c
	}
	h := sha256.New()
	h.Write([]byte(sorted.Fingerprint().SHA256))
	var b [8]byte
	for _, c := range byLowestMember(part) {
		binary.LittleEndian.PutUint64(b[:], uint64(c))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)), perm, nil
}

// sortedFingerprint is g's fingerprint in key order (what stored
// certificates and calibrations name).
func sortedFingerprint(g *laplacian.Graph) (laplacian.Fingerprint, error) {
	sorted, _, err := laplacian.SortedByKey(g)
	if err != nil {
		return laplacian.Fingerprint{}, err
	}
	return sorted.Fingerprint(), nil
}

// recordInOrder returns rec with its per-node weights moved by perm
// (to[perm[i]] = from[i]), or back (to[i] = from[perm[i]]).
func recordInOrder(rec privacy.CalibrationRecord, perm []int, back bool) privacy.CalibrationRecord {
	if rec.Envelope == nil || len(rec.Envelope.A) != len(perm) {
		return rec // RestoreCalibration refuses a record that does not fit
	}
	w := *rec.Envelope
	w.A = make([]int64, len(perm))
	for i, p := range perm {
		if back {
			w.A[i] = rec.Envelope.A[p]
		} else {
			w.A[p] = rec.Envelope.A[i]
		}
	}
	rec.Envelope = &w
	return rec
}

// KeyOrderRecord is cal's record with its per-node weights in the key
// order of m's geometry — the order the calibrations beside the
// certificate keep them in. The weights index the geometry's nodes (its
// classes on a quotient), not the graph's, and the geometry's order
// follows the order the graph was read in: one mechanism has one record
// here whichever order plan (sorted) or locate (as read) built it in.
func (m *Model) KeyOrderRecord(cal privacy.AnswerCalibration) (privacy.CalibrationRecord, error) {
	_, perm, err := geometryOrder(m)
	if err != nil {
		return privacy.CalibrationRecord{}, err
	}
	return recordInOrder(cal.Record(), perm, false), nil
}

// Calibrate returns privacy.CalibrateAnswer(ctx, m.Geometry, eps, alpha,
// capDist): the geometry's own when it calibrated it already, else one
// restored from the calibrations stored beside the certificate when they
// are of this model's geometry, authenticated under MACKey (when set) and
// verify (privacy.RestoreCalibration recomputes the worst loss over every
// edge), else calibrated and stored there. A nil cache, or one without a
// Path, only calibrates.
func (c *Cache) Calibrate(ctx context.Context, m *Model, eps, alpha float64, capDist int, log *slog.Logger) (privacy.AnswerCalibration, error) {
	if cal, ok := m.Geometry.CachedCalibration(eps, alpha, capDist); ok {
		return cal, nil
	}
	if c == nil || c.Path == "" {
		return privacy.CalibrateAnswer(ctx, m.Geometry, eps, alpha, capDist)
	}
	path := c.Path + CalibrationsSuffix
	file, err := c.loadCalibrations(m)
	var mac *CacheMACError
	switch {
	case err == nil:
		for _, e := range file.Entries {
			if e.Epsilon != eps || e.Alpha != alpha || e.Cap != capDist {
				continue
			}
			cal, err := privacy.RestoreCalibration(ctx, m.Geometry, eps, alpha, capDist, recordInOrder(e.Record, file.perm, true))
			if err == nil {
				log.Info("answer calibration reused from the cache", "cache", path, "epsilon", eps)
				return cal, nil
			}
			log.Warn("stored answer calibration unusable: recalibrating", "cache", path, "epsilon", eps, "error", err)
		}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrCacheMismatch):
		log.Debug("no answer calibrations of this model stored yet", "cache", path, "reason", err)
	case errors.As(err, &mac):
		log.Warn("answer calibrations not authenticated under the ledger key: recalibrating and replacing them", "cache", path, "reason", err)
	default:
		log.Warn("answer calibrations unreadable: recalibrating and replacing them", "cache", path, "error", err)
	}
	cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, alpha, capDist)
	if err != nil {
		return cal, err
	}
	if err := c.storeCalibration(m, file, CalibrationEntry{Epsilon: eps, Alpha: alpha, Cap: capDist, Record: cal.Record()}); err != nil {
		log.Warn("could not store the answer calibration", "cache", path, "error", err)
	}
	return cal, nil
}

// Kept reports which of epsilons Calibrate would restore for m at alpha
// and capDist rather than calibrate: those stored beside the certificate
// for m's geometry (their restore still checks their loss over every
// edge, and one failing it is calibrated again). A plan's bar counts only
// the rest (issue 79).
func (c *Cache) Kept(m *Model, epsilons []float64, alpha float64, capDist int) map[float64]bool {
	kept := map[float64]bool{}
	for _, eps := range epsilons {
		if _, ok := m.Geometry.CachedCalibration(eps, alpha, capDist); ok {
			kept[eps] = true
		}
	}
	if c == nil || c.Path == "" {
		return kept
	}
	file, err := c.loadCalibrations(m)
	if err != nil {
		return kept
	}
	for _, e := range file.Entries {
		if e.Alpha == alpha && e.Cap == capDist && slices.Contains(epsilons, e.Epsilon) {
			kept[e.Epsilon] = true
		}
	}
	return kept
}

// loadCalibrations reads the calibrations stored for m's geometry; its
// errors are Load's (fs.ErrNotExist, *CacheMACError,
// ErrCacheMismatch for another graph, τ, T, version or geometry).
func (c *Cache) loadCalibrations(m *Model) (*Calibrations, error) {
	f, err := c.readCalibrations(m.Graph, m.Tau, m.fit)
	if err != nil {
		return nil, err
	}
	key, perm, err := geometryOrder(m)
	if err != nil {
		return nil, err
	}
	if f.Geometry != key {
		return nil, fmt.Errorf("%w: calibrated on another partition", ErrCacheMismatch)
	}
	f.perm = perm
	return f, nil
}

// readCalibrations reads the calibrations stored beside the certificate
// of g at τ and k, whatever their geometry; its errors are
// loadCalibrations'.
func (c Cache) readCalibrations(g *laplacian.Graph, tau float64, k fitKey) (*Calibrations, error) {
	b, err := os.ReadFile(c.Path + CalibrationsSuffix)
	if err != nil {
		return nil, err
	}
	var f Calibrations
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("graphcloak: answer calibrations %s: %w", c.Path+CalibrationsSuffix, err)
	}
	if err := c.checkMAC(f.MAC, f.mac); err != nil {
		return nil, err
	}
	graph, err := sortedFingerprint(g)
	if err != nil {
		return nil, err
	}
	if err := f.matches(CalibrationsKind, graph, tau, k, c.Software); err != nil {
		return nil, err
	}
	return &f, nil
}

// storeCalibration writes the file with e added to (or replacing its
// request in) file's entries (file nil: a new file), sealed under MACKey.
func (c *Cache) storeCalibration(m *Model, file *Calibrations, e CalibrationEntry) error {
	if file == nil {
		graph, err := sortedFingerprint(m.Graph)
		if err != nil {
			return err
		}
		key, perm, err := geometryOrder(m)
		if err != nil {
			return err
		}
		file = &Calibrations{FileHeader: newAnswerFileHeader(CalibrationsKind, graph, m.Tau, m.Certifier.Tol(), m.fit, c.Software),
			Geometry: key, perm: perm}
	}
	e.Record = recordInOrder(e.Record, file.perm, false)
	kept := file.Entries[:0:0]
	for _, old := range file.Entries {
		if old.Epsilon != e.Epsilon || old.Alpha != e.Alpha || old.Cap != e.Cap {
			kept = append(kept, old)
		}
	}
	file.Entries, file.MAC = append(kept, e), ""
	var err error
	if file.MAC, err = c.seal(file.mac); err != nil {
		return err
	}
	return writeJSONFile(c.Path+CalibrationsSuffix, file)
}

// CalibratedEpsilons is the ε whose calibrations are stored beside the
// certificate of g at τ and opt (none on any error, whatever their α and
// cap): what plan --estimate does not price again. Calibrate still
// restores each and checks its loss on every edge.
func (c Cache) CalibratedEpsilons(g *laplacian.Graph, tau float64, opt recovery.CertifierOptions) []float64 {
	f, err := c.readCalibrations(g, tau, fitKeyOf(opt))
	if err != nil {
		return nil
	}
	var eps []float64
	for _, e := range f.Entries {
		if !slices.Contains(eps, e.Epsilon) {
			eps = append(eps, e.Epsilon)
		}
	}
	return eps
}

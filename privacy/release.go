package privacy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/graphcloak/graphcloak/laplacian"
)

// ReleaseRequest is one release of per-node values.
type ReleaseRequest struct {
	// Keys name the released values (node keys); unique and non-empty.
	// Values are the true values y_i, finite. They are never returned,
	// logged or printed.
	Keys   []string
	Values []float64
	// Sensitivity is the certified L2 sensitivity Δ2 of Values, > 0.
	Sensitivity float64
	// Epsilon and Delta are the (ε, δ) guarantee of this release alone.
	Epsilon, Delta float64
	// Mechanism: MechanismDefault or MechanismDiscrete (σ from the zCDP
	// accounting of the discrete Gaussian, CKS20) or MechanismClassic
	// (ε < 1, σ = √(2 ln(1.25/δ))·Δ_eff/ε, accepted only when its ρ also
	// meets (ε, δ) by CKS20). MechanismAnalytic is refused: its σ is
	// proven for continuous noise only.
	Mechanism Mechanism
	// Noise is the noise source; the zero value is CryptoNoise().
	Noise NoiseSource
	// Ledger is charged before any noise is drawn; required.
	Ledger Ledger
	// Scope is the ledger scope (the protected unit) and Epoch the
	// release / run id; (Scope, Epoch) is the release id charged once.
	Scope, Epoch string
	// GridExponent is k in the grid γ = 2^−k. 0 chooses the default: the
	// smallest k with σ/γ ≥ 2^10 and γ√n ≤ Δ·2^−10 (so the rounding
	// widens Δ by at most 0.1%), lowered if needed to keep σ/γ ≤ 2^25
	// (the sampler's fast range). A k ≠ 0 is used as given and must keep
	// 1 ≤ (σ/γ)² ≤ 2^50.
	GridExponent int
}

// Released is the public output of a release: per key, the grid index
// r_i = round(y_i/γ) + Z_i and the value γ·r_i. It contains no true value.
type Released struct {
	Keys   []string
	Values []float64 // γ·r_i (exact when |r_i| < 2^53)
	Grid   []int64   // r_i
	Meta   ReleaseMeta
}

// ReleaseMeta records how a release was made; it is public.
type ReleaseMeta struct {
	// Sigma is the noise standard deviation σ = γ·√σ̃² (rounded up).
	Sigma float64 `json:"sigma"`
	// Rho is the zCDP cost charged, Δ_eff²/(2σ²), rounded up.
	Rho float64 `json:"rho"`
	// Sensitivity is Δ2 as given; EffectiveSensitivity = Δ + γ√n is the
	// sensitivity of the rounded vector round(y/γ)·γ (rounded up).
	Sensitivity          float64 `json:"sensitivity"`
	EffectiveSensitivity float64 `json:"effectiveSensitivity"`
	// Epsilon and Delta are the (ε, δ) guaranteed for this release.
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// Mechanism is "discrete" or "classic"; Accounting names the proven
	// accounting: "zcdp-cks20" (ρ-zCDP of the discrete Gaussian, CKS20
	// Thm 14, converted to (ε, δ) by CKS20 Cor. 13).
	Mechanism  string `json:"mechanism"`
	Accounting string `json:"accounting"`
	Epoch      string `json:"epoch"`
	Scope      string `json:"scope"`
	// ReleaseID is the fresh random id (NewReleaseID) that enters the
	// keyed noise derivation: two releases never share noise. Empty only
	// in releases of sampler version 1.
	ReleaseID string `json:"releaseId,omitempty"`
	// SamplerVersion, GridExponent k and GridVariance σ̃² = (σ/γ)² fix
	// the sampler; Unmask needs them.
	SamplerVersion int    `json:"samplerVersion"`
	GridExponent   int    `json:"gridExponent"`
	GridVariance   uint64 `json:"gridVariance"`
	Keyed          bool   `json:"keyed"`
	N              int    `json:"n"`
	// KeyFingerprint identifies the noise key of a keyed release
	// (Key.Fingerprint); Unmask refuses another key.
	KeyFingerprint string `json:"keyFingerprint,omitempty"`
	// Provenance set by the caller that knows the measurement: the
	// diffusion time τ and radius α the sensitivity was computed for, the
	// graph's fingerprint, and the tool version. Locate and unmask take
	// τ from here and refuse another graph.
	Tau float64 `json:"tau,omitempty"`
	// Smooth is the extra diffusion τ′ applied before the noise (Tau
	// already includes it): the values are exp(−τ′L)·readings + noise.
	Smooth      float64                `json:"smooth,omitempty"`
	Alpha       float64                `json:"alpha,omitempty"`
	Graph       *laplacian.Fingerprint `json:"graph,omitempty"`
	ToolVersion string                 `json:"toolVersion,omitempty"`
	// SensitivityMethod and SensitivityExact say how Sensitivity was
	// obtained (sensitivity.Result.Method and Exact): the true Δ2 to
	// within its slack, or only a certified upper bound.
	SensitivityMethod string `json:"sensitivityMethod,omitempty"`
	SensitivityExact  bool   `json:"sensitivityExact,omitempty"`
	// Expected and Missing are set on a local release, collected from
	// sensors that add their own noise (package local): the number of
	// nodes the epoch order expected, and those of them that did not
	// report (they have no row; locate recovers from the rows present).
	Expected int      `json:"expected,omitempty"`
	Missing  []string `json:"missing,omitempty"`
}

// AccountingCKS20 is the ReleaseMeta.Accounting of discrete Gaussian
// releases.
const AccountingCKS20 = "zcdp-cks20"

// discreteCal is the calibration of one discrete Gaussian release.
type discreteCal struct {
	k                 int
	s2                uint64
	sigma, rho, sens2 float64
	mech              MechanismSpec
}

// calibrateDiscrete chooses the grid and σ̃² for n values of sensitivity Δ.
//
// Privacy argument. Let q = round(y/γ) ∈ ℤⁿ. For neighbours y, y',
// ‖q − q'‖₂ ≤ ‖y − y'‖₂/γ + ‖(rounding errors)‖₂ ≤ Δ/γ + √n, so q has
// lattice sensitivity Δ_eff/γ with Δ_eff = Δ + γ√n. Adding independent
// N_ℤ(0, σ̃²) per coordinate is ρ-zCDP with ρ = (Δ_eff/γ)²/(2σ̃²) =
// Δ_eff²/(2σ²) (CKS20 Thm 14, σ = γσ̃), and ρ-zCDP implies (ε, δ)-DP with
// δ = CKSDelta(ρ, ε) (CKS20 Cor. 13). Multiplying by γ is post-processing.
// σ̃² is rounded up to an integer and the final δ is checked.
func calibrateDiscrete(sens, eps, delta float64, n int, mech Mechanism, k int) (discreteCal, error) {
	if err := validateCalibration("Release", sens, eps, delta); err != nil {
		return discreteCal{}, err
	}
	row, err := ReleaseMechanism(mech)
	if err != nil {
		return discreteCal{}, err
	}
	sigmaOf := func(s float64) (float64, error) { return row.Sigma(s, eps, delta) }
	sigma0, err := sigmaOf(sens)
	if err != nil {
		return discreteCal{}, err
	}
	if k == 0 {
		k1 := int(math.Ceil(math.Log2(1024 / sigma0)))
		k2 := int(math.Ceil(math.Log2(1024 * math.Sqrt(float64(n)) / sens)))
		k = max(k1, k2)
		// σ grows by at most 0.1% + rounding through Δ_eff; keep a margin.
		for k > k1 && math.Ldexp(sigma0*1.01, k) > 1<<25 {
			k--
		}
		if k == 0 { // 0 means "default" in the request: step off it
			if k1 < 0 {
				k = -1
			} else {
				k = 1
			}
		}
	}
	if k < -60 || k > 60 {
		return discreteCal{}, &ArgumentError{Func: "Release", Param: "grid exponent", Value: k, Reason: "must be in [-60, 60]"}
	}
	sensEff := upperBig(func(z *big.Float) {
		z.SetInt64(int64(n))
		z.Sqrt(z)
		z.SetMantExp(z, -k)
		z.Add(z, new(big.Float).SetFloat64(sens))
	})
	sigma, err := sigmaOf(sensEff)
	if err != nil {
		return discreteCal{}, err
	}
	// s2 = ⌈(σ·2^k)²⌉ exactly.
	x := new(big.Float).SetPrec(256).SetFloat64(sigma)
	x.SetMantExp(x, k)
	x.Mul(x, x)
	s2i, acc := x.Int(nil)
	if acc == big.Below {
		s2i.Add(s2i, bigOne)
	}
	if s2i.Sign() <= 0 || !s2i.IsUint64() || s2i.Uint64() > maxSigma2 {
		return discreteCal{}, &ArgumentError{Func: "Release", Param: "grid exponent", Value: k,
			Reason: fmt.Sprintf("gives (σ/γ)² = %s outside [1, 2^50]; choose a coarser or finer grid", s2i)}
	}
	s2 := s2i.Uint64()
	for {
		rho := upperBig(func(z *big.Float) {
			num := new(big.Float).SetPrec(256).SetFloat64(sensEff)
			num.Mul(num, num)
			den := new(big.Float).SetPrec(256).SetUint64(s2)
			den.SetMantExp(den, -2*k+1)
			z.Quo(num, den)
		})
		if CKSDelta(rho, eps) <= delta {
			sig := upperBig(func(z *big.Float) {
				z.SetUint64(s2)
				z.Sqrt(z)
				z.SetMantExp(z, -k)
			})
			return discreteCal{k: k, s2: s2, sigma: sig, rho: rho, sens2: sensEff, mech: row}, nil
		}
		if !row.RoundsUp {
			return discreteCal{}, &ArgumentError{Func: "Release", Param: "mechanism", Value: row.Name,
				Reason: fmt.Sprintf("σ = %.6g does not meet (ε, δ) for the discrete Gaussian by the zCDP/CKS20 bound; use the default mechanism", gridSigma(s2, k))}
		}
		if s2 >= maxSigma2 {
			return discreteCal{}, &ArgumentError{Func: "Release", Param: "grid exponent", Value: k, Reason: "leaves no room to round σ up"}
		}
		s2++
	}
}

func gridSigma(s2 uint64, k int) float64 { return math.Ldexp(math.Sqrt(float64(s2)), -k) }

// upperBig evaluates f at 256 bits, rounding every step toward +∞, and
// returns the result rounded up to float64.
func upperBig(f func(z *big.Float)) float64 {
	z := new(big.Float).SetPrec(256).SetMode(big.ToPositiveInf)
	f(z)
	r := new(big.Float).SetPrec(53).SetMode(big.ToPositiveInf).Set(z)
	v, _ := r.Float64()
	return v
}

// Release charges the ledger and releases req.Values with discrete
// Gaussian noise on the grid γ = 2^−k:
//
//	r_i = round(y_i/γ) + Z_i,  Z_i ~ N_ℤ(0, σ̃²) i.i.d.,  released γ·r_i
//
// (Canonne, Kamath & Steinke 2020). σ is calibrated so that this release
// alone is (ε, δ)-DP by the zCDP accounting proven for the discrete
// Gaussian (see calibrateDiscrete); the ledger is charged ρ = Δ_eff²/(2σ²).
// This σ is about 8% larger than the analytic Gaussian's (4.0451 against
// 3.7306 at ε = 1, δ = 1e-5, Δ = 1): the exact Gaussian-DP curve of
// Calibrate is proven for continuous noise only.
//
// Order: validate everything; compute σ; Ledger.Charge(Scope, Epoch, ρ);
// only then draw noise (all of it, before touching the true values); then
// add. If the ledger refuses, Release returns its error (*BudgetError, or
// one wrapping ErrAlreadyCharged) and draws nothing. A retry of the same
// (Scope, Epoch) is therefore refused: the caller re-publishes the output
// it stored the first time (ReadReleaseFile, or the values in the
// database), or releases under a new epoch, which costs ρ again. Never
// re-draw: with keyed noise, a second draw for y' ≠ y would reveal y − y'.
//
// Release never returns, logs or prints the true values.
func Release(ctx context.Context, req ReleaseRequest) (*Released, error) {
	return release(ctx, req, "")
}

// release is Release with the release id given (releaseID ≠ "") instead
// of a fresh one. Only the bit-identity test of local releases calls it
// with an id: the id of a signed epoch order (package sensor), to show
// that the reports of the order's sensors equal the central keyed release
// of the same epoch. It is safe there because that id is fresh from
// crypto/rand per order and the order's (scope, epoch) is charged once:
// a second release under the same id, scope and epoch is refused by the
// ledger before any noise is drawn, so noise is never reused for other
// values. It stays unexported so that no caller can choose an id.
func release(ctx context.Context, req ReleaseRequest, releaseID string) (*Released, error) {
	n := len(req.Keys)
	if n == 0 {
		return nil, &ArgumentError{Func: "Release", Param: "keys", Reason: "must not be empty"}
	}
	if len(req.Values) != n {
		return nil, &ArgumentError{Func: "Release", Param: "values", Value: len(req.Values),
			Reason: fmt.Sprintf("values given for %d keys", n)}
	}
	if req.Ledger == nil {
		return nil, &ArgumentError{Func: "Release", Param: "ledger", Reason: "is required (charge before noise)"}
	}
	if req.Scope == "" || req.Epoch == "" {
		return nil, &ArgumentError{Func: "Release", Param: "scope and epoch", Reason: "must not be empty"}
	}
	if releaseID != "" {
		if err := checkReleaseID("Release", releaseID); err != nil {
			return nil, err
		}
	}
	seen := make(map[string]struct{}, n)
	for i, k := range req.Keys {
		if k == "" {
			return nil, &ArgumentError{Func: "Release", Param: fmt.Sprintf("keys[%d]", i), Reason: "is empty"}
		}
		if _, dup := seen[k]; dup {
			return nil, &ArgumentError{Func: "Release", Param: fmt.Sprintf("keys[%d]", i), Value: k,
				Reason: "is a duplicate (one derived key must produce one value)"}
		}
		seen[k] = struct{}{}
	}
	cal, err := calibrateDiscrete(req.Sensitivity, req.Epsilon, req.Delta, n, req.Mechanism, req.GridExponent)
	if err != nil {
		return nil, err
	}
	q := make([]int64, n)
	for i, y := range req.Values {
		s := math.Ldexp(y, cal.k) // exact scaling by a power of two
		if math.IsNaN(s) || math.Abs(s) > 1<<61 {
			// Do not print the value: it is secret.
			return nil, &ArgumentError{Func: "Release", Param: fmt.Sprintf("values[%d]", i),
				Reason: fmt.Sprintf("is not finite or too large for the grid 2^-%d", cal.k)}
		}
		q[i] = int64(math.Round(s))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := req.Ledger.Charge(ctx, Charge{Scope: req.Scope, ReleaseID: req.Epoch, Rho: cal.rho}); err != nil {
		if errors.Is(err, ErrAlreadyCharged) {
			return nil, fmt.Errorf("privacy: release %q of scope %q was charged before; re-publish its stored output, never re-draw: %w",
				req.Epoch, req.Scope, err)
		}
		return nil, err
	}
	// A fresh id per release, never reused: with keyed noise, two
	// releases of different readings never differ by y − y'.
	if releaseID == "" {
		releaseID = NewReleaseID()
	}
	p := noiseParams{version: cal.mech.Sampler, releaseID: releaseID, scope: req.Scope, epoch: req.Epoch, s2: cal.s2, k: cal.k}
	z, err := req.Noise.draw(p, req.Keys)
	if err != nil {
		return nil, err
	}
	out := &Released{
		Keys: append([]string(nil), req.Keys...), Values: make([]float64, n), Grid: make([]int64, n),
		Meta: ReleaseMeta{
			Sigma: cal.sigma, Rho: cal.rho, Sensitivity: req.Sensitivity, EffectiveSensitivity: cal.sens2,
			Epsilon: req.Epsilon, Delta: req.Delta, Mechanism: cal.mech.Name, Accounting: cal.mech.Accounting,
			Epoch: req.Epoch, Scope: req.Scope, ReleaseID: releaseID, SamplerVersion: cal.mech.Sampler, GridExponent: cal.k,
			GridVariance: cal.s2, Keyed: req.Noise.Keyed(), N: n,
		},
	}
	if req.Noise.key != nil {
		out.Meta.KeyFingerprint = req.Noise.key.Fingerprint()
	}
	for i := range q {
		r := q[i] + z[i] // |q| ≤ 2^61, |z| ≤ 2^62: no overflow
		out.Grid[i] = r
		out.Values[i] = math.Ldexp(float64(r), -cal.k)
	}
	clear(q)
	return out, nil
}

// Unmask regenerates the keyed noise of rel and returns the true values
// rounded to the grid, γ·(r_i − Z_i) = γ·round(y_i/γ), in rel.Keys order.
// It needs the key the release was made with; a wrong key gives wrong
// values (there is no way to tell), a non-keyed release or another sampler
// version is refused. Versions 1, 2 and 3 are accepted; a version 3
// release may have been assembled from sensors' reports (package sensor),
// whose noise the key holder regenerates from the same key.
func Unmask(key Key, rel *Released) ([]float64, error) {
	if rel == nil {
		return nil, &ArgumentError{Func: "Unmask", Param: "release", Reason: "is nil"}
	}
	m := rel.Meta
	if !m.Keyed {
		return nil, fmt.Errorf("privacy: unmask: release %q was drawn from crypto/rand, not a key: its noise cannot be regenerated", m.Epoch)
	}
	if m.KeyFingerprint != "" && m.KeyFingerprint != key.Fingerprint() {
		return nil, ErrWrongKey
	}
	switch v := m.SamplerVersion; {
	case v == 1:
	case v >= 2 && v <= LatestSamplerVersion():
		if err := checkReleaseID("Unmask", m.ReleaseID); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("privacy: unmask: release uses sampler version %d, this build implements 1 to %d", m.SamplerVersion, LatestSamplerVersion())
	}
	if len(rel.Grid) != len(rel.Keys) {
		return nil, &ArgumentError{Func: "Unmask", Param: "grid", Value: len(rel.Grid), Reason: fmt.Sprintf("has a length other than the %d keys", len(rel.Keys))}
	}
	if m.GridVariance < 1 || m.GridVariance > maxSigma2 {
		return nil, &ArgumentError{Func: "Unmask", Param: "gridVariance", Value: m.GridVariance, Reason: "is outside [1, 2^50]"}
	}
	z, err := keyedNoise(&key, noiseParams{version: m.SamplerVersion, releaseID: m.ReleaseID, scope: m.Scope, epoch: m.Epoch,
		s2: m.GridVariance, k: m.GridExponent}, rel.Keys)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(z))
	for i := range z {
		out[i] = math.Ldexp(float64(rel.Grid[i]-z[i]), -m.GridExponent)
	}
	return out, nil
}

// ReleaseCalibration is the σ, ρ and grid that Release would use.
type ReleaseCalibration struct {
	// Sigma is the released noise's standard deviation γ·√σ̃² (rounded up),
	// Rho the zCDP cost charged, EffectiveSensitivity Δ + γ√n.
	Sigma, Rho, EffectiveSensitivity float64
	GridExponent                     int
	GridVariance                     uint64
	Mechanism                        string
	// SamplerVersion is the keyed sampler that draws the noise (the
	// mechanism's row, MechanismSpec.Sampler), as an epoch order states it.
	SamplerVersion int
}

// CalibrateRelease returns exactly the calibration Release computes for n
// values of sensitivity Δ2 at (ε, δ) (the same function, grid widening
// included), for dry runs: the σ printed is the σ the release will use.
func CalibrateRelease(sensitivity, epsilon, delta float64, n int, mech Mechanism) (ReleaseCalibration, error) {
	if n <= 0 {
		return ReleaseCalibration{}, &ArgumentError{Func: "CalibrateRelease", Param: "n", Value: n, Reason: "must be > 0"}
	}
	cal, err := calibrateDiscrete(sensitivity, epsilon, delta, n, mech, 0)
	if err != nil {
		return ReleaseCalibration{}, err
	}
	return ReleaseCalibration{Sigma: cal.sigma, Rho: cal.rho, EffectiveSensitivity: cal.sens2, GridExponent: cal.k,
		GridVariance: cal.s2, Mechanism: cal.mech.Name, SamplerVersion: cal.mech.Sampler}, nil
}

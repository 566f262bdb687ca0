package graphcloak

import (
	"errors"
	"fmt"
	"github.com/graphcloak/graphcloak/errkind"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// ParamError reports an invalid request parameter. It never carries a true
// (private) value.
type ParamError struct {
	Param  string
	Reason string
	// reason is Reason naming parameters, when it does.
	reason errkind.Renderer
}

func (e *ParamError) Error() string { return e.RenderText(nil) }

// RenderText is its text naming parameters as name does.
func (e *ParamError) RenderText(name func(errkind.Param) string) string {
	return fmt.Sprintf("graphcloak: %s %s", e.Param, renderReason(e.Reason, e.reason, name))
}

// ErrMissingValue is wrapped by a *ValuesError when a node has no value.
var ErrMissingValue = errors.New("graphcloak: node has no value")

// Progress reports advancement of a long step ("sensitivity", "recovery",
// …) in units of work; it must be cheap. A nil Progress is allowed.
type Progress func(step string, done, total int)

func (p Progress) report(step string) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p(step, done, total) }
}

// EstimateRequest is the input of Estimate: what a release would compute,
// without computing it.
type EstimateRequest struct {
	Graph *laplacian.Graph
	// Tau, Alpha, Epsilon, Delta as in ReleaseRequest.
	Tau, Alpha, Epsilon, Delta float64
	// Mechanism as in ReleaseRequest (default: discrete).
	Mechanism privacy.Mechanism
	// Sensitivity, when non-nil, is a Δ2 already computed; otherwise
	// Estimate reports the proven bound Δ2 ≤ α·√2 (exp(−τL) is a
	// contraction, so ‖exp(−τL)(e_i − e_j)‖₂ ≤ ‖e_i − e_j‖₂ = √2) and
	// the σ that bound would need — an upper bound on the real σ.
	Sensitivity *sensitivity.Result
	// DenseLimit is the largest n the sensitivity computes densely.
	// Default 2500 (sensitivity.Options' default).
	DenseLimit int
}

// ReleaseEstimate is a dry-run estimate. Nothing is written, charged or drawn.
type ReleaseEstimate struct {
	NodeCount         int     `json:"nodeCount"`
	RelationshipCount int     `json:"relationshipCount"`
	Components        int     `json:"components"`
	Method            string  `json:"method"` // "dense", "columns" or "lanczos" (the sensitivity computation)
	BytesEstimate     int64   `json:"bytesEstimate"`
	SecondsEstimate   float64 `json:"secondsEstimate"`
	Delta2            float64 `json:"delta2"`
	Delta2Exact       bool    `json:"delta2Exact"` // false: Δ2 is the α√2 upper bound
	Sigma             float64 `json:"sigma"`       // exactly the σ Release uses for Delta2 (grid widening included)
	Rho               float64 `json:"rho"`
	Mechanism         string  `json:"mechanism"`
}

// Estimate plans a release of values on req.Graph: node and edge counts,
// which sensitivity method would run, its memory and time under a simple
// cost model, and σ. It writes, charges and draws nothing.
//
// The method and its modelled cost come from sensitivity.ChooseMethod,
// the chooser sensitivity.Graph itself follows.
func Estimate(req EstimateRequest) (*ReleaseEstimate, error) {
	g := req.Graph
	if g == nil || g.N() == 0 {
		return nil, laplacian.ErrEmptyGraph
	}
	if err := checkParams(req.Tau, req.Alpha, req.Epsilon, req.Delta); err != nil {
		return nil, err
	}
	comps, _ := g.Components()
	p := &ReleaseEstimate{NodeCount: g.N(), RelationshipCount: g.NumEdges(), Components: comps}
	// The same chooser sensitivity.Graph follows, so the dry run names the
	// method the release will use.
	sp := sensitivity.ChooseMethod(g, req.Tau, sensitivity.Options{DenseLimit: req.DenseLimit})
	p.Method, p.SecondsEstimate, p.BytesEstimate = sp.Name(), sp.Seconds, sp.Bytes
	return p.Recalibrate(req)
}

// Recalibrate returns e with req's Δ2 (its Sensitivity, or the √2·α
// bound without one) and the σ and ρ it calibrates at req's ε, δ and
// mechanism — Estimate once Δ2 is known, its modelled method, time and
// memory kept, not modelled again (the model times bounds on the graph:
// seconds on 10⁴–10⁵ nodes). req must be e's graph and τ.
func (e ReleaseEstimate) Recalibrate(req EstimateRequest) (*ReleaseEstimate, error) {
	p := &e
	g := req.Graph
	if err := checkParams(req.Tau, req.Alpha, req.Epsilon, req.Delta); err != nil {
		return nil, err
	}
	p.Delta2Exact = false
	if req.Sensitivity != nil {
		p.Delta2, p.Delta2Exact = req.Sensitivity.Delta2, req.Sensitivity.Exact
	} else {
		p.Delta2 = math.Nextafter(req.Alpha*math.Sqrt2, math.Inf(1))
	}
	if g.NumEdges() == 0 {
		p.Delta2, p.Delta2Exact = 0, true
	}
	mech := req.Mechanism.Resolve()
	p.Mechanism = mech.String()
	p.Sigma, p.Rho = 0, 0
	if p.Delta2 > 0 {
		cal, err := privacy.CalibrateRelease(p.Delta2, req.Epsilon, req.Delta, g.N(), mech)
		if err != nil {
			return nil, err
		}
		p.Sigma, p.Rho = cal.Sigma, cal.Rho
	}
	return p, nil
}

// checkParams validates τ, α, ε, δ before any work.
// MaxTau and MaxAlpha bound the diffusion time and the neighbourhood
// radius a release accepts; beyond them the numbers (Δ2, σ, time
// estimates) leave the range where float64 holds them honestly.
const (
	MaxTau   = 1e6
	MaxAlpha = 1e12
)

// CheckDiffusion refuses τ above MaxTau and α above MaxAlpha (a *ParamError,
// bad input).
func CheckDiffusion(tau, alpha float64) error {
	if tau > MaxTau {
		return &ParamError{Param: "tau", Reason: fmt.Sprintf("= %g is outside the supported range (0, %g]: exp(−τL) has long reached equilibrium and its sensitivity underflows", tau, MaxTau)}
	}
	if alpha > MaxAlpha {
		return &ParamError{Param: "alpha", Reason: fmt.Sprintf("= %g is outside the supported range (0, %g]", alpha, MaxAlpha)}
	}
	return nil
}

// CheckParams validates τ, α, ε and δ of a release or estimate (a
// *ParamError naming the parameter), before anything is computed or charged.
func CheckParams(tau, alpha, eps, delta float64) error { return checkParams(tau, alpha, eps, delta) }

func checkParams(tau, alpha, eps, delta float64) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"tau", tau}, {"alpha", alpha}, {"epsilon", eps}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) || c.v <= 0 {
			return &ParamError{Param: c.name, Reason: fmt.Sprintf("must be finite and > 0, got %v", c.v)}
		}
	}
	if err := CheckDiffusion(tau, alpha); err != nil {
		return err
	}
	if math.IsNaN(delta) || delta <= 0 || delta >= 1 {
		return &ParamError{Param: "delta", Reason: fmt.Sprintf("must be in (0, 1), got %v", delta)}
	}
	return nil
}

package recovery

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/graphcloak/graphcloak/errkind"
)

// Status is the outcome of an estimate. Estimators never invent an
// answer: an infeasible problem or an undetectable source is reported as
// such.
type Status int

const (
	// Solved means F is a solution; for BPDN Gap certifies it.
	Solved Status = iota
	// Infeasible means no f in the box fits the data within η; for BPDN a
	// dual ray proves it (DualBound is +Inf).
	Infeasible
	// NoSource means f = 0 is optimal: ‖ỹ‖ ≤ η (BPDN), or the data give
	// no evidence for a source.
	NoSource
)

func (s Status) String() string {
	switch s {
	case Solved:
		return "solved"
	case Infeasible:
		return "infeasible"
	case NoSource:
		return "no-source"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalText makes Status print as its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Estimate is the result of an Estimator.
type Estimate struct {
	// F is the recovered mass per location (≥ 0). It is all zeros for
	// NoSource and nil for Infeasible.
	F []float64
	// Posterior is a probability per location (sums to 1), nil for
	// estimators that are not probabilistic. For k > 1 sources it is the
	// average of the k conditional posteriors (see posterior.go).
	Posterior []float64
	// Locations are the selected source locations (greedy estimators),
	// in order of selection; nil otherwise.
	Locations []int
	Status    Status
	// Objective is 1ᵀF for BPDN, the negative log-likelihood
	// ‖ỹ − MF‖²/2σ² for the likelihood estimators.
	Objective float64
	// DualBound is a certified lower bound on the BPDN optimum (weak
	// duality); Gap = Objective − DualBound ≥ 0. Both are NaN for
	// estimators without a certificate.
	DualBound, Gap float64
	// Residual is ‖MF − ỹ‖₂ (for BPDN, in the mode-truncated model).
	Residual float64
	// Eta is the noise radius η used by BPDN (NaN otherwise).
	Eta float64
	// LogEvidence is log p(ỹ | best single source) − log p(ỹ | no source)
	// for the likelihood estimators (NaN otherwise).
	LogEvidence float64
	Iterations  int
}

// Estimator recovers sources from a Problem.
type Estimator interface {
	Name() string
	Estimate(p *Problem) (*Estimate, error)
}

// Estimator names accepted by ByName.
const (
	NamePosterior = "posterior"
	NameGreedy    = "greedy"
	NameMassLS    = "massls"
	NameBPDN      = "bpdn"
	// Default is the estimator chosen by measurement (see the package
	// documentation and bench/recovery): the source-location posterior.
	Default = NamePosterior
)

// Names lists the estimators ByName knows, default first.
func Names() []string {
	return []string{NamePosterior, NameGreedy, NameMassLS, NameBPDN}
}

// ErrUnknownEstimator is returned by ByName for a name it does not know.
var ErrUnknownEstimator = errkind.New(errkind.BadInput, "recovery: unknown estimator")

// ByName returns the estimator with the given name and default options.
// The empty name means Default.
func ByName(name string) (Estimator, error) {
	switch name {
	case "", NamePosterior:
		return Posterior{}, nil
	case NameGreedy:
		return Greedy{}, nil
	case NameMassLS:
		return MassLS{}, nil
	case NameBPDN:
		return BPDN{}, nil
	}
	names := Names()
	sort.Strings(names)
	return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownEstimator, name, names)
}

// EtaRule chooses the BPDN noise radius η.
type EtaRule int

const (
	// EtaTail is η = σ·sqrt(m + 2·sqrt(m·t) + 2t), t = ln(1/β): the
	// Laurent–Massart chi-square tail bound, so that the true source is
	// feasible with probability ≥ 1 − β. The default.
	EtaTail EtaRule = iota
	// EtaPaper is the paper's η = σ·√m (the true source is infeasible
	// about half of the time).
	EtaPaper
)

func (r EtaRule) String() string {
	if r == EtaPaper {
		return "paper"
	}
	return "tail"
}

// Eta returns η for m sensors, noise σ and the rule; beta ≤ 0 means 0.01.
func (r EtaRule) Eta(m int, sigma, beta float64) float64 {
	fm := float64(m)
	if r == EtaPaper {
		return sigma * math.Sqrt(fm)
	}
	if !(beta > 0) {
		beta = 0.01
	}
	t := math.Log(1 / beta)
	return sigma * math.Sqrt(fm+2*math.Sqrt(fm*t)+2*t)
}

// ErrOperatorOnly is returned by estimators that need the spectral
// (dense) representation when the problem only has an operator action.
var ErrOperatorOnly = errkind.New(errkind.BadInput, "recovery: estimator needs a dense (spectral) problem; raise DenseLimit")

// ErrBadProblem wraps validation failures of a Problem.
var ErrBadProblem = errkind.New(errkind.BadInput, "recovery: invalid problem")

// NotCertifiedError is returned when BPDN stops before its certified
// relative gap reaches the tolerance. If a feasible point was found it is
// returned alongside (Status Solved, with its honest Gap); if neither a
// feasible point nor an infeasibility proof was found the estimate is nil
// and Gap is +Inf.
type NotCertifiedError struct {
	Gap, Objective, Tol float64
	Iterations          int
}

func (e *NotCertifiedError) Error() string {
	return fmt.Sprintf("recovery: bpdn not certified: gap %.3g on objective %.6g exceeds tolerance %.3g after %d steps",
		e.Gap, e.Objective, e.Tol, e.Iterations)
}

// Solve runs est on p and tolerates a BPDN run that stops short of its
// certified duality gap: the estimate it returns alongside a
// *NotCertifiedError is still the best point found and is used (its Gap
// says how far from optimal it is). Any other error is returned.
func Solve(est Estimator, p *Problem) (*Estimate, error) {
	e, err := est.Estimate(p)
	var nc *NotCertifiedError
	if err != nil && !(errors.As(err, &nc) && e != nil) {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("recovery: estimator %s returned no estimate", est.Name())
	}
	return e, nil
}

// NoSource reports whether the estimate found no detectable source: the
// estimator said so (NoSource) or no f in the box fits the data
// (Infeasible).
func (e *Estimate) NoSource() bool { return e.Status != Solved || e.F == nil }

// Weights is the per-location weight to rank locations and communities by:
// the posterior when the estimator has one, else the recovered mass F. It
// is nil when NoSource.
func (e *Estimate) Weights() []float64 {
	if e.NoSource() {
		return nil
	}
	if e.Posterior != nil {
		return e.Posterior
	}
	return e.F
}

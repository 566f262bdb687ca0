package textreport

import (
	"fmt"
	"strings"

	"github.com/graphcloak/graphcloak/privacy"
)

// ExactNode says the exact node's privacy for a source of e.Mass, named
// as subject ("a source of 30 units", "one protected unit"): its per-hop
// ε and whether its exact node is private, and from which mass on it is
// not (docs/guarantee.md, "Heavy sources").
func ExactNode(e privacy.ExactNode, subject string) string {
	head := fmt.Sprintf("%s%s moved one hop: ε = %s at δ = %g", subject, protectedUnits(e), epsilon(e.Epsilon), e.Delta)
	if !e.Private {
		return head + fmt.Sprintf(" — its exact node is NOT private (ε > %g above %s: a per-node release protects one unit α moved one hop, "+
			"a heavier source less; the private answer protects the whole source)", e.EpsilonLimit, massUnits(e.NotPrivateAbove))
	}
	return head + fmt.Sprintf(" — its exact node is private at that ε; a heavier source is less protected: above %s (ε > %g) the exact node is NOT private",
		massUnits(e.NotPrivateAbove), e.EpsilonLimit)
}

// ExactNodeCurve says a per-node forecast's exact-node privacy by source
// mass (every decade and the largest, as MassCurve) and from which mass
// on the exact node is not private; es must not be empty.
func ExactNodeCurve(es []privacy.ExactNode) string {
	var b strings.Builder
	for i, e := range es {
		if i%2 == 1 && i != len(es)-1 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(&b, "%g: %s", e.Mass, epsilon(e.Epsilon))
	}
	e := es[0]
	return fmt.Sprintf("exact node by source mass (units: ε per hop at δ = %g): %s — NOT private above %s (ε > %g: a per-node release protects one unit α = %g moved one hop, "+
		"a heavier source less; the private answer protects the whole source, whatever its mass)",
		e.Delta, b.String(), massUnits(e.NotPrivateAbove), e.EpsilonLimit, e.Alpha)
}

// protectedUnits says how many protected units a mass is when α ≠ 1
// (" (30 protected units of α = 1)"), nothing when they are the same.
func protectedUnits(e privacy.ExactNode) string {
	if e.Alpha == 1 {
		return ""
	}
	return fmt.Sprintf(" (%.3g protected units of α = %g)", e.ProtectedUnits, e.Alpha)
}

// massUnits says a mass: "1 unit", "2.19 units".
func massUnits(m float64) string {
	if m == 1 {
		return "1 unit"
	}
	return fmt.Sprintf("%.3g units", m)
}

// epsilon says an ε to three digits, whole numbers in full below 10⁶
// ("0.322", "4", "457", "6314", "1.25e+07").
func epsilon(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.3g", x)
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

package sensor

import (
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// Mechanism is a noise mechanism a sensor draws: the rows of privacy's
// mechanism table (privacy.Mechanisms) that run at a sensor, copied
// because a sensor builds without privacy (TestImportRules).
// privacy.TestSensorMechanismsAgree holds the copy equal to the table.
type Mechanism struct {
	Name string
	// Sampler is the keyed sampler version an order names (Sampler
	// .Version); Accounting what the release records of its ρ.
	Sampler    int
	Accounting string
}

// Mechanisms are the mechanisms a sensor draws, one per sampler version.
var Mechanisms = []Mechanism{
	{Name: "discrete", Sampler: keyednoise.Version3, Accounting: "zcdp-cks20"},
}

// drawsSampler reports whether a sensor draws sampler version v.
func drawsSampler(v int) bool {
	for _, m := range Mechanisms {
		if m.Sampler == v {
			return true
		}
	}
	return false
}

// samplerVersions lists the versions a sensor draws: "3", "3 or 4".
func samplerVersions() string {
	vs := make([]string, len(Mechanisms))
	for i, m := range Mechanisms {
		vs[i] = strconv.Itoa(m.Sampler)
	}
	return strings.Join(vs, " or ")
}

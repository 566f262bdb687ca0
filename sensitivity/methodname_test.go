package sensitivity

import (
	"testing"

	"github.com/graphcloak/graphcloak/expm"
)

func TestMethodByName(t *testing.T) {
	for _, name := range MethodNames {
		m, s, ok := MethodByName(name)
		if !ok {
			t.Errorf("%s: unknown", name)
		}
		if (name == "dense") != (m == expm.Dense) || (name == "columns") != (s == SchemeColumns) {
			t.Errorf("%s: method %v, scheme %v", name, m, s)
		}
	}
	if _, _, ok := MethodByName("fast"); ok {
		t.Error("an unknown name was taken")
	}
}

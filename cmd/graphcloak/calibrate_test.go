package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestCalibrateJSON(t *testing.T) {
	// Reference σ for Δ = 1 from docs/derivations.md §4 (scales linearly in Δ).
	for _, c := range []struct {
		eps, delta, sens, sigma string
		want                    float64
	}{
		{"1", "1e-5", "1", "", 3.730632},
		{"0.5", "1e-5", "2", "", 2 * 7.031827},
		{"4", "1e-6", "1", "", 1.193519},
	} {
		out, code, err := runPrivacyCLI(t, "calibrate", "--sensitivity", c.sens, "--epsilon", c.eps, "--delta", c.delta, "--mechanism", "analytic", "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %v", code, err)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		sigma, _ := r["sigma"].(float64)
		rho, _ := r["rho"].(float64)
		if math.Abs(sigma-c.want) > 1e-5*c.want || r["mechanism"] != "analytic" {
			t.Errorf("ε=%s: %v", c.eps, r)
		}
		sens := map[string]float64{"1": 1, "2": 2}[c.sens]
		if math.Abs(rho-sens*sens/(2*sigma*sigma)) > 1e-12 {
			t.Errorf("ρ = %v, want Δ²/2σ²", rho)
		}
		if ds, _ := r["discreteSigma"].(float64); ds <= sigma {
			t.Errorf("discrete σ %v not above analytic %v", ds, sigma)
		}
	}
	out, code, err := runPrivacyCLI(t, "calibrate", "--sensitivity", "1", "--epsilon", "1", "--delta", "1e-5", "--mechanism", "analytic")
	if code != 0 || !strings.Contains(out, "3.73063") {
		t.Errorf("table: exit %d %v\n%s", code, err, out)
	}
	// The default is release's, the discrete Gaussian
	// (it was analytic), and GRAPHCLOAK_PRIVACY_MECHANISM reaches it.
	isolateConfig(t)
	out, code, err = runPrivacyCLI(t, "calibrate", "--sensitivity", "1", "-o", "json")
	var r map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r["mechanism"] != "discrete" || r["sigma"] != r["discreteSigma"] {
		t.Errorf("calibrate's default mechanism: exit %d %v\n%s", code, err, out)
	}
	t.Setenv("GRAPHCLOAK_PRIVACY_MECHANISM", "classic")
	if _, code, err = runPrivacyCLI(t, "calibrate", "--sensitivity", "1", "--epsilon", "0.5", "-o", "json"); code != 0 {
		t.Errorf("classic from the environment: exit %d %v", code, err)
	}
}

func TestCalibrateErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--sensitivity", "1", "--epsilon", "1", "--delta", "1e-5", "--mechanism", "classic"}, exitBadInput, "analytic"},
		{[]string{"--sensitivity", "1", "--epsilon", "0", "--delta", "1e-5"}, exitBadInput, "epsilon"},
		{[]string{"--sensitivity", "1", "--epsilon", "1", "--delta", "1"}, exitBadInput, "delta"},
		{[]string{"--sensitivity", "-2", "--epsilon", "1", "--delta", "1e-5"}, exitBadInput, "sensitivity"},
		{[]string{"--sensitivity", "NaN", "--epsilon", "1", "--delta", "1e-5"}, exitBadInput, "sensitivity"},
		{[]string{"--epsilon", "1", "--delta", "1e-5"}, exitUsage, "--sensitivity"},
		{[]string{"--sensitivity", "1", "--epsilon", "1", "--delta", "1e-5", "--mechanism", "laplace"}, exitUsage, "--mechanism"},
		{[]string{"--sensitivity", "x", "--epsilon", "1", "--delta", "1e-5"}, exitUsage, "sensitivity"},
	} {
		_, code, err := runPrivacyCLI(t, append([]string{"calibrate"}, c.args...)...)
		if code != c.code || err == nil || !strings.Contains(errorMessage(err), c.want) {
			t.Errorf("%v: exit %d, err %v; want exit %d mentioning %q", c.args, code, err, c.code, c.want)
		}
	}
}

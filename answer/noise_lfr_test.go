package answer

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestNoisyReadingsAccuracy (issue 70 goal (c)) is a driver, skipped
// unless GRAPHCLOAK_NOISE_GRAPH, _COMMUNITIES, _READINGS and _CACHE are
// set: the answer model stored by plan --sensor-noise ν --answer-cache
// (same graph, τ = 1, ν = GRAPHCLOAK_NOISE_NU), calibrated at
// GRAPHCLOAK_NOISE_EPSILON, answers each column of the readings file
// (bench/answer/noisy_readings.py: scipy's expm_multiply and fresh
// Gaussian noise, the header naming each column's source) as locate
// --private-answer does — the real fit (Model.FitReadings), refusal
// counted as wrong — and logs the mean chance the answer names the
// source's own community, beside the audit's noiseless accuracy.
func TestNoisyReadingsAccuracy(t *testing.T) {
	graph, comm, readings, cache := os.Getenv("GRAPHCLOAK_NOISE_GRAPH"), os.Getenv("GRAPHCLOAK_NOISE_COMMUNITIES"),
		os.Getenv("GRAPHCLOAK_NOISE_READINGS"), os.Getenv("GRAPHCLOAK_NOISE_CACHE")
	if graph == "" || comm == "" || readings == "" || cache == "" {
		t.Skip("GRAPHCLOAK_NOISE_GRAPH, _COMMUNITIES, _READINGS and _CACHE name the inputs")
	}
	nu, _ := strconv.ParseFloat(os.Getenv("GRAPHCLOAK_NOISE_NU"), 64)
	eps, _ := strconv.ParseFloat(os.Getenv("GRAPHCLOAK_NOISE_EPSILON"), 64)
	g, err := laplacian.LoadCSV(graph, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	part := readCommunities(t, g, comm)
	raw, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	var hdr struct {
		Software string `json:"software"`
	}
	if err := json.Unmarshal(raw, &hdr); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := &Cache{Path: cache, Software: hdr.Software}
	m, err := c.Model(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: nu}, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !m.restored {
		t.Fatal("the model was recomputed, not restored from the cache")
	}
	cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := m.Audit(ctx, cal)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(readings)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	S := len(rows[0]) - 1
	Y := make([][]float64, S)
	for k := range Y {
		Y[k] = make([]float64, g.N())
	}
	for _, r := range rows[1:] {
		i, ok := g.IndexOf(r[0])
		if !ok {
			t.Fatalf("node %s not in the graph", r[0])
		}
		for k := 0; k < S; k++ {
			if Y[k][i], err = strconv.ParseFloat(r[k+1], 64); err != nil {
				t.Fatal(err)
			}
		}
	}
	sum, refused, wrongClass, noiseless := 0.0, 0, 0, 0.0
	for k := 0; k < S; k++ {
		s, ok := g.IndexOf(rows[0][k+1])
		if !ok {
			t.Fatalf("source %s not in the graph", rows[0][k+1])
		}
		noiseless += audit.OwnCommunity()[s]
		node, _, err := m.FitReadings(Y[k], MismatchRefuse)
		if err != nil {
			refused++
			continue
		}
		if m.node(node) != m.node(s) {
			wrongClass++
		}
		if own := m.community[s]; own >= 0 {
			sum += cal.ProbabilitiesAt(m.Geometry, m.node(node))[own]
		}
	}
	acc := sum / float64(S)
	se := math.Sqrt(acc * (1 - acc) / float64(S))
	t.Logf("ν %g ε %g: %d sources, %d refused, %d fitted outside their class; accuracy with noise %.4f (± %.4f), "+
		"the same sources' noiseless accuracy %.4f, the audit's over every source %.4f; δ₀ %.3g",
		nu, eps, S, refused, wrongClass, acc, se, noiseless/float64(S), audit.Accuracy, m.NoiseDelta())
}

package expm

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNewActionChoice(t *testing.T) {
	small := completeGraph(t, 10)
	big := randomGraph(t, 3000, 4, false, 9)
	tests := []struct {
		name string
		g    interface{ N() int }
		opt  Options
		want Method
	}{
		{"small dense graph, auto", small, Options{}, Dense},
		{"small graph, forced sparse", small, Options{Method: Sparse}, Sparse},
		{"above limit, auto", big, Options{DenseLimit: 1000}, Sparse},
		{"sparse graph, one column", big, Options{Columns: 1, Tol: 1e-8}, Sparse},
	}
	for _, tt := range tests {
		g := small
		if tt.g.N() != small.N() {
			g = big
		}
		a, err := NewAction(g, 0.5, tt.opt)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if a.Method() != tt.want || a.N() != g.N() {
			t.Errorf("%s: method %v n %d, want %v", tt.name, a.Method(), a.N(), tt.want)
		}
	}
}

func TestNewActionRefusesDenseAboveLimit(t *testing.T) {
	g := pathGraph(t, 50)
	_, err := NewAction(g, 1, Options{Method: Dense, DenseLimit: 49})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.N != 50 || tl.Limit != 49 {
		t.Fatalf("got %v, want *TooLargeError", err)
	}
}

func TestNewActionValidation(t *testing.T) {
	g := pathGraph(t, 5)
	for _, tt := range []struct {
		tau  float64
		opt  Options
		name string
	}{
		{0, Options{}, "tau"}, {math.Inf(1), Options{}, "tau"}, {1, Options{Tol: 2}, "tol"}, {1, Options{Tol: -1}, "tol"},
	} {
		_, err := NewAction(g, tt.tau, tt.opt)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("τ=%v %+v: got %v", tt.tau, tt.opt, err)
		}
	}
	if _, err := NewAction(g, 1, Options{Method: Method(7)}); err == nil {
		t.Error("unknown method accepted")
	}
}

// TestNewActionDefaultTolFallsBack: with the default Tol a large a gets twice
// the rounding floor instead of an error; an explicit Tol is refused.
func TestNewActionDefaultTolFallsBack(t *testing.T) {
	g := randomGraph(t, 300, 40, true, 8)
	a, err := NewAction(g, 20, Options{Method: Sparse})
	if err != nil {
		t.Fatal(err)
	}
	if !(a.ErrorBound() > DefaultTol) || a.ErrorBound() > 1e-9 {
		t.Errorf("bound %g", a.ErrorBound())
	}
	_, err = NewAction(g, 20, Options{Method: Sparse, Tol: 1e-12})
	var te *ToleranceError
	if !errors.As(err, &te) {
		t.Errorf("got %v, want *ToleranceError", err)
	}
}

// TestActionsAgree: dense and sparse actions agree within the sum of their bounds.
func TestActionsAgree(t *testing.T) {
	g := randomGraph(t, 120, 5, true, 4)
	n := g.N()
	d, err := NewAction(g, 1.3, Options{Method: Dense})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewAction(g, 1.3, Options{Method: Sparse, Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	const b = 4
	x := make([]float64, n*b)
	for i := 0; i < n; i++ {
		x[i*b+i%b] = 1
	}
	y1, y2 := make([]float64, n*b), make([]float64, n*b)
	d.Apply(y1, x, b)
	s.Apply(y2, x, b)
	var diff mat.Dense
	diff.Sub(mat.NewDense(n, b, y1), mat.NewDense(n, b, y2))
	for c := 0; c < b; c++ {
		col := mat.Col(nil, c, &diff)
		xn := mat.Norm(mat.NewVecDense(n, mat.Col(nil, c, mat.NewDense(n, b, x))), 2)
		if e := mat.Norm(mat.NewVecDense(n, col), 2); e > (d.ErrorBound()+s.ErrorBound())*xn {
			t.Errorf("column %d differs by %g > %g", c, e, (d.ErrorBound()+s.ErrorBound())*xn)
		}
	}
}

func TestMethodString(t *testing.T) {
	for m, want := range map[Method]string{Auto: "auto", Dense: "dense", Sparse: "sparse", Method(9): "Method(9)"} {
		if m.String() != want {
			t.Errorf("%d: %q", int(m), m.String())
		}
	}
}

package privacy

import (
	"math/big"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// The sampler and the key derivation moved to package keyednoise. The
// names below keep privacy's sampler tests (dgauss_test.go, keys_test.go,
// dgauss_bench_test.go) as they were, running against keyednoise: the
// golden vectors of versions 1 and 2 check that the move changed no output.

type u128 struct{ hi, lo uint64 }

func (a u128) kn() keyednoise.U128 { return keyednoise.U128{Hi: a.hi, Lo: a.lo} }

func (a u128) big() *big.Int {
	x := new(big.Int).SetUint64(a.hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(a.lo))
}

func uniform64(src bitSource, m uint64) uint64 { return keyednoise.Uniform64(src, m) }

func uniform128(src bitSource, m u128) u128 {
	r := keyednoise.Uniform128(src, m.kn())
	return u128{r.Hi, r.Lo}
}

func uniformBig(src bitSource, m *big.Int) *big.Int { return keyednoise.UniformBig(src, m) }

func bernExp128(src bitSource, n, d u128) bool { return keyednoise.BernExp128(src, n.kn(), d.kn()) }

func bernExpBig(src bitSource, n, d *big.Int) bool { return keyednoise.BernExpBig(src, n, d) }

func dgaussBig(src bitSource, s2 *big.Int) *big.Int { return keyednoise.DiscreteGaussianBig(src, s2) }

func isqrt(x uint64) uint64 { return keyednoise.Isqrt(x) }

type dgauss struct{ g keyednoise.Gaussian }

func newDGauss(s2 uint64) dgauss { return dgauss{keyednoise.NewGaussian(s2)} }

func (g dgauss) sample(src bitSource) int64 { return g.g.Sample(src) }

type chachaSource struct{ keyednoise.Stream }

func (s *chachaSource) reset(key []byte) { s.Reset(key) }

const hkdfSalt = keyednoise.NoiseSalt

type deriver struct{ d *keyednoise.Deriver }

// newDeriver is keyednoise.NewDeriver from the master key (version 0 means
// SamplerVersion).
func newDeriver(key *Key, p noiseParams) (*deriver, error) {
	d, err := keyednoise.NewDeriver((*[KeySize]byte)(key), p.keyed())
	if err != nil {
		return nil, err
	}
	return &deriver{d}, nil
}

func (d *deriver) infoFor(node string, stream uint32) []byte { return d.d.Info(node, stream) }

func (d *deriver) derive(node string, stream uint32) []byte { return d.d.Derive(node, stream) }

package privacy

// UnmaskReport is a keyed release with its noise removed (Unmask), node by
// node. It holds the true values: treat it as secret.
type UnmaskReport struct {
	Scope        string      `json:"scope"`
	Epoch        string      `json:"epoch"`
	ReleaseID    string      `json:"releaseId,omitempty"`
	GridExponent int         `json:"gridExponent"`
	N            int         `json:"nodeCount"`
	Rows         []UnmaskRow `json:"rows"`
}

// UnmaskRow is one node's value without noise beside its released value.
type UnmaskRow struct {
	Key      string  `json:"key"`
	Value    float64 `json:"value"`
	Released float64 `json:"released"`
}

// Unmasked removes the keyed noise of rel with key (Unmask) and reports
// each node's value beside the released one, in the release's order.
func Unmasked(key Key, rel *Released) (*UnmaskReport, error) {
	vals, err := Unmask(key, rel)
	if err != nil {
		return nil, err
	}
	r := &UnmaskReport{Scope: rel.Meta.Scope, Epoch: rel.Meta.Epoch, ReleaseID: rel.Meta.ReleaseID, GridExponent: rel.Meta.GridExponent,
		N: len(vals), Rows: make([]UnmaskRow, len(vals))}
	for i := range vals {
		r.Rows[i] = UnmaskRow{Key: rel.Keys[i], Value: vals[i], Released: rel.Values[i]}
	}
	return r, nil
}

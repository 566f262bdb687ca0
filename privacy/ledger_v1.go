package privacy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
)

// Ledger format version 1 (a JSON map of scopes with a plain SHA-256
// checksum) is read only to migrate it: CreateFileLedger
// turns a version 1 file whose checksum and sums verify into a version 2
// hash chain with the same scopes and charges. The checksum of version 1
// was forgeable, so the operator who calls CreateFileLedger vouches for it.
type ledgerFileV1 struct {
	Format     string                    `json:"format"`
	Version    int                       `json:"version"`
	Budget     Budget                    `json:"budget"`
	RhoBudget  float64                   `json:"rhoBudget"`
	Accounting string                    `json:"accounting"`
	Scopes     map[string]*ledgerScopeV1 `json:"scopes"`
	Checksum   string                    `json:"checksum"`
}

type ledgerScopeV1 struct {
	Spent    string                   `json:"spent"`
	SpentRho float64                  `json:"spentRho"`
	Releases map[string]ledgerEntryV1 `json:"releases"`
}

type ledgerEntryV1 struct {
	Rho  float64 `json:"rho"`
	Time string  `json:"time"`
}

// parseV1 verifies a version 1 ledger (format, checksum, budget, spend =
// Σ releases) and returns it; ok is false when data is not version 1.
func parseV1(data []byte) (f *ledgerFileV1, ok bool, err error) {
	var v ledgerFileV1
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&v) != nil || v.Format != ledgerFormat || v.Version != 1 {
		return nil, false, nil
	}
	c := v
	c.Checksum = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, true, err
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != v.Checksum {
		return nil, true, fmt.Errorf("version 1 checksum mismatch")
	}
	if want, err := v.Budget.Rho(); err != nil || want != v.RhoBudget {
		return nil, true, fmt.Errorf("version 1 ρ budget does not match its budget")
	}
	for name, sc := range v.Scopes {
		if sc == nil {
			return nil, true, fmt.Errorf("version 1 scope is empty")
		}
		if err := CheckName("scope", name); err != nil {
			return nil, true, fmt.Errorf("version 1 %v", err)
		}
		spent, ok := new(big.Rat).SetString(sc.Spent)
		sum := new(big.Rat)
		for id, e := range sc.Releases {
			if (Charge{Scope: name, ReleaseID: id, Rho: e.Rho}).Validate() != nil {
				return nil, true, fmt.Errorf("version 1 release %.64q is invalid", id)
			}
			sum.Add(sum, new(big.Rat).SetFloat64(e.Rho))
		}
		if !ok || sum.Cmp(spent) != 0 {
			return nil, true, fmt.Errorf("version 1 scope %.64q: spend is not the sum of its releases", name)
		}
	}
	return &v, true, nil
}

// migrateV1 builds the version 2 chain of a verified version 1 ledger:
// scopes in name order, each followed by its charges in time order.
func (l *FileLedger) migrateV1(v *ledgerFileV1) (*ledgerFile, *ledgerState, error) {
	integrity := integritySHA256
	if l.key != nil {
		integrity = integrityHMAC
	}
	f := &ledgerFile{ledgerHeader: ledgerHeader{Format: ledgerFormat, Version: ledgerVersion, Budget: v.Budget,
		RhoBudget: v.RhoBudget, Accounting: v.Accounting, Integrity: integrity, CreatedAt: now()}}
	st := &ledgerState{scopes: map[string]*scopeState{}}
	names := make([]string, 0, len(v.Scopes))
	for s := range v.Scopes {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		if err := l.appendEntry(f, ledgerEntry{Kind: "scope", Scope: s}); err != nil {
			return nil, nil, err
		}
		sc := &scopeState{releases: map[string]bool{}}
		st.scopes[s] = sc
		ids := make([]string, 0, len(v.Scopes[s].Releases))
		for id := range v.Scopes[s].Releases {
			ids = append(ids, id)
		}
		rel := v.Scopes[s].Releases
		sort.Slice(ids, func(i, j int) bool {
			if rel[ids[i]].Time != rel[ids[j]].Time {
				return rel[ids[i]].Time < rel[ids[j]].Time
			}
			return ids[i] < ids[j]
		})
		for _, id := range ids {
			if err := l.appendEntry(f, ledgerEntry{Kind: "charge", Scope: s, ReleaseID: id, Rho: rel[id].Rho}); err != nil {
				return nil, nil, err
			}
			sc.releases[id] = true
			sc.spend.Add(Charge{Rho: rel[id].Rho})
		}
	}
	return f, st, nil
}

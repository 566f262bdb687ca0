package stores

import (
	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
)

// AnswerCache is the answer certificate at path (graphcloak.AnswerCache),
// sealed under the configured ledger key's certificate subkey (none
// without a ledger key) and stamped with this build.
func AnswerCache(cfg *config.Config, path string) (graphcloak.AnswerCache, error) {
	key, err := CertificateMACKey(cfg)
	if err != nil {
		return graphcloak.AnswerCache{}, err
	}
	return graphcloak.AnswerCache{Path: path, MACKey: key, Software: buildinfo.Read().String()}, nil
}

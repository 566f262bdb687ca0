package stores

import (
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
)

// AnswerCache is the answer certificate at path (answer.Cache),
// sealed under the configured ledger key's certificate subkey (none
// without a ledger key) and stamped with this build.
func AnswerCache(cfg *config.Config, path string) (answer.Cache, error) {
	key, err := CertificateMACKey(cfg)
	if err != nil {
		return answer.Cache{}, err
	}
	return answer.Cache{Path: path, MACKey: key, Software: buildinfo.Read().String()}, nil
}

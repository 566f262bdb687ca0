package jobfiles

import (
	"log/slog"
	"os"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// Parameters an audit's files are named by: the certificate (or a
// shard's part) it saves, and the store of work.
const (
	ParamSave     errkind.Param = "save"
	ParamCacheDir errkind.Param = "cache-dir"
)

// AuditCache is where an audit on gr at τ with opt keeps its certificate
// (answer.AuditPass's Cache and Store): the file save names, sealed as
// AnswerCache seals it, else the entry of the store of work in cacheDir
// (WorkStore) for the graph and parameters; store is that entry (nil for
// a shard's part, whose certificate is not the store's, or without a
// store). Neither a file nor a store is a usage error. opt is the pass's
// own, its SensorNoise set: the entry is named by ν and T.
func AuditCache(cfg *config.Config, save, cacheDir string, shard bool, logger *slog.Logger, gr *laplacian.Graph, tau float64, opt recovery.CertifierOptions) (cache answer.Cache, store *answer.Cache, err error) {
	if !shard {
		w, err := WorkStore(cfg, cacheDir, logger)
		if err != nil {
			return answer.Cache{}, nil, err
		}
		store = w.Answer(gr, tau, opt.Tol, opt.SensorNoise)
	}
	switch {
	case save != "":
		cache, err = AnswerCache(cfg, save)
		return cache, store, err
	case store == nil:
		return answer.Cache{}, nil, errkind.Usagef("%s FILE is required with %s none: the certificate is what audit makes", ParamSave, ParamCacheDir)
	}
	return *store, store, nil
}

// CheckpointPeriodEnv sets how often a running audit rewrites its
// checkpoint (a duration; "0s" or negative: after every block of 32
// sources): tests that kill an audit set it so.
const CheckpointPeriodEnv = "GRAPHCLOAK_CHECKPOINT_PERIOD"

// CheckpointEvery is answer.AuditPass.CheckpointEvery from
// CheckpointPeriodEnv (0, the pass's default: unset or not a duration;
// −1, every block: zero or negative).
func CheckpointEvery() time.Duration {
	d, err := time.ParseDuration(os.Getenv(CheckpointPeriodEnv))
	switch {
	case err != nil:
		return 0
	case d <= 0:
		return -1
	}
	return d
}

package service

import (
	"crypto/ed25519"
	"crypto/tls"
	"net"
	"os"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/sensor"
)

// Parameters serve's listener, collection and epochs name (errkind.Param).
const (
	ParamListen         errkind.Param = "listen"
	ParamTLSCert        errkind.Param = "tls-cert"
	ParamTLSKey         errkind.Param = "tls-key"
	ParamMaxConnections errkind.Param = "max-connections"
	ParamMaxPerClient   errkind.Param = "max-connections-per-client"
	ParamMaxBody        errkind.Param = "max-body"
	ParamBodyTimeout    errkind.Param = "body-timeout"
	ParamSchedule       errkind.Param = "schedule"
)

// Listening is where serve listens: Addr, at most MaxConnections
// connections open at once and MaxPerClient per client address
// (local.LimitListener), over TLS with the PEM files TLSCert and
// TLSKey (both or neither).
type Listening struct {
	Addr            string
	MaxConnections  int
	MaxPerClient    int
	TLSCert, TLSKey string
}

// Listen checks l and listens (Listen): TLS's files read, the
// connections bounded.
func (l Listening) Listen() (net.Listener, error) {
	if (l.TLSCert == "") != (l.TLSKey == "") {
		return nil, errkind.Usagef("give both %s and %s, or neither", ParamTLSCert, ParamTLSKey)
	}
	var cfg *tls.Config
	if l.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(l.TLSCert, l.TLSKey)
		if err != nil {
			return nil, errkind.Inputf("%s/%s: %w", ParamTLSCert, ParamTLSKey, err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if l.MaxConnections < 1 {
		return nil, errkind.Inputf("%s must be ≥ 1, got %d", ParamMaxConnections, l.MaxConnections)
	}
	if l.MaxPerClient < 1 {
		return nil, errkind.Inputf("%s must be ≥ 1, got %d", ParamMaxPerClient, l.MaxPerClient)
	}
	ln, err := Listen(l.Addr, l.MaxConnections, l.MaxPerClient, cfg)
	if err != nil {
		return nil, errkind.Inputf("%s: %w", ParamListen, err)
	}
	return ln, nil
}

// Check refuses the report limits c cannot collect with.
func (c *Collection) Check() error {
	switch {
	case c.MaxBody <= 0:
		return errkind.Inputf("%s must be > 0, got %d", ParamMaxBody, c.MaxBody)
	case c.BodyTimeout <= 0:
		return errkind.Inputf("%s must be > 0, got %v", ParamBodyTimeout, c.BodyTimeout)
	}
	return nil
}

// ParseSchedule is schedule.Parse, its refusal bad input naming the
// schedule.
func ParseSchedule(spec string) (schedule.Spec, error) {
	s, err := schedule.Parse(spec)
	if err != nil {
		return schedule.Spec{}, errkind.Inputf("%s: %w", ParamSchedule, err)
	}
	return s, nil
}

// ReadInputs reads what s opens its epochs with before anything else is
// opened: the schedule (spec), the coordinator's signing key (the file
// signingKey) and the journal's directory, made if missing.
func (s *Epochs) ReadInputs(spec, signingKey string) error {
	var err error
	if s.Schedule, err = ParseSchedule(spec); err != nil {
		return err
	}
	var signer ed25519.PrivateKey
	if signer, err = sensor.LoadSigningKey(signingKey); err != nil {
		return errkind.Input(err)
	}
	s.Open.Signer = signer
	if err := os.MkdirAll(s.Journal, 0o755); err != nil {
		return errkind.Inputf("%s: %w", local.ParamJournal, err)
	}
	return nil
}

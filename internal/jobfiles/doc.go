// Package jobfiles completes a job's spec from the configured key files
// and the files it names, before anything is opened or connected: the
// ledger key, the noise key and a Δ2 certificate (ReadReleaseInputs,
// ReadAnswerKeys, LedgerKey, CertificateMACKey), the store of work every
// command shares (WorkStore) and where an audit keeps its certificate
// (AuditCache, AuditReused). Its errors name parameters (errkind.Param),
// never a command's flags.
package jobfiles

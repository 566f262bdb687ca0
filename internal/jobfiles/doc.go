// Package jobfiles completes a job's spec from the configured key files
// and the files it names, before anything is opened or connected: the
// ledger key (config.Config.LedgerKey), the noise key and a Δ2
// certificate (ReadReleaseInputs, ReadEpochInputs, ReadAnswerKeys,
// CertificateMACKey), the store of work every command shares (WorkStore)
// and where an audit keeps its certificate (AuditCache, AuditReused). Its
// errors name parameters (errkind.Param), never a command's flags. The
// stores do not import it: a package between the stores and job would
// lengthen every import chain through them (TestImportChainStaysShort).
package jobfiles

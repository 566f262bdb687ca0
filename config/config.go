package config

// Config is graphcloak's effective configuration. Field names mirror the
// configuration keys (GDS spelling); see Keys for the flag and environment
// variable of each.
type Config struct {
	Neo4j      Neo4j      `mapstructure:"neo4j" json:"neo4j"`
	Projection Projection `mapstructure:"projection" json:"projection"`
	Write      Write      `mapstructure:"write" json:"write"`
	Privacy    Privacy    `mapstructure:"privacy" json:"privacy"`
	Recovery   Recovery   `mapstructure:"recovery" json:"recovery"`
	Input      Input      `mapstructure:"input" json:"input"`
	// Output is the output format: "table" (default) or "json".
	Output string `mapstructure:"output" json:"output"`
	// LogFormat is the format of the logs on stderr: "text" (default) or "json".
	LogFormat string `mapstructure:"logFormat" json:"logFormat"`
	// LogLevel is the least severe log level written: debug, info, warn
	// (default: quiet like gh and kubectl, the results are on stdout) or
	// error.
	LogLevel string `mapstructure:"logLevel" json:"logLevel"`
}

// Neo4j is where the database is and how to log in.
type Neo4j struct {
	// URI is bolt://, neo4j://, with optional +s or +ssc. Default neo4j://localhost:7687.
	URI string `mapstructure:"uri" json:"uri"`
	// User for basic auth. Default "neo4j".
	User string `mapstructure:"user" json:"user"`
	// Password for basic auth. Never logged, printed or put in an error;
	// set it with GRAPHCLOAK_NEO4J_PASSWORD or the config file.
	Password string `mapstructure:"password" json:"password"`
	// Database is always named explicitly. Default "neo4j".
	Database string `mapstructure:"database" json:"database"`
	// ConnectTimeout (seconds) bounds connecting, the Bolt handshake
	// included: a server that accepts the socket but never answers is
	// given up after it. Default 15.
	ConnectTimeout float64 `mapstructure:"connectTimeout" json:"connectTimeout"`
	// AcquisitionTimeout (seconds) bounds waiting for a connection from
	// the pool. Default 30.
	AcquisitionTimeout float64 `mapstructure:"acquisitionTimeout" json:"acquisitionTimeout"`
	// TransactionTimeout (seconds) limits every transaction: the server
	// terminates it, and the client gives up after it plus the acquisition
	// timeout when the server stalls. Default 120.
	TransactionTimeout float64 `mapstructure:"transactionTimeout" json:"transactionTimeout"`
}

// Projection selects the graph in Neo4j, in GDS spelling.
type Projection struct {
	// Name is a projection saved with "graphcloak projection save" (the
	// config file's projections: section); it sets the four keys below,
	// and a key also set otherwise must agree with it. Empty: none.
	Name string `mapstructure:"name" json:"name"`
	// NodeLabels filters nodes; empty means every node.
	NodeLabels []string `mapstructure:"nodeLabels" json:"nodeLabels"`
	// RelationshipTypes filters relationships; empty means every type.
	RelationshipTypes []string `mapstructure:"relationshipTypes" json:"relationshipTypes"`
	// RelationshipWeightProperty is the weight; empty means unweighted.
	RelationshipWeightProperty string `mapstructure:"relationshipWeightProperty" json:"relationshipWeightProperty"`
	// NodeKeyProperty is the business key of a node; empty means elementId.
	NodeKeyProperty string `mapstructure:"nodeKeyProperty" json:"nodeKeyProperty"`
	// ValueProperty is a raw reading already stored in the database (the
	// explicitly named mode of release; the default mode reads a CSV).
	ValueProperty string `mapstructure:"valueProperty" json:"valueProperty"`
}

// Write names the properties graphcloak writes and how.
type Write struct {
	// WriteProperty receives the released private value. Default graphcloak_value.
	WriteProperty string `mapstructure:"writeProperty" json:"writeProperty"`
	// MassProperty receives the recovered source mass. Default graphcloak_mass.
	MassProperty string `mapstructure:"massProperty" json:"massProperty"`
	// CommunityWriteProperty receives the community id. Default graphcloak_community.
	CommunityWriteProperty string `mapstructure:"communityWriteProperty" json:"communityWriteProperty"`
	// ProbabilityProperty receives the community's probability. Default graphcloak_probability.
	ProbabilityProperty string `mapstructure:"probabilityProperty" json:"probabilityProperty"`
	// RankProperty receives the community's rank (1 = most likely). Default graphcloak_rank.
	RankProperty string `mapstructure:"rankProperty" json:"rankProperty"`
	// BatchSize is the number of rows per write transaction. Default 10000.
	BatchSize int `mapstructure:"batchSize" json:"batchSize"`
	// Concurrency is the number of worker goroutines. Default 4.
	Concurrency int `mapstructure:"concurrency" json:"concurrency"`
	// RandomSeed (≥ 0) seeds community detection and the simulations of
	// plan, experiment and forecasts — never the privacy noise. Default 1:
	// one seed flag, one type, one default on every command.
	RandomSeed int64 `mapstructure:"randomSeed" json:"randomSeed"`
}

// Privacy holds the mechanism's parameters and the budget.
type Privacy struct {
	// Tau is the diffusion time τ > 0. Default 1.
	Tau float64 `mapstructure:"tau" json:"tau"`
	// Alpha is the neighbourhood radius α > 0 in EMD (hops). Default 1.
	Alpha float64 `mapstructure:"alpha" json:"alpha"`
	// Epsilon is the ε > 0 of one release. Default 1.
	Epsilon float64 `mapstructure:"epsilon" json:"epsilon"`
	// Delta is the δ in (0, 1) of one release. Default 1e-5.
	Delta float64 `mapstructure:"delta" json:"delta"`
	// Mechanism is "discrete" (default: the discrete Gaussian with zCDP
	// accounting, any ε) or "classic" (ε < 1 only).
	Mechanism string `mapstructure:"mechanism" json:"mechanism"`
	// EpsilonTotal and DeltaTotal are the lifetime budget the ledger
	// enforces. Defaults 10 and 1e-5.
	EpsilonTotal float64 `mapstructure:"epsilonTotal" json:"epsilonTotal"`
	DeltaTotal   float64 `mapstructure:"deltaTotal" json:"deltaTotal"`
	// KeyFile is a 0600 noise key; empty means noise from crypto/rand.
	KeyFile string `mapstructure:"keyFile" json:"keyFile"`
	// LedgerKeyFile is a 0600 key (keygen) that keys the file ledger's
	// hash chain with HMAC-SHA256; empty means a plain SHA-256 chain
	// (tamper-evident against accidents only).
	LedgerKeyFile string `mapstructure:"ledgerKeyFile" json:"ledgerKeyFile"`
	// Ledger is a ledger file path or "neo4j". Empty means one ledger per
	// user, $XDG_STATE_HOME/graphcloak/ledger.json (see cmd/graphcloak), so
	// runs from different directories never keep separate budgets.
	Ledger string `mapstructure:"ledger" json:"ledger"`
	// Scope names what the budget protects (one ledger account). Default "default".
	Scope string `mapstructure:"scope" json:"scope"`
	// Epoch identifies a release for keyed noise; empty means a fresh run id.
	Epoch string `mapstructure:"epoch" json:"epoch"`
	// RefuseAtChance refuses a release, before anything is charged, when
	// its forecast cannot be told from chance (release and serve).
	RefuseAtChance bool `mapstructure:"refuseAtChance" json:"refuseAtChance"`
}

// Input says how input files (edge lists, readings) are read.
type Input struct {
	// Header says whether the first row of an input CSV file (edge list,
	// readings) is a header: auto (decided by its column names), yes or no.
	Header string `mapstructure:"header" json:"header"`
	// DuplicateEdges says what a pair of nodes given more than once (two
	// rows of an edge list, in either direction; two relationships in
	// Neo4j) means: merge (default: one edge when the weights agree, an
	// error when they differ), sum (parallel edges whose weights add) or
	// reject (any repeat is an error). See laplacian.DuplicateRule.
	DuplicateEdges string `mapstructure:"duplicateEdges" json:"duplicateEdges"`
}

// Recovery chooses how sources are recovered.
type Recovery struct {
	// Estimator is a recovery estimator name. Default posterior (the
	// recovery package's Default); empty means the same.
	Estimator string `mapstructure:"estimator" json:"estimator"`
	// Sources is the number of sources K ≥ 1 to look for. Default 1.
	Sources int `mapstructure:"sources" json:"sources"`
	// Communities is the partition the answers, localisations and
	// forecasts score, as the user analyses the graph: leiden (default,
	// computed), louvain, gds:leiden, gds:louvain (Neo4j GDS),
	// property:NAME (Neo4j) or file:PATH (CSV node,community); plan also
	// takes planted. One key for release, locate, plan and serve.
	Communities string `mapstructure:"communities" json:"communities"`
}
